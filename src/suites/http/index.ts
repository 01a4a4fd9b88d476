import { join } from "node:path";
import { NoReproduction, UserError } from "../../core/errors.ts";
import { once } from "../../core/once.ts";
import { OnDemand } from "../../core/on-demand.ts";
import { appOption, appsOption, dependencyVersions, entryFile, installApp, listingOf, loadApps, selectApps, type App, unsupportedApp } from "../../apps/manifest.ts";
import type { ParamValue } from "../../core/params.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import type { PrepareStep } from "../../scenarios/prepare.ts";
import { cpusOf, describeAssignment, machineAssignment, pinned, TASKSET_TOOL, type CpuAssignment } from "../../tools/cpu-split.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { CPU_RESOLUTION_S, groupThreads, groupUsage } from "../../tools/proc-stats.ts";
import { RunningServer, ServerFailure, serverFailureDetails, serverTrial } from "../../tools/server.ts";
import { expectedWarmUpS, UnsteadyTrials, warmUpFigures, type WarmUpProfile } from "../../tools/warm-up.ts";
import { STRACE_TOOL } from "../../tools/strace.ts";
import { countedScenario, defineSuite, type CheckOutcome, type Subject, type SuiteContext, type SuiteScenario } from "../suite.ts";
import { POSTGRES_TOOL, PostgresFailure } from "../../tools/postgres.ts";
import { startHttpDatabase, verifyUsersApi, type HttpDatabase } from "./database.ts";
import { countedIn, countHttp, countSeconds, HTTP_COUNT_METRICS } from "./counts.ts";
import { checkLoad, loadBase, operationOf, warmServer } from "./load.ts";
import { LoadError, OHA_TOOL, ohaArgs, runOha, type LoadOutcome } from "./oha.ts";
import { describeRequest, requestBody, verificationSummary, verifyServer, type ScenarioRequest, type Verification, type VerifyStep } from "./verify.ts";

interface Operation {
  name: string;
  request: ScenarioRequest;
  status: number;
}

/** The `http` block of a scenario manifest (schemas/suites/http.schema.json#/$defs/config). */
export interface HttpConfig {
  server_env?: Record<string, string>;
  /** The table the apps serve from the run's PostgreSQL (DATABASE_URL), restored before every server start. */
  database?: "users" | "fortune";
  operations: Operation[];
  verify: VerifyStep[];
}

/** A profile of an HTTP scenario (schemas/suites/http.schema.json#/$defs/profile). */
export interface HttpProfile extends WarmUpProfile {
  trials: number;
  duration_s: number;
  connections: number[];
  keepalive: boolean[];
  /** One fixed arrival rate, or several: each its own series. */
  rate: number | number[];
  rate_duration_s: number;
  /** Rising fixed rates tried in turn: the highest one delivered with p99 within `p99_bound_ms` is `max_sustained_rps`. */
  rate_ladder?: number[];
  p99_bound_ms?: number;
  [key: string]: unknown;
}

/**
 * app.json's http fields: `scenarios` names the only scenarios an app serves (and a scenario some
 * app names is served by those apps alone); `default_run` marks the apps `scripts/bench` measures.
 */
export type HttpAppFields = { processes: number; scenarios?: string[]; default_run?: boolean; build?: PrepareStep };
type HttpApp = App<HttpAppFields>;
type HttpSubject = Subject<HttpConfig, HttpProfile>;

const READY_TIMEOUT_MS = 30_000;
const round3 = (value: number) => Math.round(value * 1000) / 1000;
/** A reproduction's load: one phase, long enough for a steady figure on any machine. */
const REPRO_LOAD_S = 10;
const REPRO_WARMUP_S = 2;
/** oha counts as client-bound when its CPU time reaches this share of (wall time × its CPUs). */
export const CLIENT_BOUND_SHARE = 0.9;
/** A fixed rate counts as sustained when at least this share of it was delivered. */
const RATE_SUSTAINED_SHARE = 0.95;


