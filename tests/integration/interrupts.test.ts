import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { describe, it } from "node:test";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { bench, runProcess, startBench, tempDir, type RunningBench } from "../../benchmarks/lib/cli.ts";
import { descendantsOf, processesUnder, sharedMemorySegments } from "../helpers/processes.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition` holds, polling; fails if the run ends first. */
async function until(running: RunningBench, condition: () => boolean): Promise<void> {
  let ended = false;
  void running.exited.then(() => (ended = true));
  while (!condition()) {
    if (ended) assert.fail(`the run ended before the moment to interrupt it: ${running.stderr()}`);
    await sleep(5);
  }
}

interface WatchedRun {
  readonly running: RunningBench;
  /** The run's TMPDIR: its work folder goes there. */
  readonly tmp: string;
  /** Shared memory segments before the run started. */
  readonly before: ReadonlyMap<number, number>;
  /** Every process the run started so far (pid → command line): a segment's creator is one of them. */
  processes(): ReadonlyMap<number, string>;
  stopWatching(): void;
}

/** Starts `scripts/bench ARGS` (or a benchmark, which names its own output) with a TMPDIR of its own, watching every process it starts. */
function watchRun(args: readonly string[], env: NodeJS.ProcessEnv = {}, script: "scripts/bench" | "scripts/benchmark" = "scripts/bench"): WatchedRun {
  const tmp = tempDir("interrupt-tmp");
  const before = sharedMemorySegments();
  const running = startBench(script === "scripts/bench" ? [...args, "--out", tempDir("interrupt-out")] : args, { ...env, TMPDIR: tmp }, script);
  const seen = new Map<number, string>();
  const processes = () => {
    // A zombie's command line reads empty: it is gone, and an empty line would match a kernel thread that takes its pid.
    for (const [pid, command] of descendantsOf(running.child.pid!)) if (command !== "") seen.set(pid, command);
    return seen;
  };
  const watcher = setInterval(processes, 20);
  return { running, tmp, before, processes, stopWatching: () => clearInterval(watcher) };
}

