import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError, errorMessage } from "../core/errors.ts";
import { SCHEMAS_DIR } from "../core/paths.ts";
import { allowedCpus, pinned, splitCpus, tasksetVersion, type CpuSplit } from "../http/cpu-split.ts";
import { appsDir, dependencyVersions, loadApps, selectApps, type HttpApp } from "../http/apps.ts";
import { groupUsage } from "../http/proc-stats.ts";
import { RunningServer, ServerFailure } from "../http/server.ts";
import { describeRequest, requestBody, verificationSummary, verifyServer, type ScenarioRequest, type VerifyStep } from "../http/verify.ts";
import type { ParamValue } from "../results/types.ts";
import type { Scenario } from "../scenarios/manifest.ts";
import { NPM_CI_STEP, runPrepareStep } from "../scenarios/prepare.ts";
import { gnuTimeVersion } from "../tools/gnu-time.ts";
import { LoadError, ohaVersion, runOha, type LoadOutcome, type LoadSpec } from "../tools/oha.ts";
import { runtimeEnv, scriptArgv } from "./command.ts";
import { TrialFailure, type CheckOutcome, type RunContext, type Subject, type SuiteRunner } from "./types.ts";

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
}

const schemaFile = JSON.parse(readFileSync(join(SCHEMAS_DIR, "suites/http.schema.json"), "utf8")) as {
  $defs: { config: object; profile: object; request: object };
};

const READY_TIMEOUT_MS = 30_000;
/** oha counts as client-bound when its CPU time reaches this share of (wall time × its CPUs). */
export const CLIENT_BOUND_SHARE = 0.9;
/** A fixed rate counts as sustained when at least this share of it was delivered. */
const RATE_SUSTAINED_SHARE = 0.95;

const configOf = (subject: Subject) => subject.scenario.suiteConfig as HttpConfig;

/** Apps are read once per apps folder; a malformed manifest is a UserError the first time. */
const appsByDir = new Map<string, HttpApp[]>();
function apps(): HttpApp[] {
  const dir = appsDir();
  let loaded = appsByDir.get(dir);
  if (!loaded) {
    loaded = loadApps(dir);
    appsByDir.set(dir, loaded);
  }
  return loaded;
}

function appOf(subject: Subject): HttpApp {
  return apps().find((app) => app.name === subject.app)!;
}

function cpuSplit(): CpuSplit | null {
  return splitCpus(allowedCpus());
}

/** The operation a subject puts under load: named in its params when the scenario has several. */
function operationOf(subject: Subject): Operation {
  const { operations } = configOf(subject);
  return operations.find((op) => op.name === subject.params.operation) ?? operations[0]!;
}

