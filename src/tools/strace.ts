import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { once } from "../core/once.ts";
import { runCommand, spawnTracked, tail, type CommandOptions, type CommandResult } from "../process/children.ts";
import { withScratchFolder } from "../process/scratch.ts";
import type { IdentifiedRuntime } from "../runtimes/identify.ts";
import { toolVersion } from "./locate.ts";

/**
 * Counting a program's system calls with strace (`strace -f -c`): the kernel's own count of every
 * call each thread made, exact whatever the machine's load. strace stops the program at every call,
 * so a counted run is slow and is never a timed one: suites count in their counting pass
 * (src/suites/suite.ts, `count`), apart from their trials.
 */
export function straceVersion(): Promise<string> {
  return toolVersion("strace", ["-V"], "Debian package 'strace'; scripts/bench installs it");
}

export const STRACE_TOOL = { name: "strace", version: straceVersion } as const;

/**
 * How many counted runs a subject's counting pass makes: half its profile's trials (rounded up),
 * at most 5. Each is one trial of the counts in a paired comparison (trial k of one subject against
 * trial k of the other): a count moves far less than a time, so fewer runs decide it, and five runs
 * of a count that does not move decide it at the paired rule's strictest look. Half keeps the
 * default run's counting within its budget (docs/methodology.md, "Counts").
 */
const MAX_COUNT_RUNS = 5;
export const countRuns = (trials: number): number => Math.min(Math.max(1, Math.ceil(trials / 2)), MAX_COUNT_RUNS);

/** One system call's line of strace's summary: how often it was called, and how often it failed. */
export interface SyscallTally {
  readonly calls: number;
  readonly errors: number;
}

/** A summary by system call name. */
export type SyscallCounts = Readonly<Record<string, SyscallTally>>;

/**
 * Calls whose number says how often a thread waited, woke another or yielded, which the scheduler
 * decides, not the program: two runs of one binary differ in them by 10–50 % (futex 77–92 per start
 * of node 26, 22–46 of deno 2.9; epoll waits 56–268 per 500 requests of one server). They are kept
 * apart from the total that verdicts use; docs/methodology.md ("Counts") gives the traces behind
 * the list. `restart_syscall` resumes such a wait after a signal.
 */
export const SCHEDULING_SYSCALLS: ReadonlySet<string> = new Set([
  "futex",
  "futex_waitv",
  "epoll_wait",
  "epoll_pwait",
  "epoll_pwait2",
  "poll",
  "ppoll",
  "select",
  "pselect6",
  "sched_yield",
  "nanosleep",
  "clock_nanosleep",
  "restart_syscall",
]);

/**
 * Calls that look up a path (strace's %file class, and the stat family): what resolving modules
 * and reading files costs the file system, apart from the bytes moved. One `fs.statSync` more per
 * start is one of about 45 such calls of node's start, and one of 700 calls in all.
 */
export const PATH_SYSCALLS: ReadonlySet<string> = new Set([
  "open",
  "openat",
  "openat2",
  "creat",
  "stat",
  "lstat",
  "newfstatat",
  "statx",
  "statfs",
  "access",
  "faccessat",
  "faccessat2",
  "readlink",
  "readlinkat",
  "execve",
  "execveat",
  "mkdir",
  "mkdirat",
  "rmdir",
  "unlink",
  "unlinkat",
  "rename",
  "renameat",
  "renameat2",
  "link",
  "linkat",
  "symlink",
  "symlinkat",
  "chmod",
  "fchmodat",
  "chown",
  "lchown",
  "fchownat",
  "utimensat",
  "truncate",
  "chdir",
  "getxattr",
  "lgetxattr",
  "listxattr",
  "llistxattr",
  "inotify_add_watch",
]);

/**
 * Parses the summary `strace -c` writes (one table per personality, usually one): a header naming
 * its columns (`% time  seconds  usecs/call  calls  errors  syscall` by default, or those `-U`
 * chose, in its order), a rule, one line per system call, a rule, and a `total` line. A call that
 * never failed leaves its `errors` cell blank; a table without an `errors` column has no failures
 * to report. Returns null where there is no table.
 */
