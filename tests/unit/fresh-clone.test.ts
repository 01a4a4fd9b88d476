import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runProcess, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { countingShare, failingTests, headlineGaps, lineClock, newestSubject, parseResultsWritten, parseSuiteTimes, parseTestSummary, secondsUntil, serverWarmups, slowestSuites, toolBuilds, TYPE_CHECKING_LINE } from "../../benchmarks/lib/fresh-clone.ts";
import { previousFiguresNote, rolledNotes } from "../../benchmarks/lib/measurements.ts";
import { comparePaired } from "../../src/compare/paired.ts";
import type { CompareRow } from "../../src/compare/types.ts";
import type { MeasurementEntry } from "../../src/core/measurements.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { runCommand } from "../../src/process/children.ts";

// The end of `scripts/test`'s output (node's spec reporter, node 20), a failing test among them.
const TEST_OUTPUT = `▶ compare
  ✔ a paired verdict (3.1ms)
▶ compare (4.2ms)
✖ failing tests:

test at tests/unit/x.test.ts:3:1
✖ b (0.29ms)
  Error: ℹ tests 1 is not a summary line when indented
ℹ tests 664
ℹ suites 118
ℹ pass 661
ℹ fail 1
ℹ cancelled 0
ℹ skipped 2
ℹ todo 0
ℹ duration_ms 1295312.5
`;

test("the test runner's summary: tests, passed, failed and its own duration", () => {
  assert.deepEqual(parseTestSummary(TEST_OUTPUT), { tests: 664, pass: 661, fail: 1, cancelled: 0, skipped: 2, todo: 0, seconds: 1295.3125 });
  assert.equal(parseTestSummary("runtime-bench: type errors (see above)\n"), null, "no summary: the tests never ran");
});

test("the failing tests are named with where they are, and none when none failed", () => {
  assert.deepEqual(failingTests(TEST_OUTPUT), ["b (tests/unit/x.test.ts:3:1)"]);
  assert.deepEqual(failingTests("ℹ tests 3\nℹ fail 0\n"), []);
});

test("the slowest suites at the top of the test files, slowest first, a failing test not counted again from the list of failures", () => {
  const measuring = "▶ the site in Chromium\n  ✔ loads (2.5ms)\n▶ the site in Chromium (297692.9ms)\n▶ act\n▶ act (61000ms)\n";
  assert.deepEqual(slowestSuites(`${TEST_OUTPUT}${measuring}`, 2), [{ name: "the site in Chromium", seconds: 297692.9 / 1000 }, { name: "act", seconds: 61 }]);
  assert.deepEqual(slowestSuites(TEST_OUTPUT, 5), [{ name: "compare", seconds: 4.2 / 1000 }], "b is at column 0 only in the list of failures, which is not counted");
});

test("scripts/test's two runs, the unit tests and then the others, add up, and each one's failures are named", () => {
  const measuring = TEST_OUTPUT.replace("tests/unit/x.test.ts:3:1", "tests/site/y.test.ts:9:1").replace("✖ b (", "✖ c (");
  assert.deepEqual(parseTestSummary(`${TEST_OUTPUT}${measuring}`), { tests: 1328, pass: 1322, fail: 2, cancelled: 0, skipped: 4, todo: 0, seconds: 2590.625 });
  assert.deepEqual(failingTests(`${TEST_OUTPUT}${measuring}`), ["b (tests/unit/x.test.ts:3:1)", "c (tests/site/y.test.ts:9:1)"]);
});

test("node's own test runner prints a summary the parser reads", async () => {
  const dir = tempDir("fresh-clone-summary");
  writeFileSync(join(dir, "a.test.mjs"), 'import test from "node:test";\ntest("a", () => {});\ntest("b", () => { throw new Error("x"); });\ntest.skip("c", () => {});\n');
  // Under the test runner, NODE_TEST_CONTEXT would make the child report to it instead of printing.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = await runCommand(process.execPath, ["--test", "--test-reporter=spec", join(dir, "a.test.mjs")], { cwd: dir, env });
  const summary = parseTestSummary(run.stdout);
  assert.ok(summary, run.stdout);
  assert.deepEqual({ ...summary, seconds: 0 }, { tests: 3, pass: 1, fail: 1, cancelled: 0, skipped: 1, todo: 0, seconds: 0 });
  assert.ok(summary.seconds > 0 && summary.seconds < 60);
  assert.deepEqual(failingTests(run.stdout).map((name) => name.split(" (")[0]), ["b"], run.stdout);
});

