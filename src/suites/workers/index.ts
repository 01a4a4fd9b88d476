import { availableParallelism, cpus } from "node:os";
import { appOption, appsOption, dependencyVersions, entryFile, installApp, listingOf, loadApps, selectApps, unsupportedApp, type App } from "../../apps/manifest.ts";
import { NoReproduction, UserError } from "../../core/errors.ts";
import type { ParamValue } from "../../core/params.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { median, quantile } from "../../stats/summary.ts";
import { cpusOf, describeAssignment, machineAssignment, pinned, TASKSET_TOOL, type CpuRole } from "../../tools/cpu-split.ts";
import { CPU_RESOLUTION_S } from "../../tools/proc-stats.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { instructionsDetails } from "../../tools/perf.ts";
import { expectedWarmUpIterations, runInProcessTrial, WARM_UP_METRICS, warmUpInput, warmUpRecord, warmUpText, type InProcessInput, type InProcessRequest, type InProcessWarmUp } from "../../tools/in-process.ts";
import { STRACE_TOOL } from "../../tools/strace.ts";
import { countedScenario, TrialFailure, defineSuite, type CheckOutcome, type InProcessReproduction, type Subject, type SuiteContext, type SuiteScenario } from "../suite.ts";
import { countedIn, countSeconds, countWorkers, WORKERS_COUNT_METRICS } from "./counts.ts";
import { inProcessApp } from "../in-process-app.ts";

/** The `workers` block of a scenario manifest (schemas/suites/workers.schema.json#/$defs/config). */
export interface WorkersConfig {
  kind: "round-trip" | "throughput" | "parallel-primes";
  batches?: number[];
  payloads?: ("number" | "string" | "object" | "bytes")[];
  sizes?: number[];
  batch?: number;
  transfer?: boolean[];
  workers?: number[];
  bound?: number;
  expected?: number;
}

/** A profile of a workers scenario (schemas/suites/workers.schema.json#/$defs/profile). */
export interface WorkersProfile extends InProcessWarmUp {
  trials: number;
  iterations: number;
  [key: string]: unknown;
}

interface WorkersAppFields {
  transfer: boolean;
  unsupported?: Partial<Record<RuntimeName, string>>;
}

type WorkersApp = App<WorkersAppFields>;
type WorkersSubject = Subject<WorkersConfig, WorkersProfile>;

const TRIAL_TIMEOUT_MS = 10 * 60_000;
const MB = 1e6;

/** The load points of one scenario: one result each (per app and runtime). */
export function pointsOf(config: WorkersConfig): Record<string, ParamValue>[] {
  switch (config.kind) {
    case "round-trip":
      return config.batches!.flatMap((batch) => config.payloads!.map((payload) => ({ batch, payload })));
    case "throughput":
      return config.payloads!.flatMap((payload) =>
        config.sizes!.flatMap((size) =>
          // A string cannot be transferred, only copied.
          config.transfer!.filter((transfer) => payload === "bytes" || !transfer).map((transfer) => ({ payload, size, batch: config.batch!, transfer })),
        ),
      );
    case "parallel-primes":
      return config.workers!.map((workers) => ({ workers, bound: config.bound! }));
  }
}

/** What the app's verification run must report: it states what it checked (the checks themselves throw in the app). */
export function expectedDigest(config: WorkersConfig, params: Readonly<Record<string, ParamValue>>): string {
  switch (config.kind) {
    case "round-trip":
      return `echo ${params.batch} ${params.payload}`;
    case "throughput":
      return `ack ${params.batch} ${params.payload} ${params.size}${params.transfer ? " transferred" : ""}`;
    case "parallel-primes":
      return `primes below ${config.bound}: ${config.expected}`;
  }
}

/** What the app is given besides the iteration counts: the scenario's kind, the load point, and the answer a count must reach. */
function appParams(config: WorkersConfig, params: Readonly<Record<string, ParamValue>>): Record<string, unknown> {
  return { scenario: config.kind, ...params, ...(config.kind === "parallel-primes" ? { expected: config.expected } : {}) };
}

/** The runtime's flags for a scenario and app: the scenario's, then the app's. */
function flagsOf(scenario: SuiteScenario<WorkersConfig, WorkersProfile>, app: WorkersApp, runtime: RuntimeName): string[] {
  return [...(scenario.manifest.runtimes[runtime]?.flags ?? []), ...(app.manifest.runtimes[runtime]?.flags ?? [])];
}

/** The headline figure a standalone reproduction prints, from the app's own report (as metricsOf computes it). */
function reproFigure(config: WorkersConfig, params: Readonly<Record<string, ParamValue>>): InProcessReproduction["figure"] {
  switch (config.kind) {
    case "round-trip":
      return { metric: "rtt_us", unit: "µs", sample: "rtt_us" };
    case "throughput":
      return { metric: "throughput_mb_s", unit: "MB/s", rate: (Number(params.batch) * Number(params.size)) / MB };
    case "parallel-primes":
      return { metric: "speedup", unit: "×", sample: "speedup" };
  }
}

