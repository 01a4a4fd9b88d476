import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { bench, startBench, tempDir, type RunningBench } from "../../benchmarks/lib/cli.ts";
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

/**
 * Runs `scripts/bench ARGS` with a work folder under a temporary folder of its own, interrupts it
 * when `moment` resolves (and again when `again` does, if given), and checks that nothing of the
 * run is left: no process it started, no work folder, no shared memory segment one of its
 * processes created (`ipcs -m` before and after, other users' segments aside).
 */
async function interruptAndCheck(
  args: readonly string[],
  moment: (running: RunningBench, processes: () => ReadonlyMap<number, string>) => Promise<void>,
  { again, env = {} }: { again?: (running: RunningBench) => Promise<void>; env?: NodeJS.ProcessEnv } = {},
): Promise<RunningBench> {
  const tmp = tempDir("interrupt-tmp");
  const before = sharedMemorySegments();
  const running = startBench([...args, "--out", tempDir("interrupt-out")], { ...env, TMPDIR: tmp });
  // Every process the run started, as it goes: a segment's creator is one of them.
  const seen = new Map<number, string>();
  const watch = () => {
    // A zombie's command line reads empty: it is gone, and an empty line would match a kernel thread that takes its pid.
    for (const [pid, command] of descendantsOf(running.child.pid!)) if (command !== "") seen.set(pid, command);
    return seen;
  };
  const watcher = setInterval(watch, 20);
  try {
    await moment(running, watch);
    running.child.kill("SIGINT");
    if (again) {
      await again(running);
      assert.equal(running.child.exitCode, null, `the run is still cleaning up when the second signal comes: ${running.stderr()}`);
      running.child.kill("SIGINT");
    }
    assert.equal(await running.exited, 130, running.stderr());
  } finally {
    clearInterval(watcher);
  }
  const alive = [...seen].filter(([pid, command]) => existsSync(`/proc/${pid}`) && readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ") === command);
  assert.deepEqual(alive, [], "no process of the run outlives it");
  assert.deepEqual(processesUnder(tmp), []);
  // (tsx keeps its compile cache there too.)
  assert.deepEqual(readdirSync(tmp).filter((name) => name.startsWith("runtime-bench-")), [], "the work folder is gone");
  const leaked = [...sharedMemorySegments()].filter(([id, creator]) => !before.has(id) && seen.has(creator));
  assert.deepEqual(leaked, [], "no shared memory segment of the run is left");
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
});