export function parseStraceSummary(text: string): SyscallCounts | null {
  const counts: Record<string, SyscallTally> = {};
  let columns: string[] | null = null;
  for (const line of text.split("\n")) {
    if (/\bcalls\b/.test(line) && /\bsyscall\b/.test(line)) {
      // "% time" is one column written as two words.
      columns = line.trim().replace(/^%\s+time/, "%time").split(/\s+/);
      continue;
    }
    if (columns === null || line.trim() === "" || /^[\s-]+$/.test(line)) continue;
    const cells = line.trim().split(/\s+/);
    // Only the errors cell can be blank: a row one cell short has no failures.
    const named = cells.length === columns.length ? columns : columns.filter((column) => column !== "errors");
    if (named.length !== cells.length) continue;
    const cell = (column: string) => cells[named.indexOf(column)];
    const name = cell("syscall")!;
    const calls = Number(cell("calls"));
    if (name === "total" || !/^[a-z_0-9]+$/.test(name) || !Number.isInteger(calls)) continue;
    const errors = named.includes("errors") ? Number(cell("errors")) : 0;
    const previous = counts[name] ?? { calls: 0, errors: 0 };
    counts[name] = { calls: previous.calls + calls, errors: previous.errors + errors };
  }
  return columns === null ? null : counts;
}

/** Calls by name, split into the program's work and the calls that scheduling decides. */
export interface SplitCounts {
  readonly work: Readonly<Record<string, number>>;
  readonly scheduling: Readonly<Record<string, number>>;
  /** Calls on the runtime's own cache files, where the caller named them (`runCounted`'s `cacheDirs`), taken out of `work`. */
  readonly cache?: Readonly<Record<string, number>>;
}

export function splitScheduling(counts: SyscallCounts, cacheCalls?: Readonly<Record<string, number>>): SplitCounts {
  const work: Record<string, number> = {};
  const scheduling: Record<string, number> = {};
  for (const [name, { calls }] of Object.entries(counts)) {
    if (SCHEDULING_SYSCALLS.has(name)) scheduling[name] = calls;
    else work[name] = calls - (cacheCalls?.[name] ?? 0);
  }
  return cacheCalls === undefined ? { work, scheduling } : { work, scheduling, cache: cacheCalls };
}

export const sumCalls = (calls: Readonly<Record<string, number>>, only?: ReadonlySet<string>): number =>
  Object.entries(calls).reduce((sum, [name, n]) => sum + (only === undefined || only.has(name) ? n : 0), 0);

/** Counts per unit of work (a start, a request, a file read): each divided by `units`. */
export function perUnit(split: SplitCounts, units: number): SplitCounts {
  const divide = (calls: Readonly<Record<string, number>>) => Object.fromEntries(Object.entries(calls).map(([name, n]) => [name, n / units]));
  const divided = { work: divide(split.work), scheduling: divide(split.scheduling) };
  return split.cache === undefined ? divided : { ...divided, cache: divide(split.cache) };
}

/** Two counts' difference, call by call: what the second run did beyond the first. */
export function difference(more: SplitCounts, less: SplitCounts): SplitCounts {
  const minus = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) =>
    Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((name) => [name, (a[name] ?? 0) - (b[name] ?? 0)]));
  const both = { work: minus(more.work, less.work), scheduling: minus(more.scheduling, less.scheduling) };
  return more.cache === undefined && less.cache === undefined ? both : { ...both, cache: minus(more.cache ?? {}, less.cache ?? {}) };
}

/**
 * What a result keeps of its counted runs' calls (`details.syscall_counts`), from which
 * src/compare/syscall-diff.ts explains a change: each call's count per unit in every counted run.
 */
