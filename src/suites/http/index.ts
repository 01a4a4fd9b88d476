import { join } from "node:path";
import { errorMessage, UserError } from "../../core/errors.ts";
import { once } from "../../core/once.ts";
import { appOption, appsOption, dependencyVersions, entryFile, loadApps, selectApps, type App, unsupportedApp } from "../../apps/manifest.ts";
import type { ParamValue } from "../../results/types.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import { NPM_CI_STEP, runPrepareStep } from "../../scenarios/prepare.ts";
import { allowedCpus, pinned, splitCpus, TASKSET_TOOL, type CpuSplit } from "../../tools/cpu-split.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { groupUsage } from "../../tools/proc-stats.ts";
import { RunningServer, ServerFailure } from "../../tools/server.ts";
import { TrialFailure, defineSuite, type CheckOutcome, type Subject, type SuiteContext, type SuiteScenario } from "../suite.ts";
import { LoadError, OHA_TOOL, runOha, type LoadOutcome, type LoadSpec } from "./oha.ts";
import { describeRequest, requestBody, verificationSummary, verifyServer, type ScenarioRequest, type VerifyStep } from "./verify.ts";

interface Operation {
  name: string;
  request: ScenarioRequest;
  status: number;
}

/** The `http` block of a scenario manifest (schemas/suites/http.schema.json#/$defs/config). */
export interface HttpConfig {
  server_env?: Record<string, string>;
  operations: Operation[];
  verify: VerifyStep[];
}

/** A profile of an HTTP scenario (schemas/suites/http.schema.json#/$defs/profile). */
export interface HttpProfile {
  trials: number;
  warmup_s: number;
  duration_s: number;
  connections: number[];
  keepalive: boolean[];
  rate: number;
  rate_duration_s: number;
  [key: string]: unknown;
}

type HttpApp = App<{ processes: number }>;
type HttpSubject = Subject<HttpConfig, HttpProfile>;

const READY_TIMEOUT_MS = 30_000;
/** oha counts as client-bound when its CPU time reaches this share of (wall time × its CPUs). */
export const CLIENT_BOUND_SHARE = 0.9;
/** A fixed rate counts as sustained when at least this share of it was delivered. */
const RATE_SUSTAINED_SHARE = 0.95;

function cpuSplit(): CpuSplit | null {
  return splitCpus(allowedCpus());
}

/** The operation a subject puts under load: named in its params when the scenario has several. */
function operationOf(subject: HttpSubject): Operation {
  const { operations } = subject.scenario.config;
  return operations.find((op) => op.name === subject.params.operation) ?? operations[0]!;
}