test("lines are stamped when they are complete, whichever stream they come on", () => {
  let now = 0;
  const seen: string[] = [];
  const clock = lineClock(() => now, (line) => seen.push(line.text));
  clock.push("stderr", "runtime-bench: build");
  now = 2;
  clock.push("stderr", "ing oha 1.16.0 with cargo\nruntime-bench: type");
  clock.push("stdout", "▶ first\n");
  now = 5;
  clock.push("stderr", "-checking\nno newline at the end");
  assert.deepEqual(clock.lines(), [
    { at: 2, text: "runtime-bench: building oha 1.16.0 with cargo" },
    { at: 2, text: "▶ first" },
    { at: 5, text: "runtime-bench: type-checking" },
    { at: 5, text: "no newline at the end" },
  ]);
  assert.deepEqual(seen, ["runtime-bench: building oha 1.16.0 with cargo", "▶ first", "runtime-bench: type-checking"], "a line is said once it is whole");
});

test("each tool build runs from its message to the next message, or says what it took; the installs end where type-checking starts", () => {
  const lines = [
    { at: 0.5, text: "runtime-bench: installing harness dependencies" },
    { at: 20, text: "runtime-bench: building oha 1.16.0 with cargo (once; about 5 minutes on two cores, cached in /tmp/t)" },
    { at: 320, text: "runtime-bench: building k6 with go (once; about 1.5 minutes on two cores, cached in /tmp/t)" },
    { at: 410, text: "runtime-bench: installing chromium" },
    { at: 430, text: "runtime-bench: building act with go (once; about a minute on two cores, cached in /tmp/t)" },
    { at: 490, text: TYPE_CHECKING_LINE },
    { at: 520, text: "runtime-bench: linting" },
  ];
  assert.deepEqual(toolBuilds(lines, 1500), [
    { tool: "oha", seconds: 300 },
    { tool: "k6", seconds: 90 },
    { tool: "act", seconds: 60 },
  ]);
  assert.deepEqual(toolBuilds(lines.slice(0, 2), 200), [{ tool: "oha", seconds: 180 }], "the last build ends with the command");
  assert.equal(secondsUntil(lines, TYPE_CHECKING_LINE), 490);
  assert.equal(secondsUntil(lines.slice(0, 2), TYPE_CHECKING_LINE), null);
  // oha's build in the background: the others go on beside it, and its own line says what it took.
  const beside = [
    { at: 1, text: "runtime-bench: building oha 1.16.0 with cargo (once; about 5 minutes on two cores, beside the other installs; cached in /tmp/t)" },
    { at: 2, text: "runtime-bench: building k6 with go (once; about 1.5 minutes on two cores, cached in /tmp/t)" },
    { at: 95, text: "runtime-bench: installing chromium" },
    { at: 214, text: "runtime-bench: built oha 1.16.0 (213 s)" },
    { at: 215, text: TYPE_CHECKING_LINE },
  ];
  assert.deepEqual(toolBuilds(beside, 300), [
    { tool: "oha", seconds: 213 },
    { tool: "k6", seconds: 93 },
  ]);
});

// The end of `scripts/bench`'s output with no arguments (its summary table cut).
const BENCH_OUTPUT = `startup/hello  wall_ms (lower)  40.1 ms  …
findings (a runtime 3× or more off the others; scripts/bench repro makes a reproduction):
…
177 results written below /tmp/c/data/reference-x64-2vcpu/20261126T131900Z-2a5934; every metric of every cell: /tmp/c/data/reference-x64-2vcpu/20261126T131900Z-2a5934/summary.txt
time per suite: startup 32 s, http 2 min 44 s, fileio 1 min 04 s, database 47 s, websocket 1 min 54 s, install 52 s, workers 2 min 16 s

site: 1,475 results …
`;