export interface SyscallProfile {
  /** The unit every figure is per: `start`, `request`, `file`. */
  readonly per: string;
  /** The program's work, by call: one figure per counted run (0 where a run made none). */
  readonly calls: Readonly<Record<string, readonly number[]>>;
  /** The calls scheduling decides (SCHEDULING_SYSCALLS), kept apart, the same way. */
  readonly scheduling: Readonly<Record<string, readonly number[]>>;
  /** The calls on the runtime's own cache files, kept apart, the same way (where they were counted: SplitCounts' `cache`). */
  readonly cache?: Readonly<Record<string, readonly number[]>>;
}

/** Four decimals: a call in 10,000 units; more digits would be the division's, not the count's. */
const rounded = (value: number) => Math.round(value * 1e4) / 1e4;

/** Counted runs (already per unit) as a result keeps them, by call, in run order. */
export function syscallProfile(per: string, runs: readonly SplitCounts[]): SyscallProfile {
  const byCall = (pick: (run: SplitCounts) => Readonly<Record<string, number>>) => {
    const names = [...new Set(runs.flatMap((run) => Object.keys(pick(run))))].sort();
    return Object.fromEntries(names.map((name) => [name, runs.map((run) => rounded(pick(run)[name] ?? 0))]).filter(([, values]) => (values as number[]).some((v) => v !== 0)));
  };
  const profile = { per, calls: byCall((run) => run.work), scheduling: byCall((run) => run.scheduling) };
  return runs.some((run) => run.cache !== undefined) ? { ...profile, cache: byCall((run) => run.cache ?? {}) } : profile;
}

/** Threads and processes a program started, its first one included: each clone, clone3, fork or vfork that succeeded. */
export function tasksStarted(counts: SyscallCounts): number {
  return 1 + ["clone", "clone3", "fork", "vfork"].reduce((sum, name) => sum + (counts[name] ? counts[name].calls - counts[name].errors : 0), 0);
}

/** Why the kernel's counts of a runtime's processes would not be its own (an emulator runs it), or null. */
export function emulatedCounts(runtime: IdentifiedRuntime): string | null {
  return runtime.emulation ? `runs under ${runtime.emulation.emulator}: its counts would be the emulator's, not the runtime's` : null;
}

/** Why strace cannot count here, where it cannot. */
export type StraceReadiness = { readonly ok: true } | { readonly ok: false; readonly unavailable: string };

async function probe(): Promise<StraceReadiness> {
  return withScratchFolder("strace", async (dir) => {
    const output = join(dir, "summary");
    const result = await runCommand("strace", ["-f", "-c", "-o", output, "--", "true"], { timeoutMs: 30_000 });
    if (result.spawnError !== undefined) return { ok: false, unavailable: "strace is not installed (Debian package strace; scripts/bench installs it)" };
    const counts = parseStraceSummary(await readFile(output, "utf8").catch(() => ""));
    if (result.code !== 0 || counts === null) return { ok: false, unavailable: `strace cannot trace here: ${tail(result.stderr, 2) || `exit code ${result.code}`}` };
    return { ok: true };
  });
}

const probes = new Map<string, Promise<StraceReadiness>>();

/** Whether strace can trace a program on this machine (asked once per process). */
export function straceReadiness(): Promise<StraceReadiness> {
  return once(probes, "strace", probe);
}

/** The argv prefix that runs a command under `strace -f -c` (every thread and child process), its summary written to `output`. */
export const straceArgv = (output: string): string[] => ["strace", "-f", "-c", "-o", output, "--"];

/**
 * The same, with every call also written before the summary (`-C`), each descriptor followed by
 * the path it refers to (`-y`), and no attach or exit messages (`-qq`): what `callsOnPaths` reads.
 */
const tracingArgv = (output: string): string[] => ["strace", "-f", "-C", "-y", "-qq", "-o", output, "--"];

/** Where the summary begins in a file `tracingArgv` wrote: its header, the last line naming `calls` and `syscall` (a call's arguments may name them too, but no call follows the summary). */
function summaryStart(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (/\bcalls\b/.test(lines[i]!) && /\bsyscall\b/.test(lines[i]!)) return i;
  return lines.length;
}