/**
 * The trial's samples by metric: one per measured iteration (its batch's median round trip, its
 * messages and megabytes per second, its speed-up), one per trial for the p99 and peak RSS.
 */
export function metricsOf(
  config: WorkersConfig,
  params: Readonly<Record<string, ParamValue>>,
  samples: Readonly<Record<string, readonly number[]>>,
  peakRssMb: number,
): Record<string, number[]> {
  const wall = [...samples.wall_ms!];
  const perSecond = (count: number) => wall.map((ms) => count / (ms / 1000));
  switch (config.kind) {
    case "round-trip": {
      const batch = Number(params.batch);
      const rtt = samples.rtt_us ?? [];
      if (rtt.length !== wall.length * batch) throw new TrialFailure(`the app reported ${rtt.length} round trips for ${wall.length} iterations of ${batch}`);
      return {
        rtt_us: wall.map((_, i) => median(rtt.slice(i * batch, (i + 1) * batch))),
        rtt_p99_us: [quantile(rtt, 0.99)],
        messages_per_s: perSecond(batch),
        peak_rss_mb: [peakRssMb],
      };
    }
    case "throughput": {
      const batch = Number(params.batch);
      return { throughput_mb_s: perSecond((batch * Number(params.size)) / MB), messages_per_s: perSecond(batch), peak_rss_mb: [peakRssMb] };
    }
    case "parallel-primes":
      return { speedup: [...samples.speedup!], efficiency: [...samples.efficiency!], wall_ms: wall, peak_rss_mb: [peakRssMb] };
  }
}


/**
 * One app's cells in a scenario on a runtime: its load points, or a single one without params
 * where the app does not run (an unsupported result, outside every series of load points).
 */
function appPoints(app: WorkersApp, config: WorkersConfig, runtime: RuntimeName): Record<string, ParamValue>[] {
  return app.manifest.runtimes[runtime] ? pointsOf(config) : [{}];
}

/** A point that moves buffers, on an app whose channel can only copy them. */
const untransferable = (app: WorkersApp, params: Readonly<Record<string, ParamValue>>) => params.transfer === true && !app.manifest.transfer;

/** Why a subject cannot be measured, or null. */
function unsupportedReason(app: WorkersApp, subject: WorkersSubject): string | null {
  const runtime = subject.runtime.identity.name;
  const notHere = unsupportedApp(app, subject.runtime);
  if (notHere) return app.manifest.runtimes[runtime] ? notHere : (app.manifest.unsupported?.[runtime] ?? notHere);
  if (untransferable(app, subject.params)) return `app ${app.name} copies every message: its channel has no way to transfer a buffer`;
  return null;
}

/**
 * What a trial costs besides its iterations: a fresh runtime process under GNU time, its workers
 * started, the verification exchange, the final checks and the threads' exit. hyperfine, 10 runs
 * of worker-threads' round-trip of one number (one iteration) under GNU time on the shared 2-core
 * machine: 0.21 s on node@22.11.0, bun@1.2.0 and deno@2.1.4 alike. With 0.25 s the quick run's
 * estimate was 36 % low (247 s against 386 s measured): the other apps start servers or shared
 * buffers, the harness spawns and reads each report. 0.65 s is what that run left per trial
 * once the iterations below are taken out.
 */
const PROCESS_S = 0.65;
/**
 * One message there and back (round-trip), or sent and acknowledged (throughput), besides its
 * bytes; and each byte copied (or moved) and fingerprinted. Fitted to the mean iteration time of
 * each batch and size over every app and runtime of a quick run (the slowest channels,
 * loopback-http above all, weigh most): 1 MiB × 64 took 0.9 s, 1 KiB × 64 11 ms.
 */
const MESSAGE_S = 2e-4;
const BYTE_S = 1.3e-8;
/** Counting whether one number below `bound` is prime, on one thread: one worker took 0.09 s below 10^6 in the same run. */
const PRIME_S = 9e-8;

/** Seconds of one iteration of a load point: its batch's messages, or the primes counted once by one worker and once by `workers`. */
function iterationS(config: WorkersConfig, params: Readonly<Record<string, ParamValue>>): number {
  switch (config.kind) {
    case "round-trip":
      return Number(params.batch) * MESSAGE_S;
    case "throughput":
      return Number(params.batch) * (MESSAGE_S + Number(params.size) * BYTE_S);
    case "parallel-primes":
      return config.bound! * PRIME_S * (1 + 1 / Math.min(Number(params.workers), availableParallelism()));
  }
}

