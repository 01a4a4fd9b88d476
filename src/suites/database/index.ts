import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { appOption, dependencyVersions, type App, entryFile, installApp, loadApps, selectApps, unsupportedApp } from "../../apps/manifest.ts";
import { errorMessage, UserError } from "../../core/errors.ts";
import { once } from "../../core/once.ts";
import type { ParamValue } from "../../results/types.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { cpusOf, describeAssignment, machineAssignment, pinned, TASKSET_TOOL } from "../../tools/cpu-split.ts";
import { checkTable, createPostgresDatabase, createSqliteDatabase, firstDifference, SQLITE_PRAGMAS, type BenchDatabase, type Engine, type TableCheck } from "../../tools/database-data.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { instructionsDetails } from "../../tools/perf.ts";
import { runInProcessTrial, type InProcessOutcome } from "../../tools/in-process.ts";
import { connectPostgres, parsePostgresUrl, POSTGRES_TOOL, PostgresFailure, startPostgres, type PostgresServer } from "../../tools/postgres.ts";
import { SQLITE3_TOOL } from "../../tools/sqlite3.ts";
import { TrialFailure, defineSuite, type CheckOutcome, type Subject, type SuiteContext, type SuiteScenario } from "../suite.ts";
import { expectedRun, type Workload, type WorkloadParams } from "./expected.ts";

// What the apps' shared workload writes beside its digest (apps/database/shared/workload.js).
const DIGEST_LINES = "digest-lines.txt";
const DRIVER_FACTS = "driver.json";
const UNSUPPORTED = /^the app failed: unsupported: (.*)$/s;
const APP_TIMEOUT_MS = 5 * 60_000;
/** An iteration that takes longer has a query that never completed (Bun 1.2.0's Bun.sql does this now and then). */
const STALL_S = 30;
const WRITES: readonly Workload[] = ["insert-batch", "update-tx"];

/** The `database` block of a scenario manifest (schemas/suites/database.schema.json#/$defs/config). */
interface DatabaseConfig {
  workload: Workload;
  rows?: number;
  concurrency?: number[];
}

/** A profile of a database scenario (schemas/suites/database.schema.json#/$defs/profile). */
interface DatabaseProfile {
  trials: number;
  warmup: number;
  iterations: number;
  ops: number;
  [key: string]: unknown;
}

interface DatabaseOptions {
  apps: readonly string[];
  engines: readonly Engine[];
  postgresUrl: string | null;
}

/** What a database app's manifest declares beyond the common fields (schemas/suites/database.schema.json, `$defs.app`). */
interface DatabaseAppFields {
  engine: Engine;
  /** Whether the driver prepares its statements (once per connection) rather than sending each query as text. */
  prepared_statements: boolean;
}

type DatabaseApp = App<DatabaseAppFields>;
type DatabaseSubject = Subject<DatabaseConfig, DatabaseProfile>;
const ENGINES: readonly Engine[] = ["sqlite", "postgres"];

function workloadOf(subject: DatabaseSubject): WorkloadParams {
  const config = subject.scenario.config;
  return { scenario: config.workload, ops: subject.scenario.profileParams.ops, rows: config.rows ?? 1 };
}

/** Subjects with no server the harness can see (SQLite, or a server at --postgres-url) record no server CPU: their scenario view drops it. */
function withoutServerMetrics(scenario: SuiteScenario<DatabaseConfig, DatabaseProfile>): SuiteScenario<DatabaseConfig, DatabaseProfile> {
  const { server_cpu_s: _server, ...metrics } = scenario.metrics;
  return { ...scenario, metrics };
}