/**
 * The scenario as each load point measures it: only a scenario with a database measures the
 * database server's CPU, and the rate ladder runs once per load point, in the series of the first
 * fixed rate (`laddered`; the other rates are `unladdered`).
 */
function measuredScenarios(scenario: SuiteScenario<HttpConfig, HttpProfile>): { laddered: SuiteScenario<HttpConfig, HttpProfile>; unladdered: SuiteScenario<HttpConfig, HttpProfile> } {
  const { database_cpu_s: _database, ...withoutDatabase } = scenario.metrics;
  const own = scenario.config.database ? scenario : { ...scenario, metrics: withoutDatabase };
  const { max_sustained_rps: _ladder, ...withoutLadder } = own.metrics;
  const unladdered = { ...own, metrics: withoutLadder };
  return { laddered: scenario.profileParams.rate_ladder ? own : unladdered, unladdered };
}

/** The runtime's flags for a scenario and app: the scenario's, then the app's. */
function flagsOf(scenario: SuiteScenario<HttpConfig, HttpProfile>, app: HttpApp, runtime: RuntimeName): string[] {
  return [...(scenario.manifest.runtimes[runtime]?.flags ?? []), ...(app.manifest.runtimes[runtime]?.flags ?? [])];
}

/** The variables a scenario gives its server: files of the scenario, by absolute path. */
function serverEnvOf(scenario: SuiteScenario<HttpConfig, HttpProfile>): Record<string, string> {
  return Object.fromEntries(Object.entries(scenario.config.server_env ?? {}).map(([name, path]) => [name, join(scenario.dir, path)]));
}

/** Why an app does not serve a scenario, or null when it does. */
export function notServed(app: HttpApp, scenario: string, apps: readonly HttpApp[]): string | null {
  const listed = app.manifest.scenarios;
  if (listed) return listed.includes(scenario) ? null : `app ${app.name} serves only ${listed.join(", ")}`;
  const dedicated = apps.filter((other) => other.manifest.scenarios?.includes(scenario)).map((other) => other.name);
  return dedicated.length > 0 ? `scenario ${scenario} is served only by the apps made for it: ${dedicated.join(", ")}` : null;
}

/** The chosen apps that serve a scenario: an app has no cells on a scenario it does not serve. */
function servingApps(apps: readonly HttpApp[], wanted: readonly string[], scenario: string): HttpApp[] {
  return selectApps(apps, wanted).filter((app) => notServed(app, scenario, apps) === null);
}