const VERIFICATION_HOW =
  "each trial's process ran the exchange once before measuring, then checked every answer of every iteration outside the timed part " +
  "(echoes equal to what was sent, Uint8Arrays byte for byte; acknowledgements matching each payload's length and sampled elements; " +
  "transferred buffers detached from the sender; every prime count equal to the known value), checked that each worker was still alive at the end, " +
  "closed them and waited until no worker thread was left in the process";

/**
 * The CPUs a trial's process may use. Counting primes measures how work spreads over cores, so it
 * gets every core. A channel's messages measure what the runtime does per message, and there two
 * threads free to move between CPUs made each process land on one of two levels: on this VM a
 * string's round trip took 3.6–11 µs with both threads on one CPU and 65–78 µs across two (a
 * virtual CPU woken from idle), chosen by the scheduler once per process. The paired trials of a
 * quick run then differed 4×, and no two runtimes could be told apart; on one CPU every
 * process gave the same level (node 26.12.1 6.7–7.6 µs, bun 1.4.5 3.6–3.9 µs, six processes each).
 */
export const cpuRoleOf = (config: Pick<WorkersConfig, "kind">): CpuRole => (config.kind === "parallel-primes" ? "parallel" : "server");

/** One app process's request, behind `tracer` where a counted run gives one. */
function appRequest(context: SuiteContext, app: WorkersApp, subject: WorkersSubject, counts: Pick<InProcessInput, "warmup" | "steady" | "iterations">, tracer: readonly string[] = []): InProcessRequest {
  const config = subject.scenario.config;
  return {
    argv: [...tracer, ...pinned(cpusOf(machineAssignment(), cpuRoleOf(config))), ...scriptArgv(subject.runtime, subject.flags, entryFile(app, subject.runtime.identity.name))],
    cwd: app.dir,
    env: runtimeEnv(subject.runtime, context.workDir),
    input: { params: appParams(config, subject.params), workDir: context.workDir, ...counts },
    scratchDir: context.workDir,
    timeoutMs: TRIAL_TIMEOUT_MS,
    expectedDigest: expectedDigest(config, subject.params),
  };
}

/**
 * Passing messages between threads, inside the runtime through the in-process protocol: one fresh
 * process per trial runs the scenario (apps/workers/shared/scenarios.js) over one way of reaching
 * another thread (an app), checks every answer, and ends with no worker thread left.
 */