test("scripts/bench's summary: the results it wrote, its run folder and the time per suite", () => {
  assert.deepEqual(parseResultsWritten(BENCH_OUTPUT), { results: 177, folder: "/tmp/c/data/reference-x64-2vcpu/20261126T131900Z-2a5934" });
  assert.deepEqual(parseSuiteTimes(BENCH_OUTPUT), [
    { suite: "startup", time: "32 s" },
    { suite: "http", time: "2 min 44 s" },
    { suite: "fileio", time: "1 min 04 s" },
    { suite: "database", time: "47 s" },
    { suite: "websocket", time: "1 min 54 s" },
    { suite: "install", time: "52 s" },
    { suite: "workers", time: "2 min 16 s" },
  ]);
  assert.deepEqual(parseResultsWritten("1 result written below /d/r/1; every metric of every cell: /d/r/1/summary.txt\n"), { results: 1, folder: "/d/r/1" });
  assert.equal(parseResultsWritten("interrupted\n"), null);
  assert.deepEqual(parseSuiteTimes("interrupted\n"), []);
});

test("the counting pass's share of a run: its results' counting seconds against the rest of the run", () => {
  const docs = [{ details: { counting_s: 12.5 } }, { details: { counting_s: 7.5, client_bound: true } }, { details: {} }, { details: { counting_s: "n/a" } }];
  const share = countingShare(docs, 420);
  assert.equal(share.seconds, 20);
  assert.equal(share.added, 20 / 400, "20 s on a run of 400 s without it: 5 %");
  assert.deepEqual(countingShare([{ details: {} }], 60), { seconds: 0, added: 0 });
});

test("the servers' warm-ups of a run: every trial's seconds and steadiness, nothing from results without a server", () => {
  const docs = [
    { details: { trial_1: { warmup: { steady: true, seconds: 2.5 } }, trial_2: { warmup: { steady: false, seconds: 10 } }, counting_s: 6 } },
    { details: { trial_1: { warmup: { steady: true, seconds: 3 } }, trial_1_warmup: { iterations: 40, steady: true } } },
    { details: { trial_1_verification: { warmup: { seconds: 99 } }, trial_2: { fixed_rate: {} } } },
    { details: {} },
  ];
  assert.deepEqual(serverWarmups(docs), { seconds: 15.5, trials: 3, neverSteady: 1 });
  assert.deepEqual(serverWarmups([]), { seconds: 0, trials: 0, neverSteady: 0 });
});

/** One cell of two runtimes in one run: `trials` per runtime, the second `factor` times the first on the headline metric. */
function cell(scenario: string, factor: number, trials: number, extra: Record<string, number[]> = {}) {
  return (["node", "bun"] as const).map((name, side) => {
    const samples = Array.from({ length: trials }, (_, t) => 10 * (side === 1 ? factor : 1) * (1 + 0.01 * ((t % 3) - 1)));
    const metrics = { wall_ms: metricOf(samples), ...Object.fromEntries(Object.entries(extra).map(([metric, values]) => [metric, metricOf(values)])) };
    const version = name === "node" ? "26.12.1" : "1.4.5";
    return makeResult({ scenario, metrics, runtime: { name, version, spec: `${name}@${version}` }, run: { trials } });
  });
}

test("headline gaps: only each cell's first metric, medians 1.5× or more apart either way, counted by verdict", () => {
  const row = (scenario: string, metric: string, base: number, head: number, verdict: CompareRow["verdict"]) =>
    ({ suite: "startup", scenario, app: null, params: {}, metric, base_median: base, head_median: head, ci95: null, verdict }) as CompareRow;
  const docs = ["a", "b", "c", "d", "e"].flatMap((scenario) => cell(scenario, 1, 3, { peak_rss_mb: [50, 51, 52] }));
  const rows = [
    row("a", "wall_ms", 10, 20, "slower"),
    row("b", "wall_ms", 30, 10, "faster"),
    row("c", "wall_ms", 10, 15, "inconclusive"),
    row("d", "wall_ms", 10, 14.9, "no significant change"),
    row("e", "peak_rss_mb", 10, 40, "no significant change"),
    row("e", "wall_ms", 10, 100, "no significant change"),
  ];
  rows[2] = { ...rows[2], ci95: [0.9, 2.4], pairs: 3, reason: "an interval wider than ±50 %" } as CompareRow;
  assert.deepEqual(headlineGaps(rows, docs, 1.5), {
    headlineRows: 5,
    gaps: 4,
    change: 2,
    inconclusive: 1,
    noChange: 1,
    notComparable: 0,
    uncalled: ["startup/c wall_ms ×1.50 [0.900, 2.400], 3 pairs: inconclusive (an interval wider than ±50 %)", "startup/e wall_ms ×10.00: no significant change"],
  });
});