async function launch(subject: Subject, context: RunContext, cpus: readonly number[] | undefined): Promise<RunningServer> {
  const app = appOf(subject);
  const start = app.manifest.runtimes[subject.runtime.identity.name]!;
  const serverEnv = Object.fromEntries(
    Object.entries(configOf(subject).server_env ?? {}).map(([name, path]) => [name, join(subject.scenario.dir, path)]),
  );
  return RunningServer.start({
    argv: [...pinned(cpus), ...scriptArgv(subject, start.entry)],
    cwd: app.dir,
    env: { ...runtimeEnv(subject, context.workDir), ...serverEnv },
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
}

/** Facts about the server's output kept in a failed result. */
function failureDetails(error: unknown, server?: RunningServer): Record<string, unknown> {
  const output = error instanceof ServerFailure ? error.output : server?.output();
  return output ? { server_stdout: output.stdout, server_stderr: output.stderr } : {};
}

/** Starts a fresh server, sends the scenario's verification requests, stops it. */
async function verifyFresh(subject: Subject, context: RunContext): Promise<CheckOutcome> {
  let server: RunningServer | undefined;
  try {
    server = await launch(subject, context, undefined);
    const verification = await verifyServer(server.url, configOf(subject).verify, subject.scenario.dir);
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

/**
 * Verification of one app on one runtime for one scenario, done once per phase of a run: every
 * load point of that app shares the server code, so checking it again for each would only cost time.
 */
const verifications = new Map<string, Promise<CheckOutcome>>();
function verifyOnce(phase: "before" | "after", subject: Subject, context: RunContext): Promise<CheckOutcome> {
  const key = [context.workDir, phase, subject.scenario.dir, subject.runtime.identity.sha256, subject.app].join("\0");
  let pending = verifications.get(key);
  if (!pending) {
    pending = verifyFresh(subject, context);
    verifications.set(key, pending);
  }
  return pending;
}

/** Installs each app's lockfile once; a failed install fails that app's subjects only. */
const installs = new Map<string, Promise<string | null>>();
function installOnce(app: HttpApp, note: (line: string) => void): Promise<string | null> {
  let pending = installs.get(app.dir);
  if (!pending) {
    pending = (async () => {
      try {
        if (Object.keys(dependencyVersions(app)).length > 0) await runPrepareStep(app.dir, NPM_CI_STEP, `http app ${app.name}`, note);
        return null;
      } catch (error) {
        return errorMessage(error);
      }
    })();
    installs.set(app.dir, pending);
  }
  return pending;
}

/** The result's load description: everything that shapes what the server sees. */
function loadDetails(subject: Subject, profile: HttpProfile, split: CpuSplit | null): Record<string, unknown> {
  const operation = operationOf(subject);
  const app = appOf(subject);
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

/** Client-bound flags of every trial so far, per subject: a result is client-bound if any trial was. */
const clientBoundTrials = new WeakMap<Subject, boolean[]>();

async function measure(subject: Subject, context: RunContext, server: RunningServer, split: CpuSplit | null) {
  const profile = context.profileParams as unknown as HttpProfile;
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
 * HTTP servers under oha. A subject is one app on one runtime at one load point (operation,
 * connection count, keep-alive); each trial starts a fresh server pinned to its own CPU, warms it
 * up under load, measures throughput with that many connections, then latency at the scenario's
 * fixed arrival rate over the same connections, reads the server's CPU and memory from /proc, and
 * stops the whole process tree.
 */
export const httpRunner: SuiteRunner = {
  suite: "http",
  schemas: { config: { ...schemaFile.$defs.config, $defs: schemaFile.$defs }, profile: schemaFile.$defs.profile },

  async toolVersions() {
    return { oha: await ohaVersion(), "gnu-time": await gnuTimeVersion(), taskset: await tasksetVersion() };
  },

  async prepare(note) {
    for (const app of apps()) {
      const failed = await installOnce(app, note);
      if (failed) throw new UserError(failed);
    }
  },

  subjects(scenario: Scenario, runtime, context) {
    const profile = context.profileParams as unknown as HttpProfile;
    const { operations } = scenario.suiteConfig as HttpConfig;
    const subjects: Subject[] = [];
    for (const app of selectApps(apps(), context.apps ?? [])) {
      const start = app.manifest.runtimes[runtime.identity.name];
      const flags = [...(scenario.manifest.runtimes[runtime.identity.name]?.flags ?? []), ...(start?.flags ?? [])];
      if (!start) {
        subjects.push({ scenario, runtime, app: app.name, params: {}, flags });
        continue;
      }
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

  async check(subject, context) {
    const app = appOf(subject);
    const runtime = subject.runtime.identity.name;
    if (!app.manifest.runtimes[runtime]) return { status: "unsupported", error: `app ${app.name} does not run on ${runtime}` };
    const installError = await installOnce(app, context.log);
    if (installError) return { status: "failed", error: installError };
    const outcome = await verifyOnce("before", subject, context);
    const profile = context.profileParams as unknown as HttpProfile;
    return outcome.status === "ok" ? { ...outcome, details: loadDetails(subject, profile, cpuSplit()) } : outcome;
  },

  async trial(subject, context, trialIndex) {
    const split = cpuSplit();
    let server: RunningServer | undefined;
    try {
      server = await launch(subject, context, split?.server);
      const measured = await measure(subject, context, server, split);
      const flags = [...(clientBoundTrials.get(subject) ?? []), measured.clientBound];
      clientBoundTrials.set(subject, flags);
      return {
        samples: measured.samples,
        details: { client_bound: flags.some(Boolean), client_bound_trials: flags.filter(Boolean).length, [`trial_${trialIndex + 1}`]: measured.facts },
      };
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

  recheck(subject, context) {
    return verifyOnce("after", subject, context);
  },

  listApps() {
    return apps().map((app) => ({ name: app.name, runtimes: Object.keys(app.manifest.runtimes) }));
  },
};
