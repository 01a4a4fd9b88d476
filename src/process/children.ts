import { AsyncLocalStorage } from "node:async_hooks";
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/**
 * Every child the harness starts goes through here. Each child leads its own process group, so
 * killing the group also stops what it started (hyperfine's benchmarked commands, a server's
 * workers) and a Ctrl-C on the terminal reaches the harness first, which then stops them all.
 */
const live = new Set<ChildProcess>();
/**
 * Children that are themselves the harness (a benchmark's `scripts/bench run`): an interrupt is passed
 * on to them rather than killing them, since each saves what it measured and removes its own work
 * folder, which a killed one would leave behind.
 */
const harnessChildren = new WeakSet<ChildProcess>();
/** How long an interrupted harness child may take to save and clean up before it is killed. */
const HARNESS_CHILD_GRACE_MS = 30_000;
/** The children started by the work `collectChildren` runs, however deep in its calls. */
const collecting = new AsyncLocalStorage<Set<ChildProcess>>();

export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  live.add(child);
  collecting.getStore()?.add(child);
  const pid = child.pid;
  if (pid !== undefined) tellWatchdog(`group ${pid}`);
  const gone = () => {
    live.delete(child);
    if (pid !== undefined) tellWatchdog(`ungroup ${pid}`);
  };
  child.once("exit", gone);
  child.once("error", gone);
  return child;
}

/**
 * A harness killed outright (SIGKILL, the kernel's OOM killer, a CI runner ending its job) runs no
 * handler, and its children lead process groups of their own, so they would outlive it, servers
 * holding their ports and work folders left in /tmp. The watchdog (watchdog.sh), started beside
 * the first child or folder, is told over a pipe what the harness has under way, and cleans up
 * after a harness whose pipe closed without its exit handlers having run (which kill the watchdog).
 */
const WATCHDOG = fileURLToPath(new URL("watchdog.sh", import.meta.url));
let watchdog: ChildProcess | undefined;