/** What of the run is left: its live processes, its work folders, the shared memory its processes created. */
function leftovers(run: WatchedRun) {
  const seen = run.processes();
  return {
    processes: [...seen].filter(([pid, command]) => existsSync(`/proc/${pid}`) && readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ") === command),
    under: processesUnder(run.tmp),
    // (tsx keeps its compile cache in TMPDIR too.)
    workFolders: readdirSync(run.tmp).filter((name) => name.startsWith("runtime-bench-")),
    segments: [...sharedMemorySegments()].filter(([id, creator]) => !run.before.has(id) && seen.has(creator)),
  };
}

/**
 * Runs `scripts/bench ARGS`, interrupts it when `moment` resolves (and again when `again` does, if
 * given), and checks that nothing of the run is left: no process it started, no work folder, no
 * shared memory segment one of its processes created (`ipcs -m` before and after, other users'
 * segments aside).
 */
async function interruptAndCheck(
  args: readonly string[],
  moment: (running: RunningBench, processes: () => ReadonlyMap<number, string>, tmp: string) => Promise<void>,
  { again, env = {}, script }: { again?: (running: RunningBench) => Promise<void>; env?: NodeJS.ProcessEnv; script?: "scripts/bench" | "scripts/benchmark" } = {},
): Promise<RunningBench> {
  const run = watchRun(args, env, script);
  const { running } = run;
  try {
    await moment(running, run.processes, run.tmp);
    running.child.kill("SIGINT");
    if (again) {
      await again(running);
      assert.equal(running.child.exitCode, null, `the run is still cleaning up when the second signal comes: ${running.stderr()}`);
      running.child.kill("SIGINT");
    }
    assert.equal(await running.exited, 130, running.stderr());
  } finally {
    run.stopWatching();
  }
  assert.deepEqual(leftovers(run), { processes: [], under: [], workFolders: [], segments: [] }, "nothing of the run is left");
  return running;
}

const DATABASE = ["run", "--suite", "database", "--scenario", "point-select", "--app", "bun-sql", "--runtime", "bun@1.4.5", "--profile", "quick"];

describe("an interrupt at any moment leaves nothing behind", () => {
  it("database suite: right after PostgreSQL starts (while psql loads the benchmark database)", async () => {
    const running = await interruptAndCheck(DATABASE, (run) => run.waitFor("started for the database suite"));
    assert.doesNotMatch(running.stderr(), /internal error/);
  });

  it("database suite: during initdb, once one of its single-user servers holds shared memory", async () => {
    await interruptAndCheck(DATABASE, (run, processes) =>
      until(run, () => {
        const initdbServers = [...processes()].filter(([, command]) => /postgres --(boot|single|check)/.test(command)).map(([pid]) => pid);
        return [...sharedMemorySegments().values()].some((creator) => initdbServers.includes(creator));
      }),
    );
  });

  it("database suite: during the checks (the app's verification run)", async () => {
    // The first Bun process once the database is loaded is the app's check: its entry path is relative to the app's folder.
    await interruptAndCheck(DATABASE, async (run, processes) => {
      await run.waitFor("started for the database suite");
      await until(run, () => [...processes().values()].some((command) => command.includes("@oven__bun-linux-x64")));
    });
  });

  // The fixture's cleanup takes well under a second here (its work folder holds one small install),
  // so the second Ctrl-C comes as soon as the first has started the cleanup.
  it("install suite: a second Ctrl-C during the cleanup says it is under way, and the cleanup finishes", async () => {
    const env = { RUNTIME_BENCH_SUITES_DIR: join(REPO_ROOT, "tests/fixtures/suites") };
    const setup = await bench(["setup", "--suite", "install", "--runtime", "node@22.11.0"], env);
    assert.equal(setup.code, 0, setup.stderr);
    const args = ["run", "--suite", "install", "--scenario", "tiny", "--app", "npm", "--runtime", "node@22.11.0"];
    const running = await interruptAndCheck(args, (run) => run.waitFor("trial 1/1"), { again: (run) => run.waitFor("interrupted by SIGINT"), env });
    assert.match(running.stderr(), /cleanup under way \(stopping servers, removing work folders\); SIGINT once more to exit at once/);
    assert.doesNotMatch(running.stderr(), /exiting without finishing the cleanup/);
  });

  // The signal reaches the benchmark alone (as from `kill`, or a terminal: the harness runs its children in groups of their own).
  it("a benchmark interrupted while its scripts/bench run measures: the run saves and removes its work folder, and nothing is recorded", async () => {
    const measurements = readFileSync(join(REPO_ROOT, "docs/measurements.json"), "utf8");
    const running = await interruptAndCheck(["counts-noise", "1", "--runtime", "node@22.11.0", "startup"], (run, _processes, tmp) => until(run, () => readdirSync(tmp).some((name) => name.startsWith("runtime-bench-"))), { script: "scripts/benchmark" });
    assert.doesNotMatch(running.stderr(), /exiting without finishing the cleanup/);
    assert.equal(readFileSync(join(REPO_ROOT, "docs/measurements.json"), "utf8"), measurements, "an interrupted benchmark records nothing");
  });

  it("database suite: a third Ctrl-C exits at once and names everything it leaves, and where", async () => {
    const run = watchRun(DATABASE);
    const { running } = run;
    try {
      await running.waitFor("started for the database suite");
      // Signals of one kind do not queue: each waits until the one before has been taken.
      running.child.kill("SIGINT");
      await running.waitFor("interrupted by SIGINT");
      running.child.kill("SIGINT");
      await running.waitFor("cleanup under way");
      running.child.kill("SIGINT");
      assert.equal(await running.exited, 130, running.stderr());
    } finally {
      run.stopWatching();
    }
    const left = leftovers(run);
    try {
      assert.match(running.stderr(), /exiting without finishing the cleanup; left behind:\n/);
      const named = running.stderr().split("left behind:\n")[1]!;
      for (const folder of left.workFolders) assert.ok(named.includes(join(run.tmp, folder)), `${folder} is named: ${named}`);
      if (left.under.length > 0) assert.match(named, /PostgreSQL's data folder \S+\/postgres-1\/data, any process working in it/);
      if (left.under.length > 0) assert.match(named, /PostgreSQL's socket folder \/tmp\/rb-pg-\w+/);
      for (const [id] of left.segments) assert.match(named, /its shared memory \(ipcs -m, key \d+\)/, `segment ${id} is named`);
      assert.deepEqual(left.processes.filter(([pid]) => !left.under.includes(pid)), [], "only processes of the named data folder are left");
    } finally {
      // What the forced exit left is this test's to remove.
      for (const pid of left.under) process.kill(pid, "SIGKILL");
      for (const [id] of left.segments) await runProcess("ipcrm", ["-m", String(id)]);
      rmSync(run.tmp, { recursive: true, force: true });
      for (const [, socketDir] of running.stderr().matchAll(/PostgreSQL's socket folder (\/tmp\/rb-pg-\w+)/g)) rmSync(socketDir!, { recursive: true, force: true });
    }
  });
});
