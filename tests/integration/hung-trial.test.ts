import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";

interface Hung {
  ran_s: number;
  timeout_s: number;
  processes: { command: string; state: string; cpu_s: number; threads: { name: string; state: string; cpu_s: number }[] }[];
}

describe("a trial that hangs", () => {
  it("fails as hung within the timeout computed from its check, with what its process was doing, and the run goes on", async () => {
    const out = tempDir("hung");
    // A floor below the default 60 s: the fixture's trial is caught sooner, by the same rule.
    const floorS = 15;
    const env = {
      RUNTIME_BENCH_SUITES_DIR: join(REPO_ROOT, "tests/fixtures/suites"),
      RUNTIME_BENCH_APPS_DIR: join(REPO_ROOT, "tests/fixtures/apps"),
      RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR: String(floorS),
    };
    const started = performance.now();
    const result = await bench(["run", "--suite", "workers", "--scenario", "parallel-primes", "--app", "hangs", "--runtime", "node@22.11.0", "--profile", "quick", "--out", out], env);
    const tookS = (performance.now() - started) / 1000;
    assert.equal(result.code, 1, `a failed result makes the run exit 1: ${result.stderr}`);
    const [doc, ...others] = readResults([out]).map((r) => r.doc);
    assert.equal(others.length, 0);
    assert.equal(doc!.status, "failed");
    // The check only installs the app: the floor is the timeout.
    assert.match(doc!.error!, new RegExp(`^trial 1: hung: ran \\d+\\.\\d s, past its ${floorS} s timeout \\(the floor: its check took \\d+\\.\\d s\\); .*main\\.js \\(pid \\d+\\) in state S`));
    const hung = doc!.details!.hung as Hung;
    assert.equal(hung.timeout_s, floorS);
    assert.ok(hung.ran_s >= hung.timeout_s && hung.ran_s < hung.timeout_s + 5, `ran ${hung.ran_s} s`);
    assert.ok(tookS < hung.timeout_s + 60, `the whole run took ${tookS} s: the hung trial did not wait for a fixed 10 minutes`);
    // GNU time waits in S; the app under it has a thread that spins.
    const app = hung.processes.find((p) => p.command.includes("main.js") && !p.command.startsWith("time") && p.threads.length > 0)!;
    assert.ok(app, JSON.stringify(hung.processes));
    const busiest = [...app.threads].sort((a, b) => b.cpu_s - a.cpu_s)[0]!;
    assert.ok(busiest.cpu_s > 1, `a spinning worker thread used most of its time: ${JSON.stringify(app.threads)}`);
    assert.equal((await bench(["validate", out], env)).code, 0);
  });
});