function tellWatchdog(line: string): void {
  if (watchdog === undefined) {
    watchdog = spawn("bash", [WATCHDOG], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    // Neither keeps the harness running: the pipe closes when it exits, which is the watchdog's signal.
    watchdog.unref();
    (watchdog.stdin as Socket).unref();
    // An exit the harness runs its handlers for has cleaned up already, or was asked to leave things
    // (a third Ctrl-C): the watchdog goes with it, at once, rather than outliving it by a moment.
    const own = watchdog;
    process.once("exit", () => own.kill("SIGKILL"));
    // A watchdog that could not start (no bash) or has gone leaves the harness as it was without one.
    watchdog.on("error", () => undefined);
    watchdog.stdin!.on("error", () => undefined);
  }
  watchdog.stdin!.write(`${line}\n`);
}

/** What the watchdog is to remove if the harness dies (`path DIR`, `shm KEY COUNT`), with how many declarations name each. */
const watched = new Map<string, number>();

function watch(item: string): () => void {
  const count = watched.get(item) ?? 0;
  watched.set(item, count + 1);
  if (count === 0) tellWatchdog(item);
  return () => {
    const left = (watched.get(item) ?? 1) - 1;
    if (left > 0) return watched.set(item, left);
    watched.delete(item);
    tellWatchdog(`un${item}`);
  };
}

/** What a declaration leaves that the watchdog can remove: a folder, and System V shared memory of `keys` keys from `firstKey` (PostgreSQL's). */
export interface Leftovers {
  readonly folder?: string;
  readonly sharedMemory?: { readonly firstKey: number; readonly keys: number };
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Asks the group to stop, then kills it if it has not exited within the grace period. */
export async function stopGroup(child: ChildProcess, graceMs = 2000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    killGroup(child); // the leader is gone but its group may not be
    return;
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  killGroup(child, "SIGTERM");
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
  killGroup(child);
}

/** Runs `work`, adding to `into` every child it starts (a trial's processes, for what a hang reports). */
export function collectChildren<T>(into: Set<ChildProcess>, work: () => Promise<T>): Promise<T> {
  return collecting.run(into, work);
}

export function killAllChildren(): void {
  for (const child of live) killGroup(child);
}

/** How long a killed group may take to be gone before an interrupt's save goes on without it. */
const KILLED_GROUP_WAIT_MS = 2000;

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Settles once nothing is left in the child's group (its leader reaped), or after `limitMs`: a
 * killed process still writes until the kernel has taken it down, and a save that removes the
 * folder it wrote in must come after.
 */
async function groupGone(child: ChildProcess, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (child.pid !== undefined && groupAlive(child.pid) && Date.now() < deadline) await sleep(20);
}

/**
 * The first interrupt's stop: every child killed at once but the harness children, which get the
 * signal and are waited for (killed if they outlast the grace period). It settles once the killed
 * groups are gone, so that the save after it removes no folder a child still writes in.
 */
function stopChildren(signal: NodeJS.Signals): Promise<void> {
  const killed: Promise<void>[] = [];
  const saving: Promise<unknown>[] = [];
  for (const child of live) {
    if (!harnessChildren.has(child)) {
      killGroup(child);
      killed.push(groupGone(child, KILLED_GROUP_WAIT_MS));
      continue;
    }
    saving.push(new Promise((resolve) => child.once("exit", resolve)));
    killGroup(child, signal);
  }
  if (saving.length === 0) return Promise.all(killed).then(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise((resolve) => (timer = setTimeout(resolve, HARNESS_CHILD_GRACE_MS)));
  const saved = Promise.race([Promise.all(saving), graceOver]).then(() => {
    clearTimeout(timer);
    killAllChildren();
  });
  return Promise.all([saved, ...killed]).then(() => undefined);
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The spawn itself failed (ENOENT, EACCES). */
  spawnError?: string;
}

export interface CommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Each chunk as it arrives, for a caller that needs to know when a line was printed (a long command's phases). */
  onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /** The command is the harness itself: an interrupt reaches it as a signal, and its cleanup is waited for. */
  harness?: boolean;
}

/** Runs a command to completion, collecting its output; a timeout kills the whole group. */
export function runCommand(command: string, args: readonly string[], options: CommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawnTracked(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (options.harness) harnessChildren.add(child);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      options.onOutput?.("stdout", chunk);
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      options.onOutput?.("stderr", chunk);
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killGroup(child);
          }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr, timedOut, spawnError: error.message });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      killGroup(child); // stragglers the command left behind
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** The last lines of a process's output, for an error message or a result's `error` field. */
export function tail(text: string, lines = 20): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

let interruptHandler: (() => Promise<void>) | undefined;
let interrupts = 0;
let interruptExit = 130;
let cleanup: Promise<void> = Promise.resolve();
let cleaned = false;
let installed = false;

/** How long a command may take, after its interrupt handler has saved, to report and exit by itself. */
const REPORT_GRACE_MS = 3000;

/** What a forced exit would leave behind, as one line each (a work folder, a server's data and shared memory). */
const uncleaned = new Map<symbol, string>();

/**
 * Declares something the harness must remove before it exits (`what` says what and where, for a
 * forced exit to report); the returned function says it is gone. What `leftovers` names, the
 * watchdog removes if the harness is killed before it has.
 */
export function leavesUntilCleaned(what: string, leftovers: Leftovers = {}): () => void {
  const key = Symbol(what);
  uncleaned.set(key, what);
  const unwatch = [
    ...(leftovers.folder === undefined ? [] : [watch(`path ${leftovers.folder}`)]),
    ...(leftovers.sharedMemory === undefined ? [] : [watch(`shm ${leftovers.sharedMemory.firstKey} ${leftovers.sharedMemory.keys}`)]),
  ];
  return () => {
    if (uncleaned.delete(key)) unwatch.forEach((release) => release());
  };
}

/** Cleanups under way (a server stopping), which removing the folder they work in must wait for. */
const cleanups = new Set<Promise<unknown>>();

/**
 * Registers a cleanup under way: a server may be stopped by whoever sees it fail first (a check, or
 * an interrupt's session close), and its folder must not go before it has stopped.
 */
export function cleaningUp<T>(work: Promise<T>): Promise<T> {
  cleanups.add(work);
  const done = () => cleanups.delete(work);
  work.then(done, done);
  return work;
}

/** Settles once every registered cleanup has, including those registered meanwhile. */
export async function cleanupsSettled(): Promise<void> {
  while (cleanups.size > 0) await Promise.allSettled([...cleanups]);
}

/** Whether this process stops on an interrupt as the harness does (installInterruptHandling), rather than at once. */
export function handlesInterrupts(): boolean {
  return installed;
}

export function isInterrupted(): boolean {
  return interrupts > 0;
}

/** The exit status an interrupted command ends with: 130 after SIGINT, 143 after SIGTERM. */
export function interruptExitCode(): number {
  return interruptExit;
}

/**
 * Settles once the interrupt's cleanup has (at once when there was no interrupt). Every way out of
 * a command waits for it: a failure the interrupt itself caused (a killed psql) must not exit
 * before the servers it stops and the folders it removes are gone.
 */
export function interruptCleanup(): Promise<void> {
  return cleanup;
}

/**
 * On SIGINT/SIGTERM: stop every child (a harness child gets the signal, and its own save and cleanup
 * are waited for), let the current command save what it has measured and clean
 * up, then let it report what was written and exit (or exit for it, if it has not within a grace
 * period: a server waiting for Ctrl-C never returns). A second signal only says that cleanup is
 * under way; a third exits at once and names what it leaves. On any exit, children are killed
 * synchronously so none outlives the harness.
 */
export function installInterruptHandling(onInterrupt?: () => Promise<void>): void {
  // A benchmark installs its own handler where scripts/benchmark has installed the handling already.
  if (installed) {
    setInterruptHandler(onInterrupt);
    return;
  }
  interruptHandler = onInterrupt;
  installed = true;
  const handle = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts === 2 && !cleaned) {
      process.stderr.write(`runtime-bench: cleanup under way (stopping servers, removing work folders); ${signal} once more to exit at once and leave it unfinished\n`);
      return;
    }
    if (interrupts > 1) {
      // After the cleanup only the report is left to print: nothing is left behind.
      killAllChildren();
      const left = [...uncleaned.values()];
      if (!cleaned) process.stderr.write(`runtime-bench: exiting without finishing the cleanup; left behind:\n${left.length ? left.map((what) => `  ${what}\n`).join("") : "  nothing the harness knows of\n"}`);
      process.exit(interruptExit);
    }
    const stopped = stopChildren(signal);
    const saving = interruptHandler ? "; saving what was measured" : "";
    process.stderr.write(`\nruntime-bench: interrupted by ${signal}${saving}\n`);
    interruptExit = signal === "SIGINT" ? 130 : 143;
    // The handler of this moment: one set later is called by setInterruptHandler, so none is called twice.
    const handler = interruptHandler;
    cleanUpAfter(stopped.then(() => handler?.()));
  };
  process.on("SIGINT", handle);
  process.on("SIGTERM", handle);
  process.once("exit", killAllChildren);
}

/**
 * The interrupt's cleanup: `work` (the handler's save), then every child that started meanwhile (a
 * check that was starting a server) killed; the process exits a grace period after the last cleanup.
 */
function cleanUpAfter(work: Promise<unknown>): void {
  cleaned = false;
  const current = work
    .then(
      () => undefined,
      (error: unknown) => {
        process.stderr.write(`runtime-bench: while saving: ${String(error)}\n`);
      },
    )
    .finally(() => {
      killAllChildren();
      cleaned = true;
    });
  cleanup = current;
  void current.finally(() => {
    if (cleanup === current) setTimeout(() => process.exit(interruptExit), REPORT_GRACE_MS);
  });
}

/**
 * The handler an interrupt calls from now on. Set after an interrupt (the command was making the
 * work folder its handler removes when the signal came), it is called at once and the exit waits for
 * it: an interrupt between making a folder and setting its handler leaves nothing behind.
 */
export function setInterruptHandler(onInterrupt: (() => Promise<void>) | undefined): void {
  interruptHandler = onInterrupt;
  if (isInterrupted() && onInterrupt !== undefined) cleanUpAfter(Promise.all([cleanup, onInterrupt()]));
}
