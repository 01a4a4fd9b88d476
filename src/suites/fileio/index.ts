import { mkdirSync, mkdtempSync } from "node:fs";
import { join, relative } from "node:path";
import { inputPath } from "../../../apps/fileio/shared/data.js";
import { appOption, appsOption, entryFile, listingOf, loadApps, selectApps, type App, unsupportedApp } from "../../apps/manifest.ts";
import { NoReproduction, UserError } from "../../core/errors.ts";
import type { ParamValue } from "../../core/params.ts";
import { cacheDir, REPO_ROOT } from "../../core/paths.ts";
import { suiteProfileOf, type Profile, type SuiteProfile } from "../../results/types.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { cpusOf, describeAssignment, machineAssignment, pinned, TASKSET_TOOL } from "../../tools/cpu-split.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { instructionsDetails } from "../../tools/perf.ts";
import { CPU_RESOLUTION_S } from "../../tools/proc-stats.ts";
import { expectedWarmUpIterations, runInProcessTrial, WARM_UP_METRICS, warmUpInput, warmUpRecord, warmUpText, type InProcessInput, type InProcessOutcome, type InProcessRequest, type InProcessWarmUp } from "../../tools/in-process.ts";
import { STRACE_TOOL } from "../../tools/strace.ts";
import { countedScenario, RUNTIME_PLACEHOLDER, TrialFailure, defineSuite, type CheckOutcome, type Subject, type SuiteContext, type SuiteScenario } from "../suite.ts";
import { countedIn, countFileio, countSeconds, FILEIO_COUNT_METRICS } from "./counts.ts";
import { bytesNeeded, type DataShape } from "./data.ts";
import { describeFilesystem, dropCachesRefusal, filesystemOf, freeBytes, type FilesystemInfo } from "./filesystem.ts";
import { amountOf, digestOf, OPERATIONS, trialPaths, Workspace, type Operation, type PreparedData, type TrialFolder } from "./workspace.ts";
import { inProcessApp } from "../in-process-app.ts";

/** The `fileio` block of a scenario manifest (schemas/suites/fileio.schema.json#/$defs/config). */
export interface FileioConfig {
  operation: Operation;
  variants?: { mode?: ("whole" | "stream")[]; fsync?: boolean[] };
}

/** A profile of a file I/O scenario (schemas/suites/fileio.schema.json#/$defs/profile). */
export interface FileioProfile extends InProcessWarmUp {
  trials: number;
  iterations: number;
  cache: ("warm" | "cold")[];
  concurrency: ("all" | number)[];
  files: number;
  file_bytes: number;
  large_mib: number;
  tree_packages: number;
  [key: string]: unknown;
}

type FileioApp = App<{ synchronous: boolean }>;
type FileioSubject = Subject<FileioConfig, FileioProfile>;

const TRIAL_TIMEOUT_MS = 10 * 60_000;
/** Room left free beside the data, for the results and everything else on the disk. */
const SPARE_BYTES = 100e6;

const shapeOf = (profile: FileioProfile): DataShape => ({
  files: profile.files,
  file_bytes: profile.file_bytes,
  large_bytes: profile.large_mib * 1024 * 1024,
  tree_packages: profile.tree_packages,
});

const PROFILES: Record<SuiteProfile, FileioProfile> = {
  quick: { trials: 2, warmup: 10, warmup_block: 2, warmup_tolerance: 0.1, iterations: 5, cache: ["warm"], concurrency: ["all"], files: 1000, file_bytes: 1024, large_mib: 32, tree_packages: 300 },
  full: { trials: 3, warmup: 20, warmup_block: 2, warmup_tolerance: 0.05, iterations: 5, cache: ["warm"], concurrency: [64], files: 10_000, file_bytes: 1024, large_mib: 256, tree_packages: 1200 },
};

const MANY_FILES: readonly Operation[] = ["read-many", "write-many"];

/** What each app's write includes (docs/suites/fileio.md says the same): a write is finished when the call returns. */
const WRITE_SEMANTICS = "closed, so handed to the operating system; fsync only where the result's params say fsync=true";

/** Refuses, in one line, to generate data the disk has no room for. */
function ensureSpace(root: string, profile: Profile, operation: Operation, shape: DataShape, blockBytes: number): void {
  const needed = bytesNeeded(operation, shape, blockBytes) + SPARE_BYTES;
  const free = freeBytes(root);
  if (free < needed) {
    const mb = (bytes: number) => `${Math.ceil(bytes / 1e6)} MB`;
    throw new UserError(`not enough free space in ${root} for the fileio suite's ${profile} profile: ${operation} needs ${mb(needed)} with ${mb(SPARE_BYTES)} to spare, ${mb(free)} free`);
  }
}