async function launch(subject: HttpSubject, app: HttpApp, context: SuiteContext, cpus: readonly number[] | undefined, db: HttpDatabase | null): Promise<RunningServer> {
  const serverEnv = serverEnvOf(subject.scenario);
  return RunningServer.start({
    argv: [...pinned(cpus), ...scriptArgv(subject.runtime, subject.flags, entryFile(app, subject.runtime.identity.name))],
    cwd: app.dir,
    env: { ...runtimeEnv(subject.runtime, context.workDir), ...serverEnv, ...(db ? { DATABASE_URL: db.url } : {}) },
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
}


/** Both verifications as one: the scenario's steps, then the checks against the database. */
function joined(first: Verification, second: Verification): Verification {
  const failures = [...first.failures, ...second.failures];
  return { status: failures.length > 0 ? "failed" : "passed", requests: first.requests + second.requests, failures, responses: [...first.responses, ...second.responses] };
}

/** Starts a fresh server (on a restored database), sends the scenario's verification requests, stops it. */
async function verifyFresh(subject: HttpSubject, app: HttpApp, context: SuiteContext, db: HttpDatabase | null): Promise<CheckOutcome> {
  let server: RunningServer | undefined;
  try {
    await db?.restore();
    server = await launch(subject, app, context, undefined, db);
    let verification = await verifyServer(server.url, subject.scenario.config.verify, subject.scenario.dir);
    if (db && subject.scenario.config.database === "users" && verification.status === "passed") verification = joined(verification, await verifyUsersApi(server.url, db));
    if (verification.status === "passed") return { status: "ok", verification };
    const exited = server.exited;
    return {
      status: "failed",
      error: exited ? `${verificationSummary(verification)}; the server ${exited}` : verificationSummary(verification),
      verification,
      details: serverFailureDetails(undefined, server),
    };
  } catch (error) {
    // A database that cannot be restored fails this check, not the run.
    if (!(error instanceof ServerFailure || error instanceof PostgresFailure)) throw error;
    return { status: "failed", error: error.message, verification: { status: "failed", error: error.message }, details: serverFailureDetails(error) };
  } finally {
    await server?.stop();
  }
}


/** The result's load description: everything that shapes what the server sees. */
function loadDetails(subject: HttpSubject, app: HttpApp, split: CpuAssignment): Record<string, unknown> {
  const operation = operationOf(subject.scenario.config, subject.params);
  const profile = subject.scenario.profileParams;
  return {
    request: describeRequest(operation.request),
    expected_status: operation.status,
    accept_encoding: "identity",
    keepalive: subject.params.keepalive,
    connections: subject.params.connections,
    rate: subject.params.rate,
    warmup: `windows of ${profile.warmup_window_s} s until the last ${profile.warmup_block} agree within ${profile.warmup_tolerance * 100} % with one another and with the ${profile.warmup_block} before, at most ${profile.warmup_max_s} s`,
    duration_s: profile.duration_s,
    rate_duration_s: profile.rate_duration_s,
    cpu_split: describeAssignment(split, subject.scenario.config.database ? ["server", "client", "database"] : ["server", "client"]),
    client_threads: cpusOf(split, "client")?.length ?? 1,
    app_processes: app.manifest.processes,
    app_dependencies: dependencyVersions(app),
  };
}

async function measure(subject: HttpSubject, context: SuiteContext, server: RunningServer, split: CpuAssignment, db: HttpDatabase | null) {
  const profile = subject.scenario.profileParams;
  const operation = operationOf(subject.scenario.config, subject.params);
  const base = loadBase(subject, server.url, split);
  const gate = (phase: string, outcome: LoadOutcome) => checkLoad(server, operation.status, phase, outcome);

  const warm = await warmServer(subject, server, split, context.workDir);
  const reached = warmUpFigures(warm, profile.warmup_block);

  const throughput = await runOha({ ...base, durationS: profile.duration_s }, context.workDir);
  const throughputCount = gate("throughput", throughput);
  const clientCpuS = throughput.usage.userS + throughput.usage.systemS;
  const clientBound = clientCpuS >= CLIENT_BOUND_SHARE * throughput.usage.elapsedS * base.threads;

  const before = groupUsage(server.pid);
  const databaseBefore = db?.server.cpuS() ?? 0;
  const rate = Number(subject.params.rate);
  const fixed = await runOha({ ...base, durationS: profile.rate_duration_s, rate }, context.workDir);
  const after = groupUsage(server.pid);
  const threads = groupThreads(server.pid);
  const databaseCpuS = (db?.server.cpuS() ?? 0) - databaseBefore;
  const fixedCount = gate("fixed-rate", fixed);
  const achieved = fixedCount.good / fixed.report.totalS;
  const ms = (seconds: number) => Math.round(seconds * 1e6) / 1e3;

  // Up the ladder until a rate is not delivered or its p99 exceeds the bound; the last one that passed counts.
  let maxSustained: number | undefined;
  const ladder: { rate: number; achieved_rps: number; latency_p99_ms: number; passed: boolean }[] = [];
  if (subject.scenario.metrics.max_sustained_rps && profile.rate_ladder && profile.p99_bound_ms !== undefined) {
    maxSustained = 0;
    for (const step of [...profile.rate_ladder].sort((a, b) => a - b)) {
      const outcome = await runOha({ ...base, durationS: profile.rate_duration_s, rate: step }, context.workDir);
      const counted = gate("rate-ladder", outcome);
      const stepAchieved = counted.good / outcome.report.totalS;
      const p99 = ms(outcome.report.latencyS.p99);
      const passed = stepAchieved >= RATE_SUSTAINED_SHARE * step && p99 <= profile.p99_bound_ms;
      ladder.push({ rate: step, achieved_rps: stepAchieved, latency_p99_ms: p99, passed });
      if (!passed) break;
      maxSustained = step;
    }
  }

  return {
    samples: {
      rps: [throughputCount.good / throughput.report.totalS],
      latency_p50_ms: [ms(fixed.report.latencyS.p50)],
      latency_p90_ms: [ms(fixed.report.latencyS.p90)],
      latency_p99_ms: [ms(fixed.report.latencyS.p99)],
      latency_p999_ms: [ms(fixed.report.latencyS.p999)],
      success_rate: [(throughputCount.good + fixedCount.good) / (throughputCount.total + fixedCount.total)],
      server_peak_rss_mb: [after.peakRssMb],
      server_cpu_s: [Math.round((after.cpuS - before.cpuS) * 100) / 100],
      client_cpu_s: [Math.round(clientCpuS * 100) / 100],
      ...(db ? { database_cpu_s: [Math.round(databaseCpuS * 100) / 100] } : {}),
      ...(maxSustained === undefined ? {} : { max_sustained_rps: [maxSustained] }),
      reach_90_s: [round3(reached.reach90S)],
      reach_90_requests: [reached.reach90Count],
      first_second_rps: [reached.firstSecondRate],
    },
    clientBound,
    steady: warm.steady,
    facts: {
      warmup: {
        steady: warm.steady,
        seconds: round3(warm.seconds),
        window_rps: warm.windows.map((w) => Math.round(w.count / w.seconds)),
        level_rps: Math.round(reached.level),
      },
      server_threads: threads,
      throughput: {
        requests: throughputCount.good,
        seconds: throughput.report.totalS,
        client_cpu_s: clientCpuS,
        client_wall_s: throughput.usage.elapsedS,
        client_bound: clientBound,
        saturated_latency_p99_ms: ms(throughput.report.latencyS.p99),
      },
      fixed_rate: { target_rps: rate, achieved_rps: achieved, sustained: achieved >= RATE_SUSTAINED_SHARE * rate },
      ...(maxSustained === undefined ? {} : { rate_ladder: { p99_bound_ms: profile.p99_bound_ms, steps: ladder } }),
    },
  };
}

/**
 * What a trial costs beyond its load phases (start a server, wait until it answers, stop its
 * process tree), and what one verification costs (the same, plus the scenario's requests): from a
 * quick run on the shared 2-core development machine (docs/measurements.json, "plan-accuracy").
 */
const SERVER_LIFECYCLE_S = 1.5;
const VERIFICATION_S = 2;

/**
 * Warm-up until steady: half-second windows of load at the measured connection count; quick
 * calls a server steady when two windows agree within 5 % with each other and with the two
 * before (2 s at least), full when they agree within 3 %, for 20 s at most (its ten trials must
 * leave the release job room for adaptive trials: tests/unit/selection.test.ts). How these compare
 * with a server warmed up by hand for 10 s: docs/measurements.json, "steady-state".
 */
const WARM_UP_WINDOW_S = 0.5;
const QUICK_WARM_UP: WarmUpProfile = { warmup_window_s: WARM_UP_WINDOW_S, warmup_block: 2, warmup_tolerance: 0.05, warmup_max_s: 10 };
const FULL_WARM_UP: WarmUpProfile = { warmup_window_s: WARM_UP_WINDOW_S, warmup_block: 2, warmup_tolerance: 0.03, warmup_max_s: 20 };

/** A scenario's load points in the order they are measured: each operation (named where it has several), connection count, keep-alive and rate. */
function loadPointsOf(scenario: SuiteScenario<HttpConfig, HttpProfile>): Record<string, ParamValue>[] {
  const profile = scenario.profileParams;
  const { operations } = scenario.config;
  return operations.flatMap((operation) =>
    profile.connections.flatMap((connections) =>
      profile.keepalive.flatMap((keepalive) => [profile.rate].flat().map((rate) => ({ connections, keepalive, rate, ...(operations.length > 1 ? { operation: operation.name } : {}) }))),
    ),
  );
}

/**
 * HTTP servers under oha. A subject is one app on one runtime at one load point (operation,
 * connection count, keep-alive); each trial starts a fresh server pinned to its own CPU, warms it
 * up under load, measures throughput with that many connections, then latency at the scenario's
 * fixed arrival rate over the same connections, reads the server's CPU and memory from /proc, and
 * stops the whole process tree.
 */
export const httpSuite = defineSuite<HttpConfig, HttpProfile, { apps: readonly string[] }>({
  name: "http",
  metrics: {
    rps: { unit: "req/s", better: "higher", client_limited: "oha" },
    latency_p50_ms: { unit: "ms", better: "lower" },
    latency_p90_ms: { unit: "ms", better: "lower" },
    latency_p99_ms: { unit: "ms", better: "lower" },
    latency_p999_ms: { unit: "ms", better: "lower" },
    success_rate: { unit: "fraction", better: "higher" },
    server_peak_rss_mb: { unit: "MB", better: "lower" },
    server_cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    client_cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    /** CPU time of the PostgreSQL server during the fixed-rate phase, for scenarios with a database. */
    database_cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    /** The highest rate of the profile's rate_ladder delivered with p99 within its p99_bound_ms. */
    max_sustained_rps: { unit: "req/s", better: "higher", client_limited: "oha" },
    // How fast a fresh server reaches its speed (src/tools/warm-up.ts): to the end of the first
    // warm-up window at 90 % of its steady level, known to the window's length.
    reach_90_s: { unit: "s", better: "lower", resolution: WARM_UP_WINDOW_S },
    reach_90_requests: { unit: "requests", better: "lower" },
    first_second_rps: { unit: "req/s", better: "higher", client_limited: "oha" },
    ...HTTP_COUNT_METRICS,
  },
  profiles: {
    // Quick measures 2 s, not less: a longer window averages more of a shared host's swings. It
    // cannot lift a client-bound cell (a 2-CPU machine's one oha thread against Bun), whose rps
    // follows oha's own rate: that flipped between 84k and 102k req/s within seconds here.
    quick: { trials: 2, ...QUICK_WARM_UP, duration_s: 2, connections: [10], keepalive: [true], rate: 1000, rate_duration_s: 0.8 },
    full: { trials: 10, ...FULL_WARM_UP, duration_s: 2, connections: [100], keepalive: [true], rate: 1000, rate_duration_s: 2 },
  },
  tools: [OHA_TOOL, GNU_TIME_TOOL, TASKSET_TOOL, POSTGRES_TOOL, STRACE_TOOL],
  options: { app: appOption("http") },
  // Three scenarios without a database, each on the app its manifest marks for the default run: a
  // server warmed up until steady costs seconds a trial, and the database-backed scenarios (api-db,
  // crud, fortunes, each with an operation per load point), compute and static would take the
  // default run past 10 minutes; they and the other frameworks are measured by `run`. Read when asked for, so that a
  // broken app manifest fails only the commands that load the apps.
  get defaultRun() {
    return {
      scenarios: ["json", "plaintext", "json-large"],
      options: { app: loadApps<HttpAppFields>("http").filter((app) => app.manifest.default_run).map((app) => app.name) },
    };
  },
  parseOptions: appsOption,

  async prepare(note) {
    for (const app of loadApps<HttpAppFields>("http")) {
      const failed = await installApp(app, "http", note, app.manifest.build ? [app.manifest.build] : []);
      if (failed) throw new UserError(failed);
    }
  },

  estimate(scenario, runtime, options, keeps) {
    const profile = scenario.profileParams;
    const all = loadApps<HttpAppFields>("http");
    const apps = servingApps(all, options.apps, scenario.name).filter((app) => app.manifest.runtimes[runtime]);
    const points = loadPointsOf(scenario).filter(keeps);
    const firstRate = [profile.rate].flat()[0];
    const trialS = SERVER_LIFECYCLE_S + expectedWarmUpS(profile) + profile.duration_s + profile.rate_duration_s;
    // The rate ladder climbs in the first rate's cells, at most every step (it stops at the first step missed).
    const ladderS = scenario.metrics.max_sustained_rps && profile.rate_ladder ? profile.rate_ladder.length * profile.rate_duration_s : 0;
    const pointsS = points.reduce((sum, params) => sum + profile.trials * (trialS + (params.rate === firstRate ? ladderS : 0)), 0);
    const countingSeconds = countedIn(scenario) ? apps.length * points.length * countSeconds(profile) : 0;
    // Each app is verified once before its load points and once after, whatever their number.
    const verificationS = points.length > 0 ? 2 * VERIFICATION_S : 0;
    return { cells: apps.length * points.length, seconds: apps.length * (pointsS + verificationS) + countingSeconds, countingSeconds };
  },

  reproduction(scenario, doc) {
    const app = loadApps<HttpAppFields>("http").find((candidate) => candidate.name === doc.app);
    if (!app) throw new NoReproduction(`the http suite has no app '${doc.app}'`);
    if (scenario.config.database) throw new NoReproduction(`http/${scenario.name} needs its PostgreSQL database, which a standalone reproduction does not start`);
    const operation = operationOf(scenario.config, doc.params);
    const body = requestBody(operation.request);
    const runtime = doc.runtime.name;
    const load = (durationS: number) =>
      ohaArgs({
        request: { method: operation.request.method, url: `{url}${operation.request.path}`, ...(body === undefined ? {} : { body }) },
        connections: Number(doc.params.connections),
        keepalive: doc.params.keepalive === true,
        threads: 1,
        durationS,
        pin: [],
      });
    return {
      kind: "server",
      folders: [app.dir, join(app.dir, "..", "shared")],
      appDir: app.dir,
      entry: entryFile(app, runtime),
      flags: flagsOf(scenario, app, runtime),
      env: serverEnvOf(scenario),
      load: { tool: "oha", warmupArgs: load(REPRO_WARMUP_S), args: load(REPRO_LOAD_S), metric: "rps", unit: "req/s" },
    };
  },

  listApps() {
    return listingOf(loadApps("http"));
  },

  start(context) {
    const apps = loadApps<HttpAppFields>("http");
    const appOf = (subject: HttpSubject) => apps.find((app) => app.name === subject.app)!;
    const installs = new Map<string, Promise<string | null>>();
    // Every load point of one app on one runtime shares the server code: verified once per phase.
    const verifications = new Map<string, Promise<CheckOutcome>>();
    const verifyOnce = (phase: "before" | "after", subject: HttpSubject) =>
      once(verifications, [phase, subject.scenario.dir, subject.runtime.identity.sha256, subject.app].join("\0"), async () =>
        verifyFresh(subject, appOf(subject), context, await databaseOf(subject)),
      );
    // Started by the first subject whose scenario has a database; stopped by close().
    const database = new OnDemand("the HTTP suite's PostgreSQL", () => startHttpDatabase(context.workDir, cpusOf(machineAssignment(), "database"), context.log));
    const databaseOf = (subject: HttpSubject): Promise<HttpDatabase | null> => (subject.scenario.config.database ? database.get() : Promise.resolve(null));
    // A fresh server on a restored database (restored outside any timed region, so every trial and counting pass starts from the same table).
    const launchRestored = async (subject: HttpSubject, split: CpuAssignment) => {
      const db = await databaseOf(subject);
      await db?.restore();
      return { db, server: await launch(subject, appOf(subject), context, cpusOf(split, "server"), db) };
    };
    // Scenarios already reported as served by none of the chosen apps: once, not once per runtime.
    const unservedNoted = new Set<string>();
    // Client-bound flags of every trial so far, per subject: a result is client-bound if any trial was.
    const clientBoundTrials = new Map<HttpSubject, boolean[]>();
    const unsteady = new UnsteadyTrials<HttpSubject>(context.log);

    return {
      subjects(scenario: SuiteScenario<HttpConfig, HttpProfile>, runtime: IdentifiedRuntime) {
        const subjects: HttpSubject[] = [];
        const { laddered, unladdered } = measuredScenarios(scenario);
        const firstRate = [scenario.profileParams.rate].flat()[0];
        const serving = servingApps(apps, context.options.apps, scenario.name);
        if (serving.length === 0 && !unservedNoted.has(scenario.name)) {
          unservedNoted.add(scenario.name);
          const servers = apps.filter((app) => notServed(app, scenario.name, apps) === null).map((app) => app.name);
          context.log(`http/${scenario.name}: none of the chosen apps serves it, so nothing is measured (served by ${servers.join(", ")})`);
        }
        for (const app of serving) {
          // An app that does not run on this runtime still gets its load points: its unsupported
          // cells then sit in the same series as the results of the runtimes it runs on.
          const flags = flagsOf(scenario, app, runtime.identity.name);
          for (const params of loadPointsOf(scenario)) {
            subjects.push({ scenario: countedScenario(params.rate === firstRate ? laddered : unladdered, HTTP_COUNT_METRICS, countedIn(scenario)), runtime, app: app.name, params, flags });
          }
        }
        return subjects;
      },

      async check(subject) {
        const app = appOf(subject);
        const unsupported = unsupportedApp(app, subject.runtime);
        if (unsupported !== null) return { status: "unsupported", error: unsupported };
        const installError = await once(installs, app.dir, () => installApp(app, "http", context.log, app.manifest.build ? [app.manifest.build] : []));
        if (installError) return { status: "failed", error: installError };
        const outcome = await verifyOnce("before", subject);
        return outcome.status === "ok" ? { ...outcome, details: loadDetails(subject, app, machineAssignment()) } : outcome;
      },

      async trial(subject, trialIndex) {
        const split = machineAssignment();
        let db: HttpDatabase | null = null;
        const launched = async () => {
          const started = await launchRestored(subject, split);
          return ((db = started.db), started.server);
        };
        const measured = await serverTrial(launched, (server) => measure(subject, context, server, split, db), [LoadError, PostgresFailure]);
        clientBoundTrials.set(subject, [...(clientBoundTrials.get(subject) ?? []), measured.clientBound]);
        const cell = `http/${subject.scenario.name} ${subject.app} ${subject.runtime.identity.name}@${subject.runtime.identity.version} trial ${trialIndex + 1}`;
        unsteady.note(subject, measured.steady, cell, subject.scenario.profileParams.warmup_max_s);
        return { samples: measured.samples, details: { [`trial_${trialIndex + 1}`]: measured.facts } };
      },

      count: (subject) => countHttp(subject, context.workDir, async (split) => (await launchRestored(subject, split)).server),

      recheck: (subject) => verifyOnce("after", subject),

      async finish(subject) {
        const flags = clientBoundTrials.get(subject) ?? [];
        // Never started here: a subject that was not measured (unsupported, failed check) may finish first.
        const db = subject.scenario.config.database ? await database.started()?.catch(() => null) : null;
        return {
          details: {
            client_bound: flags.some(Boolean),
            client_bound_by: flags.some(Boolean) ? ["oha"] : [],
            client_bound_trials: flags.filter(Boolean).length,
            never_steady_trials: unsteady.count(subject),
            ...(db ? { database: { ...db.server.description, restored: "before every server start (verification and each trial), outside the timed region" } } : {}),
          },
          ...(db ? { tools: { postgres: db.server.version } } : {}),
        };
      },

      async close() {
        const db = await database.close()?.catch(() => null);
        if (!db) return;
        await db.database.drop().catch(() => {});
        await db.server.stop();
      },
    };
  },
});
