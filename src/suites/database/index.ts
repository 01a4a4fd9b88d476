import { appOption, installApp, listingOf, loadApps } from "../../apps/manifest.ts";
import { UserError } from "../../core/errors.ts";
import { TASKSET_TOOL } from "../../tools/cpu-split.ts";
import type { Engine } from "../../tools/database-data.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { expectedWarmUpIterations, WARM_UP_METRICS } from "../../tools/in-process.ts";
import { CPU_RESOLUTION_S } from "../../tools/proc-stats.ts";
import { parsePostgresUrl, POSTGRES_TOOL } from "../../tools/postgres.ts";
import { SQLITE3_TOOL } from "../../tools/sqlite3.ts";
import { STRACE_TOOL } from "../../tools/strace.ts";
import { defineSuite } from "../suite.ts";
import type { Workload } from "./expected.ts";
import { appsOf, cellParams, ENGINES, levelsOf, WRITES, type DatabaseAppFields, type DatabaseConfig, type DatabaseOptions, type DatabaseProfile } from "./manifest.ts";
import { countedIn, countSeconds, DATABASE_COUNT_METRICS } from "./counts.ts";
import { databaseReproduction } from "./reproduction.ts";
import { databaseSession } from "./session.ts";

/**
 * A fresh app process under GNU time with its driver connected and what the harness reads back
 * to verify it; and the database restored first where the workload writes. The first quick run
 * on the shared 2-core machine (194 s, 30 s of it a Bun.sql stall) left 67 s beyond its
 * operations for 153 processes, half of them after a restore: 0.3 s each (a bare process of the
 * same protocol is 0.21 s by hyperfine). Starting PostgreSQL and loading it, once per run, is
 * not counted: the hook sees one scenario.
 */
const PROCESS_S = 0.3;
const RESTORE_S = 0.3;
/**
 * Seconds of one operation, by workload and engine: the mean iteration of every app and runtime
 * in a quick run on the shared 2-core machine, divided by its operations.
 */
const OPERATION_S: Record<Workload, Record<Engine, number>> = {
  "point-select": { sqlite: 8e-6, postgres: 4.8e-4 },
  "select-1000": { sqlite: 1.7e-3, postgres: 7.7e-3 },
  "insert-batch": { sqlite: 2.7e-3, postgres: 0.58 },
  "update-tx": { sqlite: 2.4e-4, postgres: 0.036 },
};
/**
 * How much longer a transaction takes when each row's INSERT is prepared anew (`prepare: "each"`):
 * node:sqlite on Node 22.14.0, a quick run on the shared 2-core machine, 148 transactions/s
 * against 390 with the INSERT prepared once.
 */
const PREPARE_EACH_COST = 2.6;

function operationSeconds(config: DatabaseConfig, engine: Engine): number {
  return OPERATION_S[config.workload][engine] * (config.prepare === "each" ? PREPARE_EACH_COST : 1);
}

/**
 * Database drivers, timed inside the runtime (the in-process protocol). A subject is one app (one
 * driver) on one runtime at one concurrency, on the engine the app is written for. Every trial
 * starts from the same database state, runs one fresh process (verification run, warm-up, measured
 * iterations), and is verified: the digest of what the driver read against the harness's own,
 * and the written tables read back with the harness's own client.
 */
export const databaseSuite = defineSuite<DatabaseConfig, DatabaseProfile, DatabaseOptions>({
  name: "database",
  metrics: {
    ops_per_s: { unit: "ops/s", better: "higher" },
    latency_p50_ms: { unit: "ms", better: "lower" },
    latency_p99_ms: { unit: "ms", better: "lower" },
    wall_ms: { unit: "ms", better: "lower" },
    peak_rss_mb: { unit: "MB", better: "lower" },
    server_cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    /** User plus system CPU seconds of the app's process. */
    cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    ...WARM_UP_METRICS,
    ...DATABASE_COUNT_METRICS,
  },
  profiles: {
    quick: { trials: 2, warmup: 10, warmup_block: 2, warmup_tolerance: 0.1, iterations: 5, ops: 100 },
    full: { trials: 3, warmup: 30, warmup_block: 3, warmup_tolerance: 0.05, iterations: 15, ops: 1000 },
  },
  tools: [POSTGRES_TOOL, SQLITE3_TOOL, GNU_TIME_TOOL, TASKSET_TOOL, STRACE_TOOL],
  options: {
    app: appOption("database"),
    engine: { help: "a database engine: sqlite or postgres (repeatable); default: both", values: () => [...ENGINES] },
    "postgres-url": { help: "measure on this PostgreSQL server instead of starting one (postgres://user@host:port/database)" },
  },
  // Each runtime's built-in SQLite and node-postgres on a real server, in the four scenarios every driver is compared on: the other drivers and the scenarios of one path (a statement prepared per row, queries pipelined on one connection) are measured by `run` and the weekly run.
  defaultRun: { scenarios: ["point-select", "select-1000", "insert-batch", "update-tx"], options: { app: ["node-sqlite", "bun-sqlite", "pg"] } },
  parseOptions(raw) {
    const urls = raw["postgres-url"] ?? [];
    if (urls.length > 1) throw new UserError("--postgres-url: give it once");
    if (urls[0] !== undefined) parsePostgresUrl(urls[0]);
    return { apps: raw.app ?? [], engines: (raw.engine ?? []) as Engine[], postgresUrl: urls[0] ?? null };
  },

  async prepare(note) {
    for (const app of loadApps<DatabaseAppFields>("database")) {
      const failed = await installApp(app, "database", note);
      if (failed) throw new UserError(failed);
    }
  },

  estimate(scenario, runtime, options, keeps) {
    const { trials, iterations, ops } = scenario.profileParams;
    const warmup = expectedWarmUpIterations(scenario.profileParams);
    const workload = scenario.config.workload;
    const apps = appsOf(loadApps<DatabaseAppFields>("database"), options).filter((app) => app.manifest.runtimes[runtime]);
    // Each cell runs one process for its check (one iteration) and one per trial; a workload that writes restores the database before each.
    const runS = (engine: Engine, runIterations: number) => PROCESS_S + (WRITES.includes(workload) ? RESTORE_S : 0) + runIterations * ops * operationSeconds(scenario.config, engine);
    const countS = (engine: Engine) => countSeconds(scenario.profileParams, PROCESS_S + (WRITES.includes(workload) ? RESTORE_S : 0), operationSeconds(scenario.config, engine));
    const cells = apps
      .flatMap((app) => levelsOf(scenario.config, app.manifest.engine).map((concurrency, i) => ({ engine: app.manifest.engine, concurrency, counted: countedIn(scenario, i === 0) })))
      .filter(({ engine, concurrency }) => keeps(cellParams(engine, concurrency)));
    const timedS = cells.reduce((sum, { engine }) => sum + runS(engine, 1) + trials * runS(engine, 1 + warmup + iterations), 0);
    const countingSeconds = cells.reduce((sum, { engine, counted }) => sum + (counted ? countS(engine) : 0), 0);
    return { cells: cells.length, seconds: timedS + countingSeconds, countingSeconds };
  },

  listApps() {
    return listingOf(loadApps("database"));
  },

  reproduction: databaseReproduction,

  start(context) {
    return databaseSession(context);
  },
});
