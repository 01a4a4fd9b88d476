import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { psql, startPostgres, type PostgresServer } from "../../src/tools/postgres.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { processesUnder } from "../helpers/processes.ts";

describe("PostgreSQL lifecycle", () => {
  const servers: PostgresServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
  });

  it("starts on a free port, answers, records its settings, and stops with every process it started", async () => {
    const dir = tempDir("pg-life");
    const server = await startPostgres({ dir: join(dir, "pg") });
    servers.push(server);
    assert.equal((await psql(server.url("postgres"), { command: "SHOW synchronous_commit" })).trim(), "off");
    assert.equal((await psql(server.url("postgres"), { command: "SELECT 6 * 7" })).trim(), "42");
    assert.match(server.version, /^\d+\.\d+/);
    assert.equal(server.description.started_by_harness, true);
    assert.ok(processesUnder(dir).length >= 4, "postmaster and its auxiliary processes run in the data folder");
    assert.equal(server.gone(), null);
    assert.ok(server.cpuS() >= 0);
    await server.stop();
    assert.deepEqual(processesUnder(dir), []);
  });

  it("starts where its work folder is too deep for a socket's path, and removes the socket's folder when it stops", async () => {
    const deep = join(tempDir("pg-deep"), "a-work-folder-as-deep-as-a-long-TMPDIR-makes-it", "and-then-some-more-of-it");
    const before = new Set(readdirSync("/tmp").filter((name) => name.startsWith("rb-pg-")));
    const server = await startPostgres({ dir: join(deep, "pg") });
    servers.push(server);
    assert.equal((await psql(server.url("postgres"), { command: "SELECT 6 * 7" })).trim(), "42");
    const socketDirs = readdirSync("/tmp").filter((name) => name.startsWith("rb-pg-") && !before.has(name));
    assert.equal(socketDirs.length, 1, "the socket's own folder in /tmp");
    await server.stop();
    assert.ok(!existsSync(join("/tmp", socketDirs[0]!)), "gone with the server");
  });

  it("says which port was taken, and after a SIGKILL says the server is gone and still leaves no process behind", async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as { port: number }).port)));
    const dir = tempDir("pg-faults");
    try {
      await assert.rejects(startPostgres({ dir: join(dir, "taken"), port }), new RegExp(`could not listen on 127\\.0\\.0\\.1:${port}: the port is already taken`));
    } finally {
      blocker.close();
    }
    assert.deepEqual(processesUnder(dir), [], "the server that could not listen is gone");

    const server = await startPostgres({ dir: join(dir, "killed") });
    servers.push(server);
    // A backend of our own, which the postmaster's death orphans.
    const backend = psql(server.url("postgres"), { command: "SELECT pg_sleep(30)" }).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // postmaster.pid: pid first, and on line 7 the key and id of its System V shared memory segment.
    const pidFile = readFileSync(join(dir, "killed/data/postmaster.pid"), "utf8").split("\n");
    const postmaster = Number(pidFile[0]);
    const shmid = pidFile[6]!.trim().split(/\s+/)[1]!;
    process.kill(postmaster, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.match(server.gone() ?? "", /^the PostgreSQL server /);
    await server.stop();
    assert.deepEqual(processesUnder(dir), [], "orphaned children are found by their data folder and stopped");
    const segments = readFileSync("/proc/sysvipc/shm", "utf8").split("\n").map((line) => line.trim().split(/\s+/)[1]);
    assert.ok(!segments.includes(shmid), `the dead server's shared memory segment ${shmid} is removed`);
    assert.ok((await backend) instanceof Error, "the client's query did not survive the server");
  });
});
