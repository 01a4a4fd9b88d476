import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { describeAssignment, machineAssignment } from "../../src/tools/cpu-split.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";

// Small scenarios (a few iterations, primes below 100,000) so the real apps run in seconds.
const FIXTURE_SUITES = join(REPO_ROOT, "tests/fixtures/suites");
const FIXTURE_APPS = join(REPO_ROOT, "tests/fixtures/apps");

/**
 * Processes that carry this run's mark in their environment (the harness passes its environment
 * on to the runtimes it starts): none may outlive the run. Other runs on the machine are not ours.
 */
function leftovers(mark: string): string[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`WORKERS_TEST_RUN=${mark}`);
      } catch {
        return false;
      }
    });
}

const key = (doc: { app: string | null; runtime: { name: string }; scenario: string; params: Record<string, unknown> }) =>
  `${doc.app} ${doc.runtime.name} ${doc.scenario} ${JSON.stringify(doc.params)}`;

describe("workers suite", () => {
  it("runs every app on node and bun: answers verified, unsupported cells with their reason, no process left", async () => {
    const out = tempDir("workers-run");
    const result = await bench(
      ["run", "--suite", "workers", "--runtime", "node@22.11.0", "--runtime", "bun@1.2.0", "--profile", "quick", "--out", out],
      { RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES, WORKERS_TEST_RUN: out },
    );
    assert.equal(result.code, 0, result.stderr);
    const docs = new Map(readResults([out]).map((r) => [key(r.doc), r.doc]));

    const webOnNode = docs.get('web-worker node round-trip {}')!;
    assert.equal(webOnNode.status, "unsupported");
    assert.match(webOnNode.error!, /Node has no Web Worker API/);
    const ringTransfer = docs.get('shared-memory bun throughput {"payload":"bytes","size":65536,"batch":8,"transfer":true}')!;
    assert.equal(ringTransfer.status, "unsupported");
    assert.match(ringTransfer.error!, /copies every message/);

    const ok = [...docs.values()].filter((doc) => doc.status === "ok");
    // 4 apps on node, 5 on bun; each: round-trip, throughput copied, primes, and throughput transferred for the 2 postMessage apps.
    assert.equal(ok.length, 9 * 3 + 3, [...docs.values()].filter((doc) => doc.status !== "ok" && doc.status !== "unsupported").map((d) => `${key(d)}: ${d.error}`).join("\n"));
    const hardwarePmu = readdirSync("/sys/bus/event_source/devices").some((pmu) => pmu === "cpu" || pmu === "cpu_core" || pmu.startsWith("armv8_pmuv3"));
    for (const doc of ok) {
      assert.equal(doc.verification?.status, "passed", key(doc));
      assert.ok(doc.metrics.cpu_s!.median > 0, `${key(doc)}: the process's CPU time`);
      const role = doc.scenario === "parallel-primes" ? "parallel" : "server";
      assert.deepEqual(doc.details?.cpu_split, describeAssignment(machineAssignment(), [role]), `${key(doc)}: counting primes gets every core, a channel's two threads one CPU`);
      if (hardwarePmu) assert.ok((doc.details?.instructions_trial_1 as number) > 0, key(doc));
      else assert.match(String(doc.details?.instructions), /^unavailable: perf (reports instructions <not supported>|is not installed)/, key(doc));
      assert.equal(doc.environment.machine?.perf_counters.readable, hardwarePmu, "the machine check before the run is in every result");
      for (const [name, metric] of Object.entries(doc.metrics)) assert.ok(metric.median > 0 && Number.isFinite(metric.median), `${key(doc)} ${name}`);
      if (doc.scenario === "round-trip") {
        assert.ok([2, 6].includes(doc.run.trials), `${key(doc)}: node and bun side by side take the two trials a paired verdict needs, though the quick profile has one, and 6 where those left a wide gap undecided; ${doc.run.trials}`);
        const partner = docs.get(key({ ...doc, runtime: { name: doc.runtime.name === "node" ? "bun" : "node" } }));
        if (partner?.status === "ok") assert.equal(doc.sequential?.first_share, 0.8, `${key(doc)}: judged as a one-off question`);
        else assert.equal(doc.sequential, undefined, `${key(doc)}: alone at its point, nothing to judge`);
        assert.equal(doc.metrics.rtt_us!.samples.length, 5 * doc.run.trials, "one median round trip per iteration");
        assert.ok(doc.metrics.rtt_p99_us!.median >= doc.metrics.rtt_us!.median, key(doc));
      }
      if (doc.scenario === "parallel-primes") {
        assert.equal(doc.details?.cpu_count, doc.environment.cpus, "the CPU count sits beside the speed-up");
        assert.ok(Math.abs(doc.metrics.efficiency!.median - doc.metrics.speedup!.median / 2) < 1e-9, "efficiency is the speed-up per worker");
      }
    }
    assert.deepEqual(leftovers(out), [], "no process of the run is left");
    const validation = await bench(["validate", out]);
    assert.equal(validation.code, 0, validation.stderr);
  });

  it("measures only the load points --param names, and refuses one that leaves a scenario no cell before provisioning", async () => {
    const out = tempDir("workers-param");
    const run = (param: string) =>
      bench(["run", "--scenario", "workers/throughput", "--app", "worker-threads", "--param", param, "--runtime", "node@22.11.0", "--profile", "smoke", "--out", out], { RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES, WORKERS_TEST_RUN: out });
    const kept = await run("transfer=true");
    assert.equal(kept.code, 0, kept.stderr);
    assert.deepEqual(
      readResults([out]).map((r) => [r.doc.status, r.doc.params.transfer]),
      [["ok", true]],
      "of the copied and the transferred cell, the transferred one alone",
    );
    const refused = await run("transfer=maybe");
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr.trim().split("\n").at(-1)!, /^runtime-bench: run: --param transfer=maybe leaves workers\/throughput no cell \(its load points: batch=8,payload=bytes,size=65536,transfer=false; batch=8,payload=bytes,size=65536,transfer=true\)$/);
    assert.doesNotMatch(refused.stderr, /from registry/, "refused before any runtime is provisioned");
    assert.equal(readResults([out]).length, 1, "nothing more written");
    assert.deepEqual(leftovers(out), [], "no process of the run is left");
  });

  it("fails an app whose answers are wrong or whose worker outlives its channel, with the reason", async () => {
    const out = tempDir("workers-broken");
// Only the two apps this test checks: the fixtures' hanging app waits out a 60 s trial timeout per
    // scenario, and tests/integration/hung-trial.test.ts already checks that.
    const apps = ["--app", "corrupts-answers", "--app", "leaves-a-thread"];
    const result = await bench(
      ["run", "--suite", "workers", "--scenario", "round-trip", "--scenario", "parallel-primes", ...apps, "--runtime", "node@22.11.0", "--profile", "quick", "--out", out],
      { RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES, RUNTIME_BENCH_APPS_DIR: FIXTURE_APPS, WORKERS_TEST_RUN: out },
    );
    assert.equal(result.code, 1, "a failed result makes the run exit 1");
    const docs = new Map(readResults([out]).map((r) => [`${r.doc.app} ${r.doc.scenario}`, r.doc]));

    const echo = docs.get("corrupts-answers round-trip")!;
    assert.equal(echo.status, "failed");
    assert.match(echo.error!, /echo of bytes: answer 1 of 10 differs from what was expected/);
    assert.deepEqual(echo.metrics, {}, "a wrong answer is never published as a figure");
    const primes = docs.get("corrupts-answers parallel-primes")!;
    assert.equal(primes.status, "failed");
    assert.match(primes.error!, /1 worker\(s\) counted 9593 primes below 100000, expected 9592/);

    const leaky = docs.get("leaves-a-thread round-trip")!;
    assert.equal(leaky.status, "failed");
    assert.match(leaky.error!, /1 thread\(s\) still running 5 s after every worker was closed/);
    assert.deepEqual(leftovers(out), [], "no process of the run is left, though the app left a thread running");
  });
});