export const workersSuite = defineSuite<WorkersConfig, WorkersProfile, { apps: readonly string[] }>({
  name: "workers",
  metrics: {
    rtt_us: { unit: "µs", better: "lower" },
    rtt_p99_us: { unit: "µs", better: "lower" },
    messages_per_s: { unit: "msg/s", better: "higher" },
    throughput_mb_s: { unit: "MB/s", better: "higher" },
    speedup: { unit: "x", better: "higher" },
    efficiency: { unit: "fraction", better: "higher" },
    wall_ms: { unit: "ms", better: "lower" },
    peak_rss_mb: { unit: "MB", better: "lower" },
    /** User plus system CPU seconds of the whole process (every thread). */
    cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    ...WARM_UP_METRICS,
    ...WORKERS_COUNT_METRICS,
  },
  profiles: {
    quick: { trials: 1, warmup: 10, warmup_block: 2, warmup_tolerance: 0.1, iterations: 10 },
    full: { trials: 3, warmup: 50, warmup_block: 3, warmup_tolerance: 0.05, iterations: 100 },
  },
  tools: [GNU_TIME_TOOL, TASKSET_TOOL, STRACE_TOOL],
  options: { app: appOption("workers") },
  parseOptions: appsOption,
  // node:worker_threads, which all three runtimes have: the other channels are measured by `run` and the profiles.
  defaultRun: { options: { app: ["worker-threads"] } },

  async prepare(note) {
    for (const app of loadApps<WorkersAppFields>("workers")) {
      const failed = await installApp(app, "workers", note);
      if (failed) throw new UserError(failed);
    }
  },

  estimate(scenario, runtime, options, keeps) {
    const { trials, iterations } = scenario.profileParams;
    const warmup = expectedWarmUpIterations(scenario.profileParams);
    const apps = selectApps(loadApps<WorkersAppFields>("workers"), options.apps).filter((app) => app.manifest.runtimes[runtime]);
    const measured = apps.flatMap((app) =>
      appPoints(app, scenario.config, runtime)
        .map((params, i) => ({ params, counted: countedIn(scenario, i === 0) }))
        .filter(({ params }) => !untransferable(app, params) && keeps(params)),
    );
    // Each process runs the exchange once to verify it, then its warm-up and measured iterations.
    const timedS = measured.reduce((sum, { params }) => sum + trials * (PROCESS_S + (1 + warmup + iterations) * iterationS(scenario.config, params)), 0);
    const countS = (params: Readonly<Record<string, ParamValue>>) => countSeconds(scenario.config, params, scenario.profileParams, PROCESS_S, iterationS(scenario.config, params));
    const countingSeconds = measured.reduce((sum, { params, counted }) => sum + (counted ? countS(params) : 0), 0);
    return { cells: measured.length, seconds: timedS + countingSeconds, countingSeconds };
  },

  reproduction(scenario, doc) {
    const app = loadApps<WorkersAppFields>("workers").find((candidate) => candidate.name === doc.app);
    if (!app) throw new NoReproduction(`the workers suite has no app '${doc.app}'`);
    const runtime = doc.runtime.name;
    const { iterations } = scenario.profileParams;
    return {
      ...inProcessApp(app, runtime, flagsOf(scenario, app, runtime)),
      input: { params: appParams(scenario.config, doc.params), ...warmUpInput(scenario.profileParams), iterations },
      figure: reproFigure(scenario.config, doc.params),
      digest: expectedDigest(scenario.config, doc.params),
    };
  },

  listApps() {
    return listingOf(loadApps("workers"));
  },

  start(context) {
    const apps = loadApps<WorkersAppFields>("workers");
    const appOf = (subject: WorkersSubject) => apps.find((app) => app.name === subject.app)!;
    const installs = new Map<string, Promise<string | null>>();
    const trialsPassed = new Map<WorkersSubject, number>();
    const cpuCount = availableParallelism();

    return {
      subjects(scenario: SuiteScenario<WorkersConfig, WorkersProfile>, runtime: IdentifiedRuntime) {
        const subjects: WorkersSubject[] = [];
        for (const app of selectApps(apps, context.options.apps)) {
          const flags = flagsOf(scenario, app, runtime.identity.name);
          appPoints(app, scenario.config, runtime.identity.name).forEach((params, i) =>
            subjects.push({ scenario: countedScenario(scenario, WORKERS_COUNT_METRICS, countedIn(scenario, i === 0)), runtime, app: app.name, params, flags }),
          );
        }
        return subjects;
      },

      async check(subject): Promise<CheckOutcome> {
        const app = appOf(subject);
        const reason = unsupportedReason(app, subject);
        if (reason) return { status: "unsupported", error: reason };
        let pending = installs.get(app.dir);
        if (!pending) installs.set(app.dir, (pending = installApp(app, "workers", context.log)));
        const installError = await pending;
        if (installError) return { status: "failed", error: installError };
        const profile = subject.scenario.profileParams;
        const workers = subject.params.workers;
        return {
          status: "ok",
          details: {
            app_description: app.manifest.description,
            app_dependencies: dependencyVersions(app),
            // Thread counts beyond the CPUs measure sharing, not parallelism (fairness rule 27).
            cpu_count: cpuCount,
            cpu_model: cpus()[0]?.model ?? "unknown",
            ...(typeof workers === "number" ? { workers_beyond_cpus: workers > cpuCount } : {}),
            warmup: warmUpText(profile),
            iterations: profile.iterations,
            cpu_split: describeAssignment(machineAssignment(), [cpuRoleOf(subject.scenario.config)]),
          },
        };
      },

      async trial(subject, trialIndex) {
        const profile = subject.scenario.profileParams;
        const config = subject.scenario.config;
        const app = appOf(subject);
        const outcome = await runInProcessTrial(appRequest(context, app, subject, { ...warmUpInput(profile), iterations: profile.iterations }));
        if (!outcome.ok) throw new TrialFailure(outcome.error, { stderr: outcome.stderr });
        trialsPassed.set(subject, (trialsPassed.get(subject) ?? 0) + 1);
        const warm = warmUpRecord(outcome.report, trialIndex);
        return {
          samples: { ...metricsOf(config, subject.params, outcome.report.samples, outcome.usage.peakRssMb), cpu_s: [outcome.usage.cpuS], ...warm.samples },
          details: { ...instructionsDetails([outcome.usage.instructions], trialIndex), ...warm.details },
        };
      },

      count: (subject) => countWorkers(subject, (iterations, tracer) => runInProcessTrial(appRequest(context, appOf(subject), subject, { warmup: 0, iterations }, tracer)), context.workDir),

      // Every trial verified inside its process (an answer that is wrong fails the trial); this records it.
      async recheck(subject): Promise<CheckOutcome> {
        return {
          status: "ok",
          verification: {
            status: "passed",
            digest: expectedDigest(subject.scenario.config, subject.params),
            trials_verified: trialsPassed.get(subject) ?? 0,
            how: VERIFICATION_HOW,
          },
        };
      },
    };
  },
});