/**
 * Calls by name whose arguments or result name a path under one of `dirs`, as a path
 * (`"/dir/file"`) or as a descriptor's decoded path (`3</dir/file>`), in the calls `strace -f -y`
 * wrote, one per line (`PID name(args) = result`). A call another thread interrupted is written
 * twice, `PID name(args <unfinished ...>` then `PID <... name resumed>rest`, and counted once it
 * resumed: one still unfinished when the process exited never returned (`= ?`, or no second line
 * at all), and the summary leaves it out too (deno's last threads, in the middle of a `close`).
 */
export function callsOnPaths(trace: string, dirs: readonly string[]): Record<string, number> {
  const calls: Record<string, number> = {};
  const marks = dirs.flatMap((dir) => [`"${dir}/`, `"${dir}"`, `<${dir}/`, `<${dir}>`]);
  const named = (text: string) => marks.some((mark) => text.includes(mark));
  const returned = (text: string) => !/=\s*\?\s*$/.test(text);
  const unfinished = new Map<string, { name: string; named: boolean }>();
  const count = (name: string) => {
    if (!SCHEDULING_SYSCALLS.has(name)) calls[name] = (calls[name] ?? 0) + 1;
  };
  for (const line of trace.split("\n")) {
    const resumed = /^(\d+\s+)?<\.\.\. ([a-z_0-9]+) resumed>(.*)$/.exec(line);
    if (resumed !== null) {
      const begun = unfinished.get(resumed[1] ?? "");
      unfinished.delete(resumed[1] ?? "");
      if (begun !== undefined && begun.name === resumed[2] && returned(resumed[3]!) && (begun.named || named(resumed[3]!))) count(begun.name);
      continue;
    }
    const call = /^(\d+\s+)?([a-z_0-9]+)\((.*)$/.exec(line);
    if (call === null) continue;
    if (call[3]!.endsWith("<unfinished ...>")) unfinished.set(call[1] ?? "", { name: call[2]!, named: named(call[3]!) });
    else if (returned(call[3]!) && named(call[3]!)) count(call[2]!);
  }
  return calls;
}

/** What `runCounted` reads of strace's file: the summary's counts, and with `cacheDirs` the calls on them (its lines before the summary). */
export function parseCounted(text: string, cacheDirs: readonly string[]): { counts: SyscallCounts | null; cacheCalls?: Record<string, number> } {
  if (cacheDirs.length === 0) return { counts: parseStraceSummary(text) };
  const lines = text.split("\n");
  const start = summaryStart(lines);
  return { counts: parseStraceSummary(lines.slice(start).join("\n")), cacheCalls: callsOnPaths(lines.slice(0, start).join("\n"), cacheDirs) };
}

/** A program's run under strace: its own result, and its counts, or why there are none; `cacheCalls` where `cacheDirs` were given. */
export type CountedRun = { readonly result: CommandResult } & (
  | { readonly counts: SyscallCounts; readonly cacheCalls?: Record<string, number> }
  | { readonly counts: null; readonly unavailable: string }
);

/**
 * Runs `argv` to its end under `strace -f -c` (every thread and child process counted), its
 * summary written to a file of `scratchDir`, never mixed with the program's own output. With
 * `cacheDirs`, every call is written too, and those on a file under one of them are counted apart
 * (`cacheCalls`): a runtime's own caches, whose writes move with timing (docs/methodology.md, "Counts").
 * `under` is what runs strace itself (`setarch -R`: src/tools/fixed-layout.ts).
 */
export async function runCounted(argv: readonly string[], options: CommandOptions, scratchDir: string, cacheDirs: readonly string[] = [], under: readonly string[] = []): Promise<CountedRun> {
  const ready = await straceReadiness();
  const dir = await mkdtemp(join(scratchDir, ".strace-"));
  try {
    const output = join(dir, "summary");
    const tracer = cacheDirs.length > 0 ? tracingArgv(output) : straceArgv(output);
    // Where strace cannot trace, the program still runs, so what the caller checks of it holds.
    const [command, ...args] = ready.ok ? [...under, ...tracer, ...argv] : [...under, ...argv];
    const result = await runCommand(command!, args, options);
    if (!ready.ok) return { result, counts: null, unavailable: ready.unavailable };
    const { counts, cacheCalls } = parseCounted(await readFile(output, "utf8").catch(() => ""), cacheDirs);
    if (counts === null) return { result, counts, unavailable: `strace wrote no summary: ${tail(result.stderr, 2) || `exit code ${result.code}`}` };
    return cacheCalls === undefined ? { result, counts } : { result, counts, cacheCalls };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** strace attached to a running process: `detach` ends the count and returns it. */
export interface AttachedCounter {
  detach(): Promise<SyscallCounts>;
}

/** strace could not attach, or wrote no summary: the reason, for a count recorded as unavailable. */
export class StraceUnavailable extends Error {
  override readonly name = "StraceUnavailable";
}

const ATTACH_TIMEOUT_MS = 10_000;

/** Resolves once strace says it attached to each of `processes`; rejects with what it said when it exits first or takes too long. */
function attached(child: ChildProcess, processes: number, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new StraceUnavailable(`strace did not attach within ${ATTACH_TIMEOUT_MS / 1000} s`)), ATTACH_TIMEOUT_MS);
    const onData = () => {
      if ((stderr().match(/Process \d+ attached/g) ?? []).length < processes) return;
      clearTimeout(timer);
      child.stderr?.off("data", onData);
      resolve();
    };
    child.stderr?.on("data", onData);
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new StraceUnavailable(`strace could not attach: ${tail(stderr(), 2) || "it exited"}`));
    });
  });
}