/**
 * Where the run's data goes: the run's work folder, unless that is on tmpfs (a "disk" benchmark
 * there measures memory copies); then a folder in the per-user cache, which lives on disk.
 */
function dataRoot(context: SuiteContext): string {
  if (!filesystemOf(context.workDir).tmpfs) {
    const root = join(context.workDir, "fileio");
    mkdirSync(root);
    return root;
  }
  mkdirSync(cacheDir(), { recursive: true });
  const root = mkdtempSync(join(cacheDir(), "fileio-data-"));
  context.log(`fileio: the run's work folder is on tmpfs; the file I/O data goes to ${root} instead`);
  return root;
}

/** The runtime's flags for a scenario and app: the scenario's, then the app's. */
function flagsOf(scenario: SuiteScenario<FileioConfig, FileioProfile>, app: FileioApp, runtime: RuntimeName): string[] {
  return [...(scenario.manifest.runtimes[runtime]?.flags ?? []), ...(app.manifest.runtimes[runtime]?.flags ?? [])];
}

/**
 * One app's load points in a scenario, one result each: the profile's page-cache states, its
 * concurrency levels (many-file operations, asynchronous apps only) and the scenario's variants.
 */
function pointsOf(scenario: SuiteScenario<FileioConfig, FileioProfile>, app: FileioApp): Record<string, ParamValue>[] {
  const profile = scenario.profileParams;
  const { operation, variants = {} } = scenario.config;
  let points: Record<string, ParamValue>[] = profile.cache.map((cache) => ({ cache }));
  const vary = (name: string, values: readonly ParamValue[]) => (points = points.flatMap((point) => values.map((value) => ({ ...point, [name]: value }))));
  if (MANY_FILES.includes(operation)) vary("concurrency", app.manifest.synchronous ? [1] : profile.concurrency);
  for (const [name, values] of Object.entries(variants)) vary(name, values);
  return points;
}

/**
 * Seconds of one iteration per unit it moves (a small file, an MB of the large file, a tree
 * entry), by operation: the mean iteration of every app and runtime in a quick run on the shared
 * 2-core machine (1,000 files of 1 KiB, 32 MiB, 5,018 entries), divided by its units.
 */
const UNIT_S: Record<Operation, number> = {
  "read-many": 4.1e-5,
  "write-many": 6.8e-4,
  "read-large": 6.6e-4,
  "write-large": 1.1e-3,
  "copy-large": 3.3e-4,
  "walk-tree": 2.7e-5,
};
/**
 * A fresh runtime process under GNU time besides its iterations: 0.21 s by hyperfine for the
 * same protocol's lightest process (the workers suite's), and the harness's own work around it.
 */
const PROCESS_S = 0.25;
/**
 * What a cold iteration adds: the page cache dropped (0.01–0.08 s when it holds little beyond
 * the data) and the data read from the disk again (256 MiB by cat after a drop: 0.56 s, against
 * 0.03 s warm). Many small files read cold are slower per byte: not measured.
 */
const COLD_S = 0.6;

/**
 * File I/O inside the runtime, through the in-process protocol: one fresh process per trial runs
 * the scenario's operation with one API family (an app) on the data the harness generated, checks
 * its digest against the harness's own, and the harness checks what it wrote afterwards.
 */
/**
 * A trial's failure as its process reported it. A wrong digest says that something differs, not
 * what: the harness names it where it can, the first written file that is wrong (it reads back
 * everything the app wrote), else the input the app read.
 */
async function explainFailure(outcome: Extract<InProcessOutcome, { ok: false }>, data: PreparedData, output: TrialFolder): Promise<string> {
  if (!outcome.wrongDigest) return outcome.error;
  const wrong = data.writes ? await output.check("every") : null;
  const where = wrong ?? (data.writes ? `the files written under ${output.paths.output} check out, so the digest was taken wrongly` : `what the app read from ${data.input ?? "its input"} differs from the files there`);
  return `${where}; ${outcome.error}`;
}

/** One app process's request on the prepared data and an empty output folder, behind `tracer` where a counted run gives one. */
function appRequest(
  context: SuiteContext,
  app: FileioApp,
  subject: FileioSubject,
  data: PreparedData,
  output: TrialFolder,
  counts: Pick<InProcessInput, "warmup" | "steady" | "iterations">,
  tracer: readonly string[] = [],
): InProcessRequest {
  return {
    argv: [...tracer, ...pinned(cpusOf(machineAssignment(), "server")), ...scriptArgv(subject.runtime, subject.flags, entryFile(app, subject.runtime.identity.name))],
    cwd: app.dir,
    env: runtimeEnv(subject.runtime, context.workDir),
    input: { params: { operation: data.operation, ...data.shape, ...subject.params, ...output.paths }, workDir: data.dir, ...counts },
    scratchDir: context.workDir,
    timeoutMs: TRIAL_TIMEOUT_MS,
    expectedDigest: data.digest,
  };
}