function percentile(sorted: readonly number[], p: number): number {
  // Nearest rank: the smallest sample with at least p % of the samples at or below it.
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (value: number, digits = 4) => Number(value.toFixed(digits));


/** The apps a run measures: those the --app and --engine filters keep. */
function appsOf(apps: readonly DatabaseApp[], options: DatabaseOptions): DatabaseApp[] {
  const engines = options.engines.length > 0 ? options.engines : ENGINES;
  return selectApps(apps, options.apps).filter((app) => engines.includes(app.manifest.engine));
}

/** An app's concurrency levels, one result each: an embedded engine answers one query at a time on one connection, so concurrency is a server's. */
function levelsOf(config: DatabaseConfig, engine: Engine): number[] {
  return engine === "postgres" ? (config.concurrency ?? [1]) : [1];
}

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

/** One PostgreSQL server for the run, with the benchmark database loaded; replaced if it dies. */
interface PostgresEngine {
  readonly server: PostgresServer;
  readonly database: BenchDatabase;
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
    server_cpu_s: { unit: "s", better: "lower" },
    /** User plus system CPU seconds of the app's process. */
    cpu_s: { unit: "s", better: "lower" },
  },
  profiles: {
    quick: { trials: 2, warmup: 1, iterations: 5, ops: 100 },
    full: { trials: 3, warmup: 5, iterations: 15, ops: 1000 },
  },
  tools: [POSTGRES_TOOL, SQLITE3_TOOL, GNU_TIME_TOOL, TASKSET_TOOL],
  options: {
    app: appOption("database"),
    engine: { help: "a database engine: sqlite or postgres (repeatable); default: both", values: () => [...ENGINES] },
    "postgres-url": { help: "measure on this PostgreSQL server instead of starting one (postgres://user@host:port/database)" },
  },
  // Each runtime's built-in SQLite and node-postgres on a real server: the other drivers are measured by `run` and the profiles.
  defaultRun: { options: { app: ["node-sqlite", "bun-sqlite", "pg"] } },
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

  estimate(scenario, runtime, options) {
    const { trials, warmup, iterations, ops } = scenario.profileParams;
    const workload = scenario.config.workload;
    const apps = appsOf(loadApps<DatabaseAppFields>("database"), options).filter((app) => app.manifest.runtimes[runtime]);
    // Each cell runs one process for its check (one iteration) and one per trial; a workload that writes restores the database before each.
    const runS = (engine: Engine, runIterations: number) => PROCESS_S + (WRITES.includes(workload) ? RESTORE_S : 0) + runIterations * ops * OPERATION_S[workload][engine];
    const cellS = (engine: Engine) => runS(engine, 1) + trials * runS(engine, 1 + warmup + iterations);
    const cells = apps.flatMap((app) => levelsOf(scenario.config, app.manifest.engine).map(() => app.manifest.engine));
    return { cells: cells.length, seconds: cells.reduce((sum, engine) => sum + cellS(engine), 0) };
  },

  listApps() {
    return loadApps<DatabaseAppFields>("database").map((app) => ({ name: app.name, runtimes: Object.keys(app.manifest.runtimes) }));
  },

  start(context) {
    return databaseSession(context);
  },
});

