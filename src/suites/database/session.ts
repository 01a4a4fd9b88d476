import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { dependencyVersions, installApp, loadApps, unsupportedApp } from "../../apps/manifest.ts";
import { once } from "../../core/once.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { describeAssignment, machineAssignment, type CpuAssignment } from "../../tools/cpu-split.ts";
import { SQLITE_PRAGMAS, type BenchDatabase } from "../../tools/database-data.ts";
import { warmUpInput, warmUpRecord } from "../../tools/in-process.ts";
import { instructionsDetails } from "../../tools/perf.ts";
import { countedScenario, TrialFailure, type CheckOutcome, type SuiteContext, type SuiteSession, type TrialOutput } from "../suite.ts";
import { countDatabase, countedIn, DATABASE_COUNT_METRICS } from "./counts.ts";
import { runApp, STALL_S, verify } from "./app-run.ts";
import { closeEngines, forgetDeadServer, noEngines, postgresEngine, type Engines } from "./engines.ts";
import {
  appOf,
  appsOf,
  cellParams,
  flagsOf,
  levelsOf,
  poolSizeOf,
  type DatabaseApp,
  type DatabaseAppFields,
  type DatabaseConfig,
  type DatabaseOptions,
  type DatabaseProfile,
  type DatabaseScenario,
  type DatabaseSubject,
} from "./manifest.ts";

const DRIVER_FACTS = "driver.json";
const UNSUPPORTED = /^the app failed: unsupported: (.*)$/s;

/** What a run's hooks share: the apps, their installs, the databases and the app processes run so far. */
export interface DatabaseSession {
  readonly context: SuiteContext<DatabaseOptions>;
  readonly apps: readonly DatabaseApp[];
  readonly installs: Map<string, Promise<string | null>>;
  readonly split: CpuAssignment;
  readonly engines: Engines;
  /** The databases an app process wrote to (or may have): restored before the next one. */
  readonly dirty: Set<BenchDatabase>;
  /** App processes started, each with a folder of its own. */
  runs: number;
}

export function databaseSession(context: SuiteContext<DatabaseOptions>): SuiteSession<DatabaseConfig, DatabaseProfile> {
  const split = machineAssignment();
  const session: DatabaseSession = {
    context,
    apps: loadApps<DatabaseAppFields>("database"),
    installs: new Map(),
    split,
    engines: noEngines(context, split),
    dirty: new Set(),
    runs: 0,
  };
  return {
    subjects: (scenario, runtime) => subjects(session, scenario, runtime),
    check: (subject) => check(session, subject),
    trial: (subject, trialIndex) => trial(session, subject, trialIndex),
    count: (subject) => countDatabase(session, subject),
    finish: (subject) => finish(session, subject),
    close: () => closeEngines(session.engines),
  };
}

/** Subjects with no server the harness can see (SQLite, or a server at --postgres-url) record no server CPU: their scenario view drops it. */
function withoutServerMetrics(scenario: DatabaseScenario): DatabaseScenario {
  const { server_cpu_s: _server, ...metrics } = scenario.metrics;
  return { ...scenario, metrics };
}

function subjects(session: DatabaseSession, scenario: DatabaseScenario, runtime: IdentifiedRuntime): DatabaseSubject[] {
  const { context } = session;
  const found: DatabaseSubject[] = [];
  for (const app of appsOf(session.apps, context.options)) {
    const engine = app.manifest.engine;
    const flags = flagsOf(scenario, app, runtime.identity.name);
    const view = engine === "postgres" && context.options.postgresUrl === null ? scenario : withoutServerMetrics(scenario);
    // An app a runtime cannot run keeps its load points too (check() finds it unsupported), so
    // its cells join the series of the runtimes it runs on.
    levelsOf(scenario.config, engine).forEach((concurrency, i) => {
      const params = cellParams(engine, concurrency);
      found.push({ scenario: countedScenario(view, DATABASE_COUNT_METRICS, countedIn(view, i === 0)), runtime, app: app.name, params, flags });
    });
  }
  return found;
}

async function driverFacts(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dir, DRIVER_FACTS), "utf8").catch(() => "{}")) as Record<string, unknown>;
}

async function check(session: DatabaseSession, subject: DatabaseSubject): Promise<CheckOutcome> {
  const app = appOf(session.apps, subject);
  const unsupported = unsupportedApp(app, subject.runtime);
  if (unsupported) return { status: "unsupported", error: unsupported };
  const installError = await once(session.installs, app.dir, () => installApp(app, "database", session.context.log));
  if (installError) return { status: "failed", error: installError };
  const run = await runApp(session, subject, { warmup: 0, iterations: 1 });
  if (!run.outcome.ok) {
    const reason = UNSUPPORTED.exec(run.outcome.error)?.[1];
    if (reason !== undefined) return { status: "unsupported", error: reason };
    if (run.serverGone) {
      await forgetDeadServer(session.engines, run.serverGone);
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
    pool_size: engine === "postgres" ? poolSizeOf(subject) : "none: one connection",
    prepared_statements: app.manifest.prepared_statements,
    stall_timeout_s: STALL_S,
    app_dependencies: dependencyVersions(app),
    ...driver,
    ...(engine === "sqlite" ? { sqlite_pragmas: SQLITE_PRAGMAS } : { postgres_server: (await postgresEngine(session.engines)).server.description }),
    cpu_split: describeAssignment(session.split, engine === "sqlite" ? ["server"] : ["server", "database"]),
  };
  return error === null ? { status: "ok", verification, details } : { status: "failed", error, verification, details };
}

function percentile(sorted: readonly number[], p: number): number {
  // Nearest rank: the smallest sample with at least p % of the samples at or below it.
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (value: number, digits = 4) => Number(value.toFixed(digits));

async function trial(session: DatabaseSession, subject: DatabaseSubject, trialIndex: number): Promise<TrialOutput> {
  const profile = subject.scenario.profileParams;
  const run = await runApp(session, subject, { ...warmUpInput(profile), iterations: profile.iterations });
  if (run.serverGone) {
    await forgetDeadServer(session.engines, run.serverGone);
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
  const warm = warmUpRecord(report, trialIndex);
  return { samples: { ...samples, ...warm.samples }, details: { [`trial_${trialIndex + 1}_verification`]: verification, ...instructionsDetails([usage.instructions], trialIndex), ...warm.details } };
}

async function finish(session: DatabaseSession, subject: DatabaseSubject) {
  const running = session.engines.postgres.started();
  if (appOf(session.apps, subject).manifest.engine !== "postgres" || running === null) return {};
  const { server } = await running;
  return { tools: { postgres: server.version } };
}
