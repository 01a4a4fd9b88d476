import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { psql, startPostgres, type PostgresServer } from "../../src/tools/postgres.ts";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";
import { exportedEntries, zeroValued } from "../helpers/gab.ts";
import { commandsUnder, processesUnder, sharedMemorySegments } from "../helpers/processes.ts";

// Fixture apps live outside apps/database so that no default run ever measures them: a driver that
// returns a wrong row, an app that kills the server mid-trial, and the real bun-sql app beside them.
const FIXTURE_APPS = join(REPO_ROOT, "tests/fixtures/apps");

/** The harness's work folder (and so the server's data folder) goes under a temporary folder of the test's own. */
function isolated(prefix: string) {
  const tmp = tempDir(`${prefix}-tmp`);
  return { tmp, env: { RUNTIME_BENCH_APPS_DIR: FIXTURE_APPS, TMPDIR: tmp } };
}

describe("database suite: wrong rows, a server killed mid-run, Ctrl-C, a harness killed outright, --postgres-url", () => {
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
    assert.equal(find("bun-sql", 10).metrics.server_cpu_s!.resolution, 0.01);
    assert.deepEqual(zeroValued(await exportedEntries(out)), [], "no exported entry is 0 (server CPU below its 10 ms ticks is left out)");
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

  it("leaves no PostgreSQL process, folder or shared memory behind a harness killed outright: its watchdog removes them", async () => {
    const out = tempDir("db-killed");
    const { tmp, env } = isolated("db-killed");
    const running = startBench(["run", "--suite", "database", "--scenario", "point-select", "--app", "bun-sql", "--runtime", "bun@1.4.5", "--out", out], env);
    await running.waitFor("trial 1/2");
    const servers = processesUnder(tmp);
    const socketFolder = /-k (\/tmp\/rb-pg-\S+)/.exec(commandsUnder(tmp).join("\n"))?.[1];
    assert.ok(servers.length > 0 && socketFolder !== undefined && existsSync(socketFolder), "the server runs, its socket in a folder of /tmp, when the harness is killed");
    // tsx keeps its compile cache in TMPDIR too; the harness's folders are its work folders.
    const workFolders = () => readdirSync(tmp).filter((name) => name.startsWith("runtime-bench-"));
    assert.equal(workFolders().length, 1, "one work folder while it ran");
    // SIGKILL runs no handler of the harness: only its watchdog, which sees its pipe close, can clean up.
    running.child.kill("SIGKILL");
    await running.exited;
    const segments = () => [...sharedMemorySegments()].filter(([, creator]) => servers.includes(creator));
    // The watchdog goes on for a moment after the harness has gone: the segments go last.
    const deadline = Date.now() + 15_000;
    while ((processesUnder(tmp).length > 0 || workFolders().length > 0 || existsSync(socketFolder) || segments().length > 0) && Date.now() < deadline) await sleep(100);
    assert.deepEqual(commandsUnder(tmp), [], "no process works in the harness's folders");
    assert.deepEqual(workFolders(), [], "the work folder and the server's data are gone");
    assert.equal(existsSync(socketFolder), false, "the socket's folder is gone");
    assert.deepEqual(segments(), [], "no shared memory segment of the killed server is left");
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