function databaseSession(context: SuiteContext<DatabaseOptions>) {
  const apps = loadApps<DatabaseAppFields>("database");
  const appOf = (subject: DatabaseSubject) => apps.find((app) => app.name === subject.app)!;
  const installs = new Map<string, Promise<string | null>>();
  let runs = 0;
  const dirty = new Set<BenchDatabase>();
  let sqlite: Promise<BenchDatabase> | null = null;
  let postgres: Promise<PostgresEngine> | null = null;
  let postgresStarts = 0;
  const split = machineAssignment();

  const sqliteDatabase = () => {
    sqlite ??= (async () => {
      const dir = join(context.workDir, "sqlite");
      await mkdir(dir, { recursive: true });
      return createSqliteDatabase(dir);
    })();
    return sqlite;
  };

  /** The run's PostgreSQL: started (or connected to) on first use, and again after it died. */
  const postgresEngine = () => {
    postgres ??= (async () => {
      postgresStarts += 1;
      let server: PostgresServer;
      if (context.options.postgresUrl !== null) {
        server = await connectPostgres(context.options.postgresUrl);
      } else {
        try {
          server = await startPostgres({ dir: join(context.workDir, `postgres-${postgresStarts}`), cpus: cpusOf(split, "database") });
        } catch (error) {
          if (error instanceof PostgresFailure) throw new UserError(error.message);
          throw error;
        }
        context.log(`PostgreSQL ${server.version} started${postgresStarts > 1 ? " again" : ""} for the database suite`);
      }
      // On a server of the user's, a name of this run's own, removed at the end.
      const name = server.startedByHarness ? "runtime_bench" : `runtime_bench_${process.pid}`;
      try {
        return { server, database: await createPostgresDatabase(server, context.workDir, name) };
      } catch (error) {
        await server.stop();
        throw new UserError(`PostgreSQL at ${server.url(server.maintenanceDatabase)}: could not load the benchmark database: ${errorMessage(error)}`);
      }
    })();
    return postgres;
  };

  const databaseOf = async (engine: Engine): Promise<BenchDatabase> => (engine === "sqlite" ? sqliteDatabase() : (await postgresEngine()).database);

  /** Starts one app process on a freshly restored database; returns its outcome and the folder it wrote its digest lines in. */
  async function runApp(subject: DatabaseSubject, counts: { warmup: number; iterations: number }) {
    const app = appOf(subject);
    const engine = app.manifest.engine;
    const database = await databaseOf(engine);
    // Reads leave the database as they found it: only a run that wrote (or may have) is undone.
    if (dirty.has(database)) await database.restore();
    dirty.add(database);
    const dir = join(context.workDir, "app-runs", String(++runs));
    await mkdir(dir, { recursive: true });
    const workload = workloadOf(subject);
    const server = engine === "postgres" ? (await postgresEngine()).server : null;
    const cpuBefore = server?.cpuS() ?? Number.NaN;
    const outcome = await runInProcessTrial({
      argv: [...pinned(cpusOf(split, "server")), ...scriptArgv(subject.runtime, subject.flags, entryFile(app, subject.runtime.identity.name))],
      cwd: app.dir,
      env: runtimeEnv(subject.runtime, context.workDir),
      input: {
        params: {
          scenario: workload.scenario,
          engine,
          connection: database.connection,
          ops: workload.ops,
          rows: workload.rows,
          concurrency: subject.params.concurrency,
          stall_s: STALL_S,
        },
        workDir: dir,
        ...counts,
      },
      scratchDir: context.workDir,
      timeoutMs: APP_TIMEOUT_MS,
    });
    const serverCpuS = server ? server.cpuS() - cpuBefore : Number.NaN;
    if (outcome.ok && !WRITES.includes(workload.scenario)) dirty.delete(database);
    const serverGone = server?.gone() ?? null;
    return { outcome, dir, database, serverCpuS, serverGone, workload };
  }

  /** Compares what the app read with what the harness expects, then reads back the tables it wrote. */
  async function verify(run: Awaited<ReturnType<typeof runApp>>, report: Extract<InProcessOutcome, { ok: true }>["report"]) {
    const { warmup, iterations } = report.counts;
    const expected = await expectedRun(run.workload, 1 + warmup + iterations);
    const tables: TableCheck[] = [];
    for (const [table, rows] of Object.entries(expected.tables)) tables.push(await checkTable(table as "users" | "world", await run.database.read(table as "users" | "world"), rows));
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

  async function driverFacts(dir: string): Promise<Record<string, unknown>> {
    return JSON.parse(await readFile(join(dir, DRIVER_FACTS), "utf8").catch(() => "{}")) as Record<string, unknown>;
  }

  /** A server that died takes its cell with it; the next subject starts a new one. */
  async function forgetDeadServer(reason: string): Promise<void> {
    const dead = postgres;
    postgres = null;
    await (await dead)?.server.stop();
    context.log(`${reason}; the next PostgreSQL subject starts a new server`);
  }

  return {
    subjects(scenario: SuiteScenario<DatabaseConfig, DatabaseProfile>, runtime: IdentifiedRuntime) {
      const subjects: DatabaseSubject[] = [];
      for (const app of appsOf(apps, context.options)) {
        const engine = app.manifest.engine;
        const start = app.manifest.runtimes[runtime.identity.name];
        const flags = [...(scenario.manifest.runtimes[runtime.identity.name]?.flags ?? []), ...(start?.flags ?? [])];
        const view = engine === "postgres" && context.options.postgresUrl === null ? scenario : withoutServerMetrics(scenario);
        // An app a runtime cannot run keeps its load points too (check() finds it unsupported), so
        // its cells join the series of the runtimes it runs on.
        for (const concurrency of levelsOf(scenario.config, engine)) {
          const params: Record<string, ParamValue> = { engine, concurrency };
          subjects.push({ scenario: view, runtime, app: app.name, params, flags });
        }
      }
      return subjects;
    },

    async check(subject: DatabaseSubject): Promise<CheckOutcome> {
      const app = appOf(subject);
      const unsupported = unsupportedApp(app, subject.runtime);
      if (unsupported) return { status: "unsupported", error: unsupported };
      const installError = await once(installs, app.dir, () => installApp(app, "database", context.log));
      if (installError) return { status: "failed", error: installError };
      const run = await runApp(subject, { warmup: 0, iterations: 1 });
      if (!run.outcome.ok) {
        const reason = UNSUPPORTED.exec(run.outcome.error)?.[1];
        if (reason !== undefined) return { status: "unsupported", error: reason };
        if (run.serverGone) {
          await forgetDeadServer(run.serverGone);
          return { status: "failed", error: `${run.serverGone} during the check` };
        }
        return { status: "failed", error: run.outcome.error, details: { stderr: run.outcome.stderr } };
      }
      const { verification, error } = await verify(run, run.outcome.report);
      const driver = await driverFacts(run.dir);
      const engine = app.manifest.engine;
      const details: Record<string, unknown> = {
        engine,
        workload: run.workload,
        concurrency: subject.params.concurrency,
        pool_size: engine === "postgres" ? subject.params.concurrency : "none: one connection",
        prepared_statements: app.manifest.prepared_statements,
        stall_timeout_s: STALL_S,
        app_dependencies: dependencyVersions(app),
        ...driver,
        ...(engine === "sqlite" ? { sqlite_pragmas: SQLITE_PRAGMAS } : { postgres_server: (await postgresEngine()).server.description }),
        cpu_split: describeAssignment(split, engine === "sqlite" ? ["server"] : ["server", "database"]),
      };
      return error === null ? { status: "ok", verification, details } : { status: "failed", error, verification, details };
    },

    async trial(subject: DatabaseSubject, trialIndex: number) {
      const profile = subject.scenario.profileParams;
      const run = await runApp(subject, { warmup: profile.warmup, iterations: profile.iterations });
      if (run.serverGone) {
        await forgetDeadServer(run.serverGone);
        throw new TrialFailure(`${run.serverGone} during the trial`);
      }
      if (!run.outcome.ok) throw new TrialFailure(run.outcome.error, { stderr: run.outcome.stderr });
      const { report, usage } = run.outcome;
      const { verification, error } = await verify(run, report);
      if (error !== null) throw new TrialFailure(error, { [`trial_${trialIndex + 1}_verification`]: verification });
      const latency = [...(report.samples.latency_ms ?? [])].sort((a, b) => a - b);
      const wall = report.samples.wall_ms ?? [];
      const samples: Record<string, number[]> = {
        ops_per_s: wall.map((ms) => round((run.workload.ops * 1000) / ms, 2)),
        latency_p50_ms: [round(percentile(latency, 50))],
        latency_p99_ms: [round(percentile(latency, 99))],
        wall_ms: wall.map((ms) => round(ms)),
        peak_rss_mb: [round(usage.peakRssMb, 2)],
        cpu_s: [round(usage.cpuS, 2)],
      };
      if (subject.scenario.metrics.server_cpu_s) samples.server_cpu_s = [round(run.serverCpuS, 2)];
      return { samples, details: { [`trial_${trialIndex + 1}_verification`]: verification, ...instructionsDetails([usage.instructions], trialIndex) } };
    },

    async finish(subject: DatabaseSubject) {
      if (appOf(subject).manifest.engine !== "postgres" || postgres === null) return {};
      const { server } = await postgres;
      return { tools: { postgres: server.version } };
    },

    async close() {
      const running = [sqlite, postgres];
      sqlite = null;
      postgres = null;
      for (const pending of running) {
        const engine = await pending?.catch(() => null);
        if (engine === null || engine === undefined) continue;
        if ("server" in engine) {
          // A server of the user's keeps running: the databases made on it go. One the harness started goes whole.
          if (!engine.server.startedByHarness) await engine.database.drop().catch(() => {});
          await engine.server.stop();
        } else {
          await engine.drop();
        }
      }
    },
  };
}
