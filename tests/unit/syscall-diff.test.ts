import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { comparePaired } from "../../src/compare/paired.ts";
import { explainRows, formatSyscallChange, formatSyscallDiff, rowDiffs, syscallDiff, syscallDiffSection } from "../../src/compare/syscall-diff.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import type { SyscallProfile } from "../../src/tools/strace.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

/** A counted result: its calls by name per counted run, and the total they make as its `syscalls` metric. */
function counted(label: string, calls: Record<string, number[]>, per = "start", scheduling: Record<string, number[]> = {}): ResultDocument {
  const runs = Object.values(calls)[0]!.length;
  const totals = Array.from({ length: runs }, (_, run) => Object.values(calls).reduce((sum, values) => sum + values[run]!, 0));
  const profile: SyscallProfile = { per, calls, scheduling };
  return makeResult({
    label,
    run: { trials: runs },
    metrics: { syscalls: { ...metricOf(totals, `calls/${per}`), trial_samples: totals.map(() => 1) } },
    details: { syscall_counts: profile },
  });
}

// Node's start with one fs.statSync more: statx moves by exactly one in every run, munmap and mmap by
// more, but their runs spread as far (a background thread unmaps as the scheduler lets it).
const base = counted("a", { statx: [20, 20, 20], munmap: [60, 57, 64], mmap: [79, 78, 79], openat: [33, 33, 33] }, "start", { futex: [80, 95, 88] });
const head = counted("b", { statx: [21, 21, 21], munmap: [63, 61, 66], mmap: [80, 80, 79], openat: [33, 33, 33] }, "start", { futex: [70, 99, 120] });

describe("the calls that changed most", () => {
  it("names first the call that moved in every run, before larger moves within the runs' spread", () => {
    const diff = syscallDiff([base], [head])!;
    assert.equal(diff.per, "start");
    assert.deepEqual(diff.changes[0], { name: "statx", base: 20, head: 21, change: 1, certain: true });
    // mmap moved by one in a spread of one, munmap by three in a spread of seven: mmap stands out more.
    assert.deepEqual(
      diff.changes.map((c) => c.name),
      ["statx", "mmap", "munmap"],
    );
    assert.ok(!diff.changes.some((c) => c.name === "openat" || c.name === "futex"), "unchanged calls and scheduling calls are not named");
    assert.equal(formatSyscallDiff(diff), "+1 statx per start, +1 mmap per start (within its runs' spread), +3 munmap per start (within its runs' spread)");
  });

  it("writes whole calls of a start as whole numbers and calls per request with decimals", () => {
    assert.equal(formatSyscallChange({ name: "mmap", base: 80, head: 77, change: -3, certain: true }, "start"), "−3 mmap per start");
    assert.equal(formatSyscallChange({ name: "statx", base: 1.02, head: 2.02, change: 1, certain: true }, "read"), "+1.0 statx per read");
    assert.equal(formatSyscallChange({ name: "accept4", base: 0.0325, head: 0.0125, change: -0.02, certain: false }, "request"), "−0.02 accept4 per request");
  });

  it("counts a call one side never made as 0, pools a side's results, and gives none where a side was not counted", () => {
    const write = counted("b", { write: [1.0004, 1.0004], read: [1.01, 1.012] }, "request");
    const noWrite = counted("a", { read: [1.011, 1.01] }, "request");
    const diff = syscallDiff([noWrite, noWrite], [write])!;
    assert.deepEqual(diff.changes[0], { name: "write", base: 0, head: 1.0004, change: 1.0004, certain: true });
    assert.match(formatSyscallDiff(diff), /^\+1\.0 write per request/);
    assert.equal(syscallDiff([makeResult()], [write]), null);
    assert.equal(syscallDiff([counted("a", { read: [1] }, "file")], [write]), null, "a file and a request are not one unit");
    assert.equal(formatSyscallDiff(syscallDiff([base], [base])!), "no call changed per start");
  });

  it("explains the paired rows of a calls total, under the compare table and in its JSON", () => {
    const rows = comparePaired([base], [head]);
    const diffs = rowDiffs(rows, [base, head], [base, head]);
    assert.equal(diffs.size, 1);
    const explained = explainRows(rows, [base, head], [base, head]);
    assert.deepEqual(explained[0]!.syscall_changes?.changes[0]?.name, "statx");
    const section = syscallDiffSection(diffs, false);
    assert.match(section, /^Calls that changed most, per cell/);
    assert.match(section, /startup\/hello syscalls, a → b: \+1 statx per start/);
    assert.match(syscallDiffSection(diffs, true), /^\*\*Calls that changed most.*\*\*\n- startup\/hello syscalls, a → b: \+1 statx per start/);
    assert.equal(syscallDiffSection(new Map(), false), "");
    // A row of another metric, or of results never counted, has no explanation.
    const wall = comparePaired([makeResult({ label: "a" })], [makeResult({ label: "b" })]);
    assert.equal(rowDiffs(wall, [makeResult({ label: "a" })], [makeResult({ label: "b" })]).size, 0);
  });
});
