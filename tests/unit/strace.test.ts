import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import {
  callsOnPaths,
  countRuns,
  difference,
  parseCounted,
  parseStraceSummary,
  PATH_SYSCALLS,
  perUnit,
  SCHEDULING_SYSCALLS,
  splitScheduling,
  sumCalls,
  syscallProfile,
  tasksStarted,
  type SyscallCounts,
} from "../../src/tools/strace.ts";

// Summaries strace 6.1 wrote on the development machine (tests/fixtures/strace/): node 22.11.0's and
// deno 2.9.6's `console.log("ready")` under `strace -f -c`, a shell starting two programs, a node
// 26 server attached with `-p` for 2,000 requests, and two tables of columns chosen with `-U`; and
// deno 2.9.6's under `strace -f -C -y -qq` (every call, descriptors with their paths, then the
// summary), its DENO_DIR a folder of earlier starts, paths renamed.
const recorded = (name: string) => readFileSync(join(REPO_ROOT, "tests/fixtures/strace", name), "utf8");
const parsed = (name: string) => parseStraceSummary(recorded(name))!;

/** The table's own `total` line: calls and errors. */
function totalLine(text: string): { calls: number; errors: number } {
  const cells = text.split("\n").find((line) => /\stotal$/.test(line) || /^total\s/.test(line.trim()))!.trim().split(/\s+/);
  return cells[0] === "total" ? { calls: Number(cells[1]), errors: Number(cells[2] ?? 0) } : { calls: Number(cells[3]), errors: cells.length === 6 ? Number(cells[4]) : 0 };
}

const sums = (counts: SyscallCounts) => Object.values(counts).reduce((sum, tally) => ({ calls: sum.calls + tally.calls, errors: sum.errors + tally.errors }), { calls: 0, errors: 0 });