/**
 * Attaches `strace -f -c` to running processes and every one of their threads (and the threads and
 * children it starts meanwhile). Attaching needs the right to trace a process that is not strace's
 * own child: where the kernel's Yama setting `ptrace_scope` is 1 or more and the harness is not
 * root, it fails, and the reason says so.
 */
export async function attachCounter(pids: readonly number[], scratchDir: string): Promise<AttachedCounter> {
  const ready = await straceReadiness();
  if (!ready.ok) throw new StraceUnavailable(ready.unavailable);
  const dir = await mkdtemp(join(scratchDir, ".strace-"));
  const output = join(dir, "summary");
  let stderr = "";
  const child = spawnTracked("strace", ["-f", "-c", "-o", output, ...pids.flatMap((pid) => ["-p", String(pid)])], { stdio: ["ignore", "ignore", "pipe"] });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await attached(child, pids.length, () => stderr);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    await rm(dir, { recursive: true, force: true });
    const scope = await ptraceScope();
    // Yama's 1 lets a process trace only its descendants, and the server is the harness's child, not strace's.
    const why = scope !== null && scope >= 1 ? `; kernel.yama.ptrace_scope is ${scope}, which lets strace trace only its own children unless it runs as root` : "";
    throw error instanceof StraceUnavailable ? new StraceUnavailable(`${error.message}${why}`) : error;
  }
  return {
    async detach() {
      try {
        // SIGINT makes strace detach from every thread and write its summary.
        child.kill("SIGINT");
        await exited;
        const counts = parseStraceSummary(await readFile(output, "utf8").catch(() => ""));
        if (counts === null) throw new StraceUnavailable(`strace wrote no summary: ${tail(stderr, 2) || "no message"}`);
        return counts;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The kernel's Yama `ptrace_scope` (null where there is no Yama), for a reason that names it. */
async function ptraceScope(): Promise<number | null> {
  const text = await readFile("/proc/sys/kernel/yama/ptrace_scope", "utf8").catch(() => null);
  return text === null ? null : Number(text.trim());
}
