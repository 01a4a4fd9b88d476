import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { handlesInterrupts, isInterrupted, runCommand, spawnTracked, type CommandOptions } from "../../src/process/children.ts";

export interface BenchOutput {
  code: number | null;
  /** The signal that ended it, if one did. */
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, collecting what it prints; like every child, it leads a process group of its own (children.ts). */
export async function runProcess(command: string, args: readonly string[], options: Pick<CommandOptions, "cwd" | "env" | "harness"> = {}): Promise<BenchOutput> {
  const run = await runCommand(command, args, options);
  if (run.spawnError !== undefined) throw new Error(`${command}: ${run.spawnError}`);
  return run;
}

/** Thrown where a benchmark would go on after an interrupt: nothing half-measured is judged or recorded. */
class Interrupted extends Error {}

/**
 * Runs `scripts/bench ARGS` as a user would, with extra environment variables. An interrupt of the
 * benchmark reaches the command, which saves and cleans up as it does for a Ctrl-C of its own; the
 * benchmark stops there.
 */
export async function bench(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<BenchOutput> {
  const run = await runProcess(join(REPO_ROOT, "scripts/bench"), args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, harness: true });
  if (isInterrupted()) throw new Interrupted();
  return run;
}

export interface RunningBench {
  readonly child: ChildProcess;
  /** Resolves once stderr contains `text`. */
  waitFor(text: string): Promise<void>;
  /** Resolves with the exit code; `stdout` and `stderr` are everything printed so far. */
  readonly exited: Promise<number | null>;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

/** Starts `scripts/bench ARGS` (or `scripts/benchmark ARGS`) in the background, for tests that interrupt it. */
export function startBench(args: readonly string[], env: NodeJS.ProcessEnv = {}, script: "scripts/bench" | "scripts/benchmark" = "scripts/bench"): RunningBench {
  const child = spawnTracked(join(REPO_ROOT, script), args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const waiter of waiters.filter((w) => stderr.includes(w.text))) waiter.resolve();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: (text) => (stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve }))),
  };
}

const tempDirs: string[] = [];
// Each test file and benchmark runs in a process of its own: its folders go when it exits, whatever
// it left in them. A Ctrl-C or a SIGTERM would end a test file without "exit": they exit through it.
// A benchmark's interrupt handling exits by itself, once its scripts/bench commands have cleaned up.
process.once("exit", () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) process.once(signal, () => handlesInterrupts() || process.exit(code));

/** A new folder under the system's temporary folder, removed when the test or benchmark process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `rb-test-${prefix}-`));
  tempDirs.push(dir);
  return dir;
}

/**
 * CPU seconds of the children this process has waited for, and theirs (Linux: cutime + cstime of
 * /proc/self/stat): what a command costs on a machine others share, where its wall time says how busy it was.
 */
export function childrenCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** The runtime versions the integration tests pin, as in the issues' examples. */
export const PINNED = ["node@22.11.0", "bun@1.2.0", "deno@2.1.4"] as const;