describe("strace -c summaries", () => {
  it("reads every call of a multi-threaded start, failed calls in their errors column and blank cells as none", () => {
    const node = parsed("node-22.11.0-hello.txt");
    assert.deepEqual(sums(node), totalLine(recorded("node-22.11.0-hello.txt")));
    assert.deepEqual(node.clone3, { calls: 10, errors: 0 }, "ten threads started besides the main one");
    assert.equal(tasksStarted(node), 11);
    assert.ok(node.openat!.errors > 0 && node.openat!.errors < node.openat!.calls, "module resolution probes paths that do not exist");
    assert.equal(node.execve!.calls, 1);
  });

  it("adds up every process of a tree, threads and children alike", () => {
    const tree = parsed("sh-two-children.txt");
    assert.deepEqual(sums(tree), totalLine(recorded("sh-two-children.txt")));
    assert.equal(tree.execve!.calls, 3, "the shell, node and true");
    // The shell's two children (vfork) and node's threads (clone3), and the shell itself.
    assert.equal(tasksStarted(tree), 1 + tree.vfork!.calls + tree.clone3!.calls);
  });

  it("reads a table without an errors column, and one whose columns -U put in another order", () => {
    const noErrors = parsed("true-calls-name.txt");
    assert.deepEqual(sums(noErrors), { calls: 29, errors: 0 });
    assert.deepEqual(noErrors.mmap, { calls: 8, errors: 0 });
    const nameFirst = parsed("ls-missing-name-calls-errors.txt");
    assert.deepEqual(sums(nameFirst), totalLine(recorded("ls-missing-name-calls-errors.txt")));
    assert.deepEqual(nameFirst.openat, { calls: 39, errors: 19 });
    assert.deepEqual(nameFirst.mmap, { calls: 30, errors: 0 });
  });

  it("adds the tables of several personalities, and finds no table where there is none", () => {
    const text = recorded("true-calls-name.txt");
    const twice = parseStraceSummary(`${text}\nSystem call usage summary for 32 bit mode:\n${text}`)!;
    assert.deepEqual(twice.mmap, { calls: 16, errors: 0 });
    assert.equal(parseStraceSummary("strace: exec: No such file or directory\n"), null);
    assert.deepEqual(parseStraceSummary(recorded("true-calls-name.txt").split("\n").slice(0, 2).join("\n")), {}, "a table with no calls is an empty count, not none");
  });

  it("keeps the calls scheduling decides apart from the program's work", () => {
    const server = parsed("node-26.10.0-server-window.txt");
    const { work, scheduling } = splitScheduling(server);
    assert.deepEqual(Object.keys(scheduling).sort(), ["epoll_pwait", "futex"]);
    assert.equal(sumCalls(work) + sumCalls(scheduling), totalLine(recorded("node-26.10.0-server-window.txt")).calls);
    // 2,000 requests: a read and a write each, and ten connections opened and closed.
    const perRequest = perUnit({ work, scheduling }, 2000);
    assert.ok(Math.abs(sumCalls(perRequest.work) - 2.064) < 1e-9, String(sumCalls(perRequest.work)));
    assert.equal(perRequest.work.accept4, 10 / 2000);
    const deno = splitScheduling(parsed("deno-2.9.6-hello.txt"));
    for (const name of Object.keys(deno.scheduling)) assert.ok(SCHEDULING_SYSCALLS.has(name));
    assert.ok("futex" in deno.scheduling && !("futex" in deno.work));
  });

  it("keeps the calls on a runtime's cache folder apart, read from every call strace wrote before its summary", () => {
    const text = recorded("deno-2.9.6-hello-traced.txt");
    const dir = "/tmp/runtime-bench-x/deno-dir-2.9.6";
    const { counts, cacheCalls } = parseCounted(text, [dir]);
    assert.equal(sums(counts!).calls, totalLine(text).calls, "the summary, not the calls above it");
    assert.deepEqual(parseCounted(text, []).counts === null, false);
    // Its SQLite databases: opened, locked, read, written and synced.
    assert.deepEqual(
      Object.fromEntries(["openat", "fcntl", "pread64", "pwrite64", "fsync"].map((name) => [name, cacheCalls![name]])),
      { openat: 12, fcntl: 112, pread64: 69, pwrite64: 24, fsync: 5 },
    );
    const split = splitScheduling(counts!, cacheCalls);
    assert.equal(sumCalls(split.work), 620, "the start's own calls");
    assert.equal(sumCalls(split.work) + sumCalls(split.cache!) + sumCalls(split.scheduling), totalLine(text).calls);
    assert.ok(!("futex" in split.cache!), "a wait is scheduling's, whatever it waits on");
    assert.deepEqual(syscallProfile("start", [split]).cache!.fsync, [5]);
    assert.equal(syscallProfile("start", [splitScheduling(counts!)]).cache, undefined, "no folder named, nothing kept apart");
  });

  it("counts a call another thread interrupted once it returned, never one the exit cut short, and a path only where it is the folder's", () => {
    const trace = [
      '101 openat(AT_FDCWD</w>, "/c/db-wal", O_RDWR|O_CREAT <unfinished ...>',
      "102 futex(0x7f, FUTEX_WAKE_PRIVATE, 1) = 1",
      "101 <... openat resumed>) = 7</c/db-wal>",
      '102 openat(AT_FDCWD</c>, "db", O_RDONLY <unfinished ...>',
      "102 <... openat resumed>) = 9</c/db>",
      '101 pwrite64(7</c/db-wal>, "...", 4096, 0) = 4096',
      '101 openat(AT_FDCWD</w>, "/cache/x", O_RDONLY) = 8</cache/x>',
      '101 stat("/c", {st_mode=S_IFDIR|0755, ...}) = 0',
      "101 futex(0x7e, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>",
      "--- SIGCHLD {si_signo=SIGCHLD} ---",
      "103 close(7</c/db-wal> <unfinished ...>",
      "104 close(9</c/db> <unfinished ...>",
      "101 exit_group(0) = ?",
      "103 <... close resumed>) = ?",
    ].join("\n");
    assert.deepEqual(callsOnPaths(trace, ["/c"]), { openat: 2, pwrite64: 1, stat: 1 });
  });

  it("counts the calls that look up a path", () => {
    const node = splitScheduling(parsed("node-22.11.0-hello.txt"));
    const expected = ["openat", "statx", "newfstatat", "readlink", "access", "execve"].reduce((sum, name) => sum + (node.work[name] ?? 0), 0);
    assert.equal(sumCalls(node.work, PATH_SYSCALLS), expected);
  });

  it("keeps each call's figure per counted run, and what one run did beyond another", () => {
    const a = { work: { read: 10, statx: 2 }, scheduling: { futex: 5 } };
    const b = { work: { read: 14, statx: 3, mmap: 1 }, scheduling: { futex: 2 } };
    assert.deepEqual(difference(b, a), { work: { read: 4, statx: 1, mmap: 1 }, scheduling: { futex: -3 } });
    const profile = syscallProfile("file", [perUnit(difference(b, a), 4), perUnit(difference(b, a), 2)]);
    assert.deepEqual(profile, { per: "file", calls: { mmap: [0.25, 0.5], read: [1, 2], statx: [0.25, 0.5] }, scheduling: { futex: [-0.75, -1.5] } });
    assert.deepEqual(syscallProfile("start", [{ work: { read: 1 }, scheduling: {} }, { work: {}, scheduling: {} }]).calls, { read: [1, 0] }, "a run that made no such call counts 0");
    const cached = { ...b, cache: { openat: 6 } };
    assert.deepEqual(perUnit(difference(cached, a), 2).cache, { openat: 3 }, "the calls on a runtime's cache stay apart through both");
  });

  it("counts half the trials, at least one and at most five", () => {
    assert.deepEqual([1, 2, 3, 10, 30].map(countRuns), [1, 1, 2, 5, 5]);
  });
});