test("headline gaps of a real paired comparison: a 5× gap is called a change, an equal cell is no gap", () => {
  const docs = [...cell("far", 5, 6), ...cell("near", 1, 6)];
  const rows = comparePaired(docs.filter((d) => d.runtime.name === "node"), docs.filter((d) => d.runtime.name === "bun"));
  const tally = headlineGaps(rows, docs, 1.5);
  assert.equal(tally.headlineRows, 2);
  assert.deepEqual({ gaps: tally.gaps, change: tally.change }, { gaps: 1, change: 1 }, JSON.stringify(rows.map((r) => [r.scenario, r.verdict, r.reason])));
});

test("the newest subject of a runtime is named as compare names it", () => {
  const docs = [
    makeResult({ runtime: { name: "node", version: "9.0.0" } }),
    makeResult({ runtime: { name: "node", version: "26.12.1" } }),
    makeResult({ runtime: { name: "node", version: "26.2.0" } }),
    makeResult({ runtime: { name: "bun", version: "1.4.5" }, label: "canary" }),
  ];
  assert.equal(newestSubject(docs, "node"), "node-26.12.1");
  assert.equal(newestSubject(docs, "bun"), "canary");
  assert.equal(newestSubject(docs, "deno"), null);
});

test("a re-measured entry keeps the rows it replaces as a dated note, then its older notes, its own note of before dropped", () => {
  const old: MeasurementEntry = {
    title: "The test run",
    benchmark: "scripts/test (through .ci/run), fresh clone",
    when: "2026-11-26 14:09",
    where: "a 2-vCPU x86_64 VM",
    load: "nothing else running",
    columns: { run: "run", tests: "tests", failed: "failed", time: "wall time", note: "note" },
    rows: [{ run: "`scripts/test` from a fresh clone", tests: 664, failed: 0, time: "21 min 59 s", note: null }],
    notes: ["A new machine adds the apt installs.", "2026-11-25 20:01: 535 tests in 15 min 19 s."],
  };
  const note = "2026-11-26 14:09 (a 2-vCPU x86_64 VM; load nothing else running; `scripts/test (through .ci/run), fresh clone`): run: `scripts/test` from a fresh clone, tests: 664, failed: 0, wall time: 21 min 59 s.";
  assert.equal(previousFiguresNote(old), note);
  const prefix = "Measured by `scripts/benchmark fresh-clone";
  const own = `${prefix} --tests\`: how.`;
  const first = rolledNotes(old, own, prefix);
  assert.deepEqual(first, [own, note, ...old.notes!]);
  const again = rolledNotes({ ...old, notes: first, when: "2027-01-01 10:00", rows: [{ ...old.rows![0]!, tests: 700 }] }, `${prefix} --tests\`: how, reworded.`, prefix);
  assert.equal(again.filter((n) => n.startsWith(prefix)).length, 1, "one note of the benchmark's own");
  assert.match(again[1]!, /^2027-01-01 10:00 \(.*tests: 700,/);
  assert.deepEqual(again.slice(2), [note, ...old.notes!]);
  assert.equal(rolledNotes(undefined, own, prefix).length, 1);
  assert.throws(() => rolledNotes(old, "How it was measured.", prefix), /does not start with its prefix/);
});

// As scripts/benchmark starts it: through benchmarks/lib/run.ts, which says bad input in one line.
const freshClone = (...args: string[]) => runProcess(process.execPath, ["--import", "tsx", join(REPO_ROOT, "benchmarks/lib/run.ts"), "fresh-clone", ...args], { cwd: REPO_ROOT });

test("the benchmark clones this checkout's HEAD under the temp folder and removes it; bad options are one line", async () => {
  const head = (await runCommand("git", ["rev-parse", "--short=7", "HEAD"], { cwd: REPO_ROOT })).stdout.trim();
  const { code, stderr } = await freshClone("--clone-only");
  assert.equal(code, 0, stderr);
  assert.match(stderr, /\.ci\/run among them/);
  assert.ok(stderr.includes(`(${head}) into `), stderr);
  const removed = /removed (\S+)/.exec(stderr)?.[1];
  assert.ok(removed !== undefined && !existsSync(removed), stderr);
  for (const args of [[], ["--clone-only", "--record"], ["--tests", "--no-such-option"]]) {
    const bad = await freshClone(...args);
    assert.equal(bad.code, 2, bad.stderr);
    assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
  }
});
