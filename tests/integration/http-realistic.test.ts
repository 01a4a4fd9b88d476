import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";
import { processesUnder } from "../helpers/processes.ts";

/** App servers still running: each works in its app's folder. */
const appServers = () => processesUnder(join(REPO_ROOT, "apps/http"));

describe("http suite on PostgreSQL: fortunes byte for byte, and nothing left after a run or Ctrl-C", () => {
  it("measures fortunes on express-pg and elysia-bunsql with the database server's CPU, and stops PostgreSQL", async () => {
    const out = tempDir("http-fortunes");
    const tmp = tempDir("http-fortunes-tmp");
    // Smoke: one trial checks the bytes, the database's CPU and the stop; no figure is asserted.
    const args = ["run", "--suite", "http", "--scenario", "fortunes", "--app", "express-pg", "--app", "elysia-bunsql", "--runtime", "node@22.11.0", "--runtime", "bun@1.2.0", "--profile", "smoke", "--out", out];
    const result = await bench(args, { TMPDIR: tmp });
    assert.equal(result.code, 0, result.stderr);
    const docs = readResults([out]).map((r) => r.doc);
    const cell = (app: string, runtime: string) => docs.find((doc) => doc.app === app && doc.runtime.name === runtime)!;
    for (const [app, runtime] of [["express-pg", "node"], ["express-pg", "bun"], ["elysia-bunsql", "bun"]] as const) {
      const doc = cell(app, runtime);
      assert.equal(doc.status, "ok", `${app} on ${runtime}: ${doc.error}`);
      assert.equal(doc.verification?.status, "passed");
      assert.equal(doc.metrics.database_cpu_s?.samples.length, 1, "the database server's CPU is measured in the (smoke) trial");
      assert.ok(doc.metrics.server_peak_rss_mb!.median > 0);
      assert.match(String(doc.tools.postgres), /^\d+/);
    }
    assert.equal(cell("elysia-bunsql", "node").status, "unsupported");
    assert.equal((await bench(["validate", out])).code, 0);
    assert.deepEqual(processesUnder(tmp), [], "no PostgreSQL process outlives the run");
    assert.deepEqual(appServers(), [], "no app server outlives the harness");
  });

  it("stops the app server and PostgreSQL on Ctrl-C during an api-db trial", async () => {
    const out = tempDir("http-interrupt");
    const tmp = tempDir("http-interrupt-tmp");
    const running = startBench(["run", "--suite", "http", "--scenario", "api-db", "--app", "hono-postgres", "--runtime", "node@22.11.0", "--profile", "quick", "--out", out], { TMPDIR: tmp });
    await running.waitFor("trial 1/2");
    assert.ok(processesUnder(tmp).length > 0, "PostgreSQL runs while we interrupt");
    // The trial restores the table before it starts the server.
    for (let waited = 0; appServers().length === 0 && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(appServers().length > 0, "the app server runs while we interrupt");
    running.child.kill("SIGINT");
    assert.equal(await running.exited, 130, running.stderr());
    assert.deepEqual(processesUnder(tmp), [], "no PostgreSQL process outlives the harness");
    assert.deepEqual(appServers(), [], "no app server outlives the harness");
  });
});
