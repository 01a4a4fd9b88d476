import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { psql, startPostgres, type PostgresServer } from "../../src/tools/postgres.ts";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";
import { processesUnder } from "../helpers/processes.ts";

// Fixture apps live outside apps/database so that no default run ever measures them: a driver that
// returns a wrong row, an app that kills the server mid-trial, and the real bun-sql app beside them.
const FIXTURE_APPS = join(REPO_ROOT, "tests/fixtures/apps");

/** The harness's work folder (and so the server's data folder) goes under a temporary folder of the test's own. */
function isolated(prefix: string) {
  const tmp = tempDir(`${prefix}-tmp`);
  return { tmp, env: { RUNTIME_BENCH_APPS_DIR: FIXTURE_APPS, TMPDIR: tmp } };
}

describe("database suite: wrong rows, a server killed mid-run, Ctrl-C, --postgres-url", () => {
  const servers: PostgresServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
  });

  it("fails a driver that reads a wrong row and a trial whose server died, starts a new server and goes on", async () => {
    const out = tempDir("db-faults");
    const { tmp, env } = isolated("db-faults");
    const args = ["run", "--suite", "database", "--scenario", "point-select", "--runtime", "node@22.11.0", "--runtime", "bun@1.4.5", "--profile", "quick", "--out", out];
    const result = await bench(args, env);
    assert.equal(result.code, 1, `failed results make the run exit 1: ${result.stderr}`);
    const docs = readResults([out]).map((r) => r.doc);
    // Each app also has unsupported cells on the runtime it does not run on, at the same load points.
    const find = (app: string, concurrency: number) => docs.find((doc) => doc.app === app && doc.params.concurrency === concurrency && doc.status !== "unsupported")!;
    const unsupported = docs.filter((doc) => doc.status === "unsupported");
    assert.ok(unsupported.length > 0 && unsupported.every((doc) => typeof doc.params.concurrency === "number"), "unsupported cells keep their load point");

    const wrong = find("wrong-row", 1);
    assert.equal(wrong.status, "failed");
    assert.equal(wrong.params.engine, "sqlite");
    assert.equal(wrong.verification?.status, "failed");
    assert.match(wrong.error!, /^read the wrong rows: row 3 is id=\d+\|name=Mallory Wrong\|.*, expected id=\d+\|name=(?!Mallory)/);
    assert.deepEqual(wrong.metrics, {}, "a driver that read wrong rows is never measured");

    // point-select on Bun 1.4.5, whose Bun.sql is the healthy app here (before 1.2.3 it stalls; docs/suites/database.md).
    for (const concurrency of [1, 10]) {
      const killed = find("kills-server", concurrency);
      assert.equal(killed.status, "failed");
      assert.equal(killed.verification?.status, "passed", "it passed its check before it killed the server");
      assert.match(killed.error!, /^trial 1: the PostgreSQL server .* during the trial$/);

      const healthy = find("bun-sql", concurrency);
      assert.equal(healthy.status, "ok", `the run went on with a new server: ${healthy.error}`);
      assert.ok(healthy.metrics.ops_per_s!.median > 0);
      assert.equal(healthy.metrics.server_cpu_s?.samples.length, 2);
      assert.equal(healthy.verification?.status, "passed");
    }
    assert.match(result.stderr, /PostgreSQL .* started again for the database suite/);
    assert.equal((await bench(["validate", out])).code, 0);
    assert.deepEqual(processesUnder(tmp), [], "no PostgreSQL process outlives the run");
  });

  it("stops PostgreSQL and every process it started on Ctrl-C", async () => {
    const out = tempDir("db-interrupt");
    const { tmp, env } = isolated("db-interrupt");
    const running = startBench(["run", "--suite", "database", "--scenario", "point-select", "--app", "bun-sql", "--runtime", "bun@1.4.5", "--out", out], env);
    await running.waitFor("trial 1/2");
    assert.ok(processesUnder(tmp).length > 0, "the server runs while we interrupt");
    running.child.kill("SIGINT");
    assert.equal(await running.exited, 130, running.stderr());
    assert.deepEqual(processesUnder(tmp), [], "no PostgreSQL process outlives the harness");
  });

  it("measures on a server named by --postgres-url, records its version, leaves it running without our databases, and rejects bad URLs in one line", async () => {
    const server = await startPostgres({ dir: join(tempDir("db-external"), "pg") });
    servers.push(server);
    const out = tempDir("db-external-out");
    const { env } = isolated("db-external");
    const url = server.url("postgres");
    const args = ["run", "--suite", "database", "--scenario", "point-select", "--app", "bun-sql", "--runtime", "bun@1.4.5", "--profile", "quick", "--out", out];
    const result = await bench([...args, "--postgres-url", url], env);
    assert.equal(result.code, 0, result.stderr);
    const docs = readResults([out]).map((r) => r.doc);
    assert.equal(docs.length, 2);
    for (const doc of docs) {
      assert.equal(doc.status, "ok");
      assert.equal(doc.tools.postgres, server.version);
      assert.equal((doc.details?.postgres_server as { started_by_harness: boolean }).started_by_harness, false);
      assert.equal(doc.metrics.server_cpu_s, undefined, "the CPU of a server the harness did not start is not measured");
    }
    assert.equal(server.gone(), null, "the user's server keeps running");
    assert.equal((await psql(url, { command: "SELECT count(*) FROM pg_database WHERE datname LIKE 'runtime_bench%'" })).trim(), "0");

    const badScheme = await bench([...args, "--postgres-url", "mysql://root@127.0.0.1/db"], env);
    assert.equal(badScheme.code, 2);
    assert.match(badScheme.stderr, /--postgres-url 'mysql:\/\/root@127\.0\.0\.1\/db': the scheme must be postgres:\/\/ or postgresql:\/\//);
    const unreachable = await bench([...args, "--postgres-url", "postgres://postgres:secret@127.0.0.1:1/postgres"], env);
    assert.equal(unreachable.code, 2);
    assert.match(unreachable.stderr, /--postgres-url 'postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/postgres': cannot connect: /);
    assert.doesNotMatch(unreachable.stderr, /secret|\n\s+at /, "no password and no stack trace");
  });
});
