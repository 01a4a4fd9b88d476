import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as sharedData from "../../../apps/database/shared/data.js";
import { entryFile } from "../../apps/manifest.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import { cpusOf, pinned } from "../../tools/cpu-split.ts";
import { checkTable, firstDifference, type TableCheck } from "../../tools/database-data.ts";
import { runInProcessTrial, type InProcessInput, type InProcessOutcome } from "../../tools/in-process.ts";
import { expectedRun } from "./expected.ts";
import { databaseOf, postgresEngine } from "./engines.ts";
import { appOf, poolSizeOf, WRITES, workloadOf, type DatabaseSubject } from "./manifest.ts";
import type { DatabaseSession } from "./session.ts";

// What the apps' shared workload writes beside its digest (apps/database/shared/workload.js).
const DIGEST_LINES = "digest-lines.txt";
const APP_TIMEOUT_MS = 5 * 60_000;
/** An iteration that takes longer has a query that never completed (Bun 1.2.0's Bun.sql does this now and then). */
export const STALL_S = 30;

export type AppRun = Awaited<ReturnType<typeof runApp>>;
type Report = Extract<InProcessOutcome, { ok: true }>["report"];

/** Starts one app process on a freshly restored database (behind `tracer`, strace's for a counted run); returns its outcome and the folder it wrote its digest lines in. */
export async function runApp(session: DatabaseSession, subject: DatabaseSubject, counts: Pick<InProcessInput, "warmup" | "steady" | "iterations">, tracer: readonly string[] = []) {
  const { context, engines } = session;
  const app = appOf(session.apps, subject);
  const engine = app.manifest.engine;
  const database = await databaseOf(engines, engine);
  // Reads leave the database as they found it: only a run that wrote (or may have) is undone.
  if (session.dirty.has(database)) await database.restore();
  session.dirty.add(database);
  const dir = join(context.workDir, "app-runs", String(++session.runs));
  await mkdir(dir, { recursive: true });
  const workload = workloadOf(subject.scenario);
  const server = engine === "postgres" ? (await postgresEngine(engines)).server : null;
  // The harness's own psql sessions (restoring, reading back) are counted before, not in the app's share.
  await server?.clientsGone();
  const cpuBefore = server?.cpuS() ?? Number.NaN;
  const outcome = await runInProcessTrial({
    argv: [...tracer, ...pinned(cpusOf(session.split, "server")), ...scriptArgv(subject.runtime, subject.flags, entryFile(app, subject.runtime.identity.name))],
    cwd: app.dir,
    env: runtimeEnv(subject.runtime, context.workDir),
    input: {
      params: {
        scenario: workload.scenario,
        engine,
        connection: database.connection,
        ops: workload.ops,
        rows: workload.rows,
        prepare: workload.prepare,
        concurrency: subject.params.concurrency,
        connections: poolSizeOf(subject),
        stall_s: STALL_S,
      },
      workDir: dir,
      ...counts,
    },
    scratchDir: context.workDir,
    timeoutMs: APP_TIMEOUT_MS,
  });
  await server?.clientsGone();
  const serverCpuS = server ? server.cpuS() - cpuBefore : Number.NaN;
  if (outcome.ok && !WRITES.includes(workload.scenario)) session.dirty.delete(database);
  const serverGone = server?.gone() ?? null;
  return { outcome, dir, database, serverCpuS, serverGone, workload };
}

/** Compares what the app read with what the harness expects, then reads back the tables it wrote. */
export async function verify(run: AppRun, report: Report) {
  const { warmup, iterations } = report.counts;
  const expected = await expectedRun(run.workload, 1 + warmup + iterations);
  const tables: TableCheck[] = [];
  for (const [table, rows] of Object.entries(expected.tables)) tables.push(await checkTable(sharedData, table as "users" | "world", await run.database.read(table as "users" | "world"), rows));
  const verification = { status: "passed" as "passed" | "failed", digest: report.digest, expected_digest: expected.digest, tables };
  let error: string | null = null;
  if (report.digest !== expected.digest) {
    const lines = (await readFile(join(run.dir, DIGEST_LINES), "utf8").catch(() => "")).split("\n").slice(0, -1);
    const what = run.workload.scenario === "insert-batch" ? "batch result" : "row";
    error = `read the wrong rows: ${firstDifference(what, lines, expected.lines) ?? `digest ${report.digest}, expected ${expected.digest}`}`;
  } else {
    const wrong = tables.find((check) => check.difference !== null);
    if (wrong) error = `wrote the wrong rows: ${wrong.difference}`;
  }
  if (error !== null) verification.status = "failed";
  return { verification, error };
}