async function launch(subject: HttpSubject, app: HttpApp, context: SuiteContext, cpus: readonly number[] | undefined): Promise<RunningServer> {
  const serverEnv = Object.fromEntries(
    Object.entries(subject.scenario.config.server_env ?? {}).map(([name, path]) => [name, join(subject.scenario.dir, path)]),
  );
  return RunningServer.start({
    argv: [...pinned(cpus), ...scriptArgv(subject.runtime, subject.flags, entryFile(app, subject.runtime.identity.name))],
    cwd: app.dir,
    env: { ...runtimeEnv(subject.runtime, context.workDir), ...serverEnv },
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
}

/** Facts about the server's output kept in a failed result. */
function failureDetails(error: unknown, server?: RunningServer): Record<string, unknown> {
  const output = error instanceof ServerFailure ? error.output : server?.output();
  return output ? { server_stdout: output.stdout, server_stderr: output.stderr } : {};
}

/** Starts a fresh server, sends the scenario's verification requests, stops it. */
async function verifyFresh(subject: HttpSubject, app: HttpApp, context: SuiteContext): Promise<CheckOutcome> {
  let server: RunningServer | undefined;
  try {
    server = await launch(subject, app, context, undefined);
    const verification = await verifyServer(server.url, subject.scenario.config.verify, subject.scenario.dir);
    if (verification.status === "passed") return { status: "ok", verification };
    const exited = server.exited;
    return {
      status: "failed",
      error: exited ? `${verificationSummary(verification)}; the server ${exited}` : verificationSummary(verification),
      verification,
      details: failureDetails(undefined, server),
    };
  } catch (error) {
    if (!(error instanceof ServerFailure)) throw error;
    return { status: "failed", error: error.message, verification: { status: "failed", error: error.message }, details: failureDetails(error) };
  } finally {
    await server?.stop();
  }
}

/** Installs an app's lockfile; a failed install fails that app's subjects only (the message), or null. */
async function install(app: HttpApp, note: (line: string) => void): Promise<string | null> {
  try {
    if (Object.keys(dependencyVersions(app)).length > 0) await runPrepareStep(app.dir, NPM_CI_STEP, `http app ${app.name}`, note);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

/** The result's load description: everything that shapes what the server sees. */
function loadDetails(subject: HttpSubject, app: HttpApp, split: CpuSplit | null): Record<string, unknown> {
  const operation = operationOf(subject);
  const profile = subject.scenario.profileParams;
  return {
    request: describeRequest(operation.request),
    expected_status: operation.status,
    accept_encoding: "identity",
    keepalive: subject.params.keepalive,
    connections: subject.params.connections,
    rate: subject.params.rate,
    warmup_s: profile.warmup_s,
    duration_s: profile.duration_s,
    rate_duration_s: profile.rate_duration_s,
    cpu_split: split ? { server: split.server.join(","), client: split.client.join(",") } : "none: one CPU, server and oha share it",
    client_threads: split ? split.client.length : 1,
    app_processes: app.manifest.processes,
    app_dependencies: dependencyVersions(app),
  };
}

/** Requests answered with the expected status, and everything else oha saw (other statuses, errors). */
function tally(outcome: LoadOutcome, status: number): { good: number; total: number; unexpected: Record<string, number> } {
  const { statusCodes, errors } = outcome.report;
  const unexpected: Record<string, number> = {};
  for (const [code, count] of Object.entries(statusCodes)) if (Number(code) !== status) unexpected[`status ${code}`] = count;
  for (const [error, count] of Object.entries(errors)) unexpected[error] = count;
  const good = statusCodes[String(status)] ?? 0;
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0) + Object.values(errors).reduce((a, b) => a + b, 0);
  return { good, total, unexpected };
}

async function measure(subject: HttpSubject, context: SuiteContext, server: RunningServer, split: CpuSplit | null) {
  const profile = subject.scenario.profileParams;
  const operation = operationOf(subject);
  const body = requestBody(operation.request);
  const base: Omit<LoadSpec, "durationS"> = {
    request: { method: operation.request.method, url: server.url + operation.request.path, ...(body === undefined ? {} : { body }) },
    connections: Number(subject.params.connections),
    keepalive: subject.params.keepalive === true,
    threads: split ? split.client.length : 1,
    pin: pinned(split?.client),
  };
  const gate = (phase: string, outcome: LoadOutcome) => {
    const counted = tally(outcome, operation.status);
    if (server.exited) throw new ServerFailure(`server ${server.exited} during ${phase}`, server.output());
    if (counted.good === 0 || Object.keys(counted.unexpected).length > 0) {
      throw new TrialFailure(`${phase}: ${counted.good} of ${counted.total} requests answered ${operation.status}`, {
        [`${phase}_unexpected`]: counted.unexpected,
        ...failureDetails(undefined, server),
      });
    }
    return counted;
  };

  gate("warmup", await runOha({ ...base, durationS: profile.warmup_s }, context.workDir));

  const throughput = await runOha({ ...base, durationS: profile.duration_s }, context.workDir);
  const throughputCount = gate("throughput", throughput);
  const clientCpuS = throughput.usage.userS + throughput.usage.systemS;
  const clientBound = clientCpuS >= CLIENT_BOUND_SHARE * throughput.usage.elapsedS * base.threads;

  const before = groupUsage(server.pid);
  const fixed = await runOha({ ...base, durationS: profile.rate_duration_s, rate: profile.rate }, context.workDir);
  const after = groupUsage(server.pid);
  const fixedCount = gate("fixed-rate", fixed);
  const achieved = fixedCount.good / fixed.report.totalS;
  const ms = (seconds: number) => Math.round(seconds * 1e6) / 1e3;

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
    },
    clientBound,
    facts: {
      throughput: {
        requests: throughputCount.good,
        seconds: throughput.report.totalS,
        client_cpu_s: clientCpuS,
        client_wall_s: throughput.usage.elapsedS,
        client_bound: clientBound,
        saturated_latency_p99_ms: ms(throughput.report.latencyS.p99),
      },
      fixed_rate: { target_rps: profile.rate, achieved_rps: achieved, sustained: achieved >= RATE_SUSTAINED_SHARE * profile.rate },
    },
  };
}

/**
 * What a trial costs beyond its load phases (start a server, wait until it answers, stop its
 * process tree), and what one verification costs (the same, plus the scenario's requests): from a
 * quick run on the shared 2-core development machine (README, "What a run costs").
 */
const SERVER_LIFECYCLE_S = 1.5;
const VERIFICATION_S = 2;

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
    rps: { unit: "req/s", better: "higher" },
    latency_p50_ms: { unit: "ms", better: "lower" },
    latency_p90_ms: { unit: "ms", better: "lower" },
    latency_p99_ms: { unit: "ms", better: "lower" },
    latency_p999_ms: { unit: "ms", better: "lower" },
    success_rate: { unit: "fraction", better: "higher" },
    server_peak_rss_mb: { unit: "MB", better: "lower" },
    server_cpu_s: { unit: "s", better: "lower" },
    client_cpu_s: { unit: "s", better: "lower" },
  },
  profiles: {
    quick: { trials: 2, warmup_s: 0.3, duration_s: 0.8, connections: [10], keepalive: [true], rate: 1000, rate_duration_s: 0.8 },
    full: { trials: 5, warmup_s: 3, duration_s: 10, connections: [10, 100, 256], keepalive: [true], rate: 1000, rate_duration_s: 10 },
  },
  tools: [OHA_TOOL, GNU_TIME_TOOL, TASKSET_TOOL],
  options: { app: appOption("http") },
  // Each scenario on each runtime's own server: the frameworks are measured by `run` and the profiles.
  defaultRun: { options: { app: ["native"] } },
  parseOptions: appsOption,

  async prepare(note) {
    for (const app of loadApps<{ processes: number }>("http")) {
      const failed = await install(app, note);
      if (failed) throw new UserError(failed);
    }
  },

  estimate(scenario, runtime, options) {
    const profile = scenario.profileParams;
    const apps = selectApps(loadApps<{ processes: number }>("http"), options.apps).filter((app) => app.manifest.runtimes[runtime]);
    const loadPoints = scenario.config.operations.length * profile.connections.length * profile.keepalive.length;
    const trialS = SERVER_LIFECYCLE_S + profile.warmup_s + profile.duration_s + profile.rate_duration_s;
    // Each app is verified once before its load points and once after, whatever their number.
    return { cells: apps.length * loadPoints, seconds: apps.length * (loadPoints * profile.trials * trialS + 2 * VERIFICATION_S) };
  },

  listApps() {
    return loadApps<{ processes: number }>("http").map((app) => ({ name: app.name, runtimes: Object.keys(app.manifest.runtimes) }));
  },

  start(context) {
    const apps = loadApps<{ processes: number }>("http");
    const appOf = (subject: HttpSubject) => apps.find((app) => app.name === subject.app)!;
    const installs = new Map<string, Promise<string | null>>();
    // Every load point of one app on one runtime shares the server code: verified once per phase.
    const verifications = new Map<string, Promise<CheckOutcome>>();
    const verifyOnce = (phase: "before" | "after", subject: HttpSubject) =>
      once(verifications, [phase, subject.scenario.dir, subject.runtime.identity.sha256, subject.app].join("\0"), () =>
        verifyFresh(subject, appOf(subject), context),
      );
    // Client-bound flags of every trial so far, per subject: a result is client-bound if any trial was.
    const clientBoundTrials = new Map<HttpSubject, boolean[]>();

    return {
      subjects(scenario: SuiteScenario<HttpConfig, HttpProfile>, runtime: IdentifiedRuntime) {
        const profile = scenario.profileParams;
        const { operations } = scenario.config;
        const subjects: HttpSubject[] = [];
        for (const app of selectApps(apps, context.options.apps)) {
          // An app that does not run on this runtime still gets its load points: its unsupported
          // cells then sit in the same series as the results of the runtimes it runs on.
          const start = app.manifest.runtimes[runtime.identity.name];
          const flags = [...(scenario.manifest.runtimes[runtime.identity.name]?.flags ?? []), ...(start?.flags ?? [])];
          for (const operation of operations) {
            for (const connections of profile.connections) {
              for (const keepalive of profile.keepalive) {
                const params: Record<string, ParamValue> = { connections, keepalive, rate: profile.rate };
                if (operations.length > 1) params.operation = operation.name;
                subjects.push({ scenario, runtime, app: app.name, params, flags });
              }
            }
          }
        }
        return subjects;
      },

      async check(subject) {
        const app = appOf(subject);
        const unsupported = unsupportedApp(app, subject.runtime);
        if (unsupported !== null) return { status: "unsupported", error: unsupported };
        const installError = await once(installs, app.dir, () => install(app, context.log));
        if (installError) return { status: "failed", error: installError };
        const outcome = await verifyOnce("before", subject);
        return outcome.status === "ok" ? { ...outcome, details: loadDetails(subject, app, cpuSplit()) } : outcome;
      },

      async trial(subject, trialIndex) {
        const split = cpuSplit();
        let server: RunningServer | undefined;
        try {
          server = await launch(subject, appOf(subject), context, split?.server);
          const measured = await measure(subject, context, server, split);
          const flags = [...(clientBoundTrials.get(subject) ?? []), measured.clientBound];
          clientBoundTrials.set(subject, flags);
          return { samples: measured.samples, details: { [`trial_${trialIndex + 1}`]: measured.facts } };
        } catch (error) {
          if (error instanceof TrialFailure) throw error;
          if (error instanceof ServerFailure || error instanceof LoadError) {
            throw new TrialFailure(error.message, failureDetails(error, server));
          }
          throw error;
        } finally {
          await server?.stop();
        }
      },

      recheck: (subject) => verifyOnce("after", subject),

      async finish(subject) {
        const flags = clientBoundTrials.get(subject) ?? [];
        return { details: { client_bound: flags.some(Boolean), client_bound_trials: flags.filter(Boolean).length } };
      },
    };
  },
});