export const fileioSuite = defineSuite<FileioConfig, FileioProfile, { apps: readonly string[] }>({
  name: "fileio",
  metrics: {
    wall_ms: { unit: "ms", better: "lower" },
    throughput_mb_s: { unit: "MB/s", better: "higher" },
    ops_per_s: { unit: "ops/s", better: "higher" },
    peak_rss_mb: { unit: "MB", better: "lower" },
    cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    ...WARM_UP_METRICS,
    ...FILEIO_COUNT_METRICS,
  },
  profiles: PROFILES,
  tools: [GNU_TIME_TOOL, TASKSET_TOOL, STRACE_TOOL],
  options: { app: appOption("fileio") },
  // Every scenario with each runtime's own API: the other API families are measured by `run` and the profiles.
  defaultRun: { options: { app: ["native"] } },
  parseOptions: appsOption,

  estimate(scenario, runtime, options, keeps) {
    const { trials, iterations } = scenario.profileParams;
    const { operation } = scenario.config;
    const apps = selectApps(loadApps<{ synchronous: boolean }>("fileio"), options.apps).filter((app) => app.manifest.runtimes[runtime]);
    // Cold cells are measured only where this machine lets the page cache be dropped, as check() decides.
    const cold = dropCachesRefusal() === null;
    const measured = apps
      .flatMap((app) => pointsOf(scenario, app).map((params, i) => ({ params, counted: countedIn(scenario, i === 0) })))
      .filter(({ params }) => (params.cache === "warm" || cold) && keeps(params));
    const iterationS = amountOf(operation, shapeOf(scenario.profileParams)).perIteration * UNIT_S[operation];
    // A process runs the operation once to verify it, then its warm-up and measured iterations.
    // Generating the data, once per run, took 0.03–0.73 s a scenario in the quick run: one
    // iteration's time with each runtime stands for it.
    const runs = 1 + expectedWarmUpIterations(scenario.profileParams) + iterations;
    const opS = (params: Record<string, ParamValue>) => iterationS + (params.cache === "cold" ? COLD_S : 0);
    const countS = (params: Record<string, ParamValue>) => countSeconds(scenario.profileParams, PROCESS_S, opS(params), amountOf(operation, shapeOf(scenario.profileParams)).perIteration);
    const timedS = (measured.length > 0 ? iterationS : 0) + measured.reduce((sum, { params }) => sum + trials * (PROCESS_S + runs * opS(params)), 0);
    const countingSeconds = measured.reduce((sum, { params, counted }) => sum + (counted ? countS(params) : 0), 0);
    return { cells: measured.length, seconds: timedS + countingSeconds, countingSeconds };
  },

  reproduction(scenario, doc) {
    const app = loadApps<{ synchronous: boolean }>("fileio").find((candidate) => candidate.name === doc.app);
    if (!app) throw new NoReproduction(`the fileio suite has no app '${doc.app}'`);
    const { operation } = scenario.config;
    const shape = shapeOf(scenario.profileParams);
    const runtime = doc.runtime.name;
    return {
      // Every app of the suite (they are small): they share code beyond shared/ (native on Node is node-fs's API).
      ...inProcessApp(app, runtime, flagsOf(scenario, app, runtime), [join(app.dir, "..")]),
      input: {
        params: { operation, ...shape, ...doc.params, ...trialPaths(operation, inputPath(operation, "@WORK@/data/input"), "@WORK@/data/output") },
        ...warmUpInput(scenario.profileParams),
        iterations: scenario.profileParams.iterations,
      },
      // The headline metric (every fileio manifest's first), the one a finding is about.
      figure: { metric: "wall_ms", unit: "ms", sample: "wall_ms" },
      digest: digestOf(operation, shape),
      data: { command: [RUNTIME_PLACEHOLDER, `@HERE@/${relative(REPO_ROOT, join(app.dir, "..", "shared", "make-data.js"))}`, operation, JSON.stringify(shape), "@WORK@/data"] },
    };
  },

  listApps() {
    return listingOf(loadApps("fileio"));
  },

  start(context) {
    const apps: FileioApp[] = loadApps("fileio");
    const appOf = (subject: FileioSubject) => apps.find((app) => app.name === subject.app)!;
    const root = dataRoot(context);
    const filesystem: FilesystemInfo = describeFilesystem(root);
    const space = (operation: Operation, shape: DataShape) => ensureSpace(root, context.profile, operation, shape, filesystem.block_bytes);
    // Refuse before anything is generated when the suite's own profile cannot fit; each scenario's own shape is checked again before its data is generated.
    for (const operation of OPERATIONS) space(operation, shapeOf(PROFILES[suiteProfileOf(context.profile)]));
    const workspace = new Workspace(root, (operation, shape) => {
      space(operation, shape);
      context.log(`fileio: generating the ${operation} data in ${root}`);
    });
    const cacheRefusal = dropCachesRefusal();
    const trialsPassed = new Map<FileioSubject, number>();
    const prepare = (scenario: SuiteScenario<FileioConfig, FileioProfile>): Promise<PreparedData> =>
      workspace.prepare(scenario.dir, scenario.config.operation, shapeOf(scenario.profileParams));

    return {
      subjects(scenario: SuiteScenario<FileioConfig, FileioProfile>, runtime: IdentifiedRuntime) {
        const subjects: FileioSubject[] = [];
        for (const app of selectApps(apps, context.options.apps)) {
          // An app that does not run on this runtime still gets its params: its unsupported cells
          // then sit in the same series as the results of the runtimes it runs on.
          const flags = flagsOf(scenario, app, runtime.identity.name);
          pointsOf(scenario, app).forEach((params, i) => subjects.push({ scenario: countedScenario(scenario, FILEIO_COUNT_METRICS, countedIn(scenario, i === 0)), runtime, app: app.name, params, flags }));
        }
        return subjects;
      },

      async check(subject): Promise<CheckOutcome> {
        const app = appOf(subject);
        const unsupported = unsupportedApp(app, subject.runtime);
        if (unsupported !== null) return { status: "unsupported", error: unsupported };
        if (subject.params.cache === "cold" && cacheRefusal) return { status: "unsupported", error: cacheRefusal };
        const data = await prepare(subject.scenario);
        return {
          status: "ok",
          details: {
            filesystem,
            data_dir: workspace.root,
            page_cache: subject.params.cache,
            data: data.facts,
            ...(data.writes ? { writes: WRITE_SEMANTICS } : {}),
            warmup: warmUpText(subject.scenario.profileParams),
            iterations: subject.scenario.profileParams.iterations,
            cpu_split: describeAssignment(machineAssignment(), ["server"]),
          },
        };
      },

      async trial(subject, trialIndex) {
        const profile = subject.scenario.profileParams;
        const data = await prepare(subject.scenario);
        const output = await workspace.output(data);
        try {
          const outcome = await runInProcessTrial(appRequest(context, appOf(subject), subject, data, output, { ...warmUpInput(profile), iterations: profile.iterations }));
          if (!outcome.ok) throw new TrialFailure(await explainFailure(outcome, data, output), { stderr: outcome.stderr });
          const wrong = await output.check();
          if (wrong) throw new TrialFailure(`what the app wrote is wrong: ${wrong}`);
          trialsPassed.set(subject, (trialsPassed.get(subject) ?? 0) + 1);
          const wall = outcome.report.samples.wall_ms!;
          const chunks = outcome.report.samples.chunks;
          const warm = warmUpRecord(outcome.report, trialIndex);
          return {
            samples: {
              wall_ms: wall,
              [data.amount.metric]: wall.map((ms) => data.amount.perIteration / (ms / 1000)),
              peak_rss_mb: [outcome.usage.peakRssMb],
              cpu_s: [outcome.usage.cpuS],
              ...warm.samples,
            },
            details: { ...(chunks ? { chunks_per_read: chunks[0] } : {}), ...instructionsDetails([outcome.usage.instructions], trialIndex), ...warm.details },
          };
        } finally {
          await output.remove();
        }
      },

      count: async (subject) =>
        countFileio(subject, await prepare(subject.scenario), workspace, context.workDir, (data, output, iterations, tracer) =>
          runInProcessTrial(appRequest(context, appOf(subject), subject, data, output, { warmup: 0, iterations }, tracer)),
        ),

      // Every trial verified before it measured (its process's first run reported the harness's digest); this records it.
      async recheck(subject): Promise<CheckOutcome> {
        const data = await prepare(subject.scenario);
        return {
          status: "ok",
          verification: {
            status: "passed",
            digest: data.digest,
            trials_verified: trialsPassed.get(subject) ?? 0,
            how: "each trial's process ran the operation once and reported this SHA-256 before it measured; written files were checked by the harness after each trial",
          },
        };
      },

      close: () => workspace.close(),
    };
  },
});
