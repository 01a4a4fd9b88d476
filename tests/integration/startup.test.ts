import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";

const FIXTURE_SUITES = join(REPO_ROOT, "tests/fixtures/suites");

// Every scenario on the pinned runtimes is checked in tests/integration/counts.test.ts, which reads
// the same run as its counts of startup/hello.

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
