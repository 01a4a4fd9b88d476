import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";
import { PINNED, bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";

const FIXTURE_SUITES = join(REPO_ROOT, "tests/fixtures/suites");

describe("startup suite on real runtimes", () => {
  it("measures every scenario on node, bun and deno, interleaved, with valid results", async () => {
    // Each scenario's quick profile: the suite's, with the manifest's overrides (read-text runs fewer starts per trial).
    const profiles = new Map(resolveScenarios(selectScenarios({ suites: ["startup"], scenarios: [] }), "quick").map((s) => [s.scenario.name, s.scenario.profileParams]));
    const out = tempDir("startup");
    const runtimes = PINNED.flatMap((spec) => ["--runtime", spec]);
    const result = await bench(["run", "--suite", "startup", ...runtimes, "--profile", "quick", "--out", out]);
    assert.equal(result.code, 0, result.stderr);
    const docs = readResults([out]).map((r) => r.doc);
    assert.ok(profiles.size >= 5, `${profiles.size} startup scenarios`);
    assert.equal(docs.length, 3 * profiles.size, `3 runtimes × ${profiles.size} scenarios`);
    for (const doc of docs) {
      const where = `${doc.scenario} on ${doc.runtime.name}`;
      assert.equal(doc.status, "ok", `${where}: ${doc.error}`);
      assert.equal(doc.run.runner_kind, "local");
      assert.match(doc.run.runner, /^local-/);
      const { trials, runs } = profiles.get(doc.scenario)! as { trials: number; runs: number };
      assert.equal(doc.metrics.wall_ms!.samples.length, trials * runs, `${where}: ${trials} trials × ${runs} runs`);
      assert.ok(doc.metrics.wall_ms!.median > 1 && doc.metrics.wall_ms!.median < 5000, `${where}: plausible wall time`);
      assert.ok(doc.metrics.peak_rss_mb!.median > 5, `${where}: plausible peak RSS`);
      assert.equal(doc.metrics.cpu_s!.samples.length, trials, `${where}: one CPU time per trial`);
      assert.ok(doc.metrics.cpu_s!.median > 0, `${where}: CPU time`);
      if (doc.environment.machine!.perf_counters.readable) assert.equal((doc.details?.instructions_trial_1 as number[]).length, 3, where);
      else assert.match(String(doc.details?.instructions), /^unavailable: /, `${where}: instructions never a number where they cannot be counted`);
      const [lo, hi] = doc.metrics.wall_ms!.ci95;
      assert.ok(lo <= doc.metrics.wall_ms!.median && doc.metrics.wall_ms!.median <= hi);
      assert.match(doc.runtime.sha256, /^[0-9a-f]{64}$/);
      assert.match(doc.tools.hyperfine!, /^\d+\.\d+/);
    }
    const byName = new Map(docs.map((d) => [d.runtime.name, d.runtime]));
    assert.equal(byName.get("node")?.version, "22.11.0");
    assert.match(byName.get("node")!.engine, /^V8 12\./);
    assert.equal(byName.get("bun")?.version, "1.2.0");
    assert.match(byName.get("bun")!.engine, /^JavaScriptCore /);
    assert.equal(byName.get("deno")?.version, "2.1.4");
    assert.match(result.stdout, /^scenario\s+headline\s+node@22\.11\.0\s+bun@1\.2\.0\s+deno@2\.1\.4\s+vs best/m, "the runtimes side by side");
    assert.match(result.stdout, /^startup\/hello\s+wall_ms \(lower\)\s+\S+ ms\s+\S+ ms\s+\S+ ms\s+\w+ best; /m, "one line per scenario");
    assert.match(result.stdout, /^time per suite: startup /m);
    const validation = await bench(["validate", out]);
    assert.equal(validation.code, 0, validation.stderr);
    assert.match(validation.stdout, new RegExp(`${docs.length} result files checked, 0 problems`));
  });
});

describe("failures, unsupported versions and interrupts", () => {
  const env = { RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES };

  it("records a crash and a wrong output as failed with the reason, an unmet minimum as unsupported, and goes on", async () => {
    const out = tempDir("failing");
    const result = await bench(["run", "--runtime", "node@22.11.0", "--out", out, "--scenario", "crash", "--scenario", "wrong-output", "--scenario", "future-only"], env);
    assert.equal(result.code, 1, "a failed result makes the run exit 1");
    const docs = new Map(readResults([out]).map((r) => [r.doc.scenario, r.doc]));
    assert.equal(docs.get("crash")?.status, "failed");
    assert.match(docs.get("crash")!.error!, /exit code 3: fixture crashed on purpose/);
    assert.equal(docs.get("wrong-output")?.status, "failed");
    assert.match(docs.get("wrong-output")!.error!, /printed "not ready", expected "ready"/);
    assert.equal(docs.get("future-only")?.status, "unsupported");
    assert.match(docs.get("future-only")!.error!, /needs node >= 99\.0\.0/);
    assert.equal((await bench(["validate", out], env)).code, 0);
  });

  it("keeps what was measured when interrupted, reports exactly what was written, and leaves no process behind", async () => {
    const out = tempDir("interrupt");
    const running = startBench(["run", "--runtime", "node@22.11.0", "--scenario", "crash", "--scenario", "slow", "--out", out], env);
    await running.waitFor("trial 2/4");
    await new Promise((resolve) => setTimeout(resolve, 300)); // let the second trial's hyperfine start
    running.child.kill("SIGINT");
    assert.equal(await running.exited, 130, running.stderr());
    assert.match(running.stderr(), /interrupted by SIGINT; saving what was measured/);
    const written = readResults([out]);
    assert.equal(written.length, 2, "the finished scenario and the interrupted one");
    assert.match(running.stdout(), new RegExp(`^${written.length} results written below `, "m"), "the summary counts the files on disk");
    const saved = written.find((r) => r.doc.scenario === "slow");
    assert.ok(saved, "the interrupted scenario was written");
    assert.equal(saved.doc.status, "failed");
    assert.match(saved.doc.error!, /interrupted after 1 of 4 trials/);
    assert.equal(saved.doc.metrics.wall_ms?.samples.length, 5, "the finished trial's samples are kept");
    const leftovers = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(join(FIXTURE_SUITES, "startup/slow")) || /hyperfine .*slow-node/.test(line));
    assert.deepEqual(leftovers, [], "no child outlives the harness");
  });
});
