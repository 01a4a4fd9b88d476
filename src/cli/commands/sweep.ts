import { cpus } from "node:os";
import { resolve } from "node:path";
import semver from "semver";
import { UserError } from "../../core/errors.ts";
import { checkNamedFolder } from "../../core/json-file.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { verdictText } from "../../compare/format.ts";
import { readEnvironment } from "../../env/fingerprint.ts";
import { liveMachine, parseMaxLoad, waitForQuiet } from "../../env/machine-check.ts";
import { RunnerCoverage, cutShort } from "../../history/coverage.ts";
import { narrowingRuns } from "../../history/narrow.ts";
import { chainLinks, linkLabel, parseGranularity, releasesBetween, selectReleases, windowed, type Granularity, type RuntimeRelease } from "../../history/select.ts";
import { declaredMetrics } from "./validate.ts";
import { collectStaged, earlierRuns, keepRuns, linkJob, sideBySideJob, stageJob, sweepWorkDir } from "../../history/stage.ts";
import type { PlanJob } from "../../collect/collect.ts";
import type { RunOutcome } from "../../orchestrate/execute.ts";
import { jobKey, nextRuns, paceOf, pendingJobs, runSweep, type Chain, type JobCost, type SweepHooks, type SweepJob, type SweepPlan, type SweepReport } from "../../history/sweep.ts";
import { planRun } from "../../orchestrate/estimate.ts";
import { noteLoadedTree } from "../../orchestrate/run-info.ts";
import { isInterrupted } from "../../process/children.ts";
import { publishedReleases, type Release } from "../../releases/published.ts";
import { BENCH_RUNNERS_FILE, chooseTestbed, cpuModelMatches, loadBenchConfig, type BenchMachine, type ReferenceTestbed } from "../../releases/runners.ts";
import type { Profile } from "../../results/types.ts";
import { RUNTIME_NAMES, isRuntimeName, releaseNotes, type RuntimeName } from "../../runtimes/catalog.ts";
import { prepareRuntimes } from "../../runtimes/prepare.ts";
import { cachedBinary } from "../../runtimes/provision.ts";
import { parseSpec } from "../../runtimes/spec.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { resolveScenarios } from "../../suites/resolve.ts";
import { commandLineSelection, type Selection } from "../../suites/selection.ts";
import { formatDuration, parseDuration } from "../../ui/duration.ts";
import { formatTable } from "../../ui/table.ts";
import { count } from "../../ui/words.ts";
import { defineCommand, type ParsedValues } from "../command.ts";
import { parseProfile, parseTrialBudget, parseTrials, runBenchmarks } from "./run.ts";
import { setupAll } from "./setup.ts";

/**
 * What a sweep measures each link in by default: the quick profile at its own trials, with the
 * adaptive trials two releases of one runtime get, each link taking all its looks. Why, and what it
 * can detect: docs/history.md, "The profile".
 */
const SWEEP_PROFILE: Profile = "quick";

/** One runtime of a sweep: a window of its releases, or the releases named one by one. */
interface RuntimeChoice {
  readonly runtime: RuntimeName;
  /** Named releases (`--runtime node@22.11.0`, repeated), or null for the window's selection. */
  readonly versions: string[] | null;
}

interface SweepRequest {
  readonly runtimes: readonly RuntimeChoice[];
  readonly since?: Date;
  readonly from: ReadonlyMap<RuntimeName, string>;
  readonly to: ReadonlyMap<RuntimeName, string>;
  readonly every: Granularity;
  readonly profile: Profile;
  readonly trials?: number;
  /** Extra trials the adaptive rule may add in each run of the sweep; undefined: each cell's cap. */
  readonly trialBudget?: number;
  readonly selection: Selection;
  readonly dataDir: string;
  readonly testbed: ReferenceTestbed;
  readonly machines: readonly BenchMachine[];
  readonly timeLimit?: number;
  readonly maxLoad: number;
  readonly narrow: boolean;
  readonly againBefore?: Date;
  /** One run of each runtime's newest release side by side instead of the chains. */
  readonly sideBySide: boolean;
}

/** `--runtime node` (the window's releases) or `--runtime node@22.11.0`, repeated: those releases. */
function parseRuntimes(texts: readonly string[]): RuntimeChoice[] {
  const choices = new Map<RuntimeName, string[] | null>();
  for (const text of texts) {
    if (isRuntimeName(text)) {
      if (choices.get(text)) throw new UserError(`sweep: --runtime ${text} and --runtime ${text}@VERSION: give the window or the releases, not both`);
      choices.set(text, null);
      continue;
    }
    const spec = parseSpec(text);
    if (spec.request.kind !== "exact") throw new UserError(`sweep: --runtime '${text}': give a runtime (node) or an exact release (node@22.11.0)`);
    if (choices.get(spec.name) === null) throw new UserError(`sweep: --runtime ${spec.name} and --runtime ${text}: give the window or the releases, not both`);
    choices.set(spec.name, [...(choices.get(spec.name) ?? []), spec.request.version]);
  }
  return [...choices].map(([runtime, versions]) => ({ runtime, versions: versions === null ? null : semver.sort([...new Set(versions)]) }));
}

/** `--from node@20.0.0`: a bound of one runtime's window. */
function parseBounds(texts: readonly string[] | undefined, option: string): Map<RuntimeName, string> {
  return new Map(
    (texts ?? []).map((text) => {
      const spec = parseSpec(text);
      if (spec.request.kind !== "exact") throw new UserError(`sweep: ${option} '${text}': give a runtime and a version, such as node@20.0.0`);
      return [spec.name, spec.request.version] as const;
    }),
  );
}

/** `--again-before`: a time already past, or every run this sweep measures would count as before it and be measured again on resuming. */
function parseAgainBefore(text: string | undefined, now: number): Date | undefined {
  if (text === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) throw new UserError(`sweep: --again-before '${text}': expected a date or a time in UTC, such as 2026-11-29 or 2026-11-29T00:20Z`);
  if (time > now) throw new UserError(`sweep: --again-before '${text}' is later than now: this sweep's own runs would count as earlier and be measured again each time it resumed`);
  return new Date(time);
}

function parseSince(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const date = new Date(text.length === 7 ? `${text}-01` : text);
  if (!/^\d{4}-\d{2}(-\d{2})?/.test(text) || Number.isNaN(date.getTime())) throw new UserError(`sweep: --since '${text}': expected a month or a date, such as 2024-06 or 2024-06-15`);
  return date;
}

const SWEEP_OPTIONS = {
  plan: { type: "boolean" },
  runtime: { type: "string", multiple: true },
  since: { type: "string" },
  from: { type: "string", multiple: true },
  to: { type: "string", multiple: true },
  every: { type: "string" },
  profile: { type: "string" },
  trials: { type: "string" },
  "trial-budget": { type: "string" },
  suite: { type: "string", multiple: true },
  scenario: { type: "string", multiple: true },
  data: { type: "string" },
  testbed: { type: "string" },
  runners: { type: "string" },
  "time-limit": { type: "string" },
  "max-load": { type: "string" },
  "no-narrow": { type: "boolean" },
  "again-before": { type: "string" },
  "side-by-side": { type: "boolean" },
} as const;

function parseRequest(values: ParsedValues<typeof SWEEP_OPTIONS>): SweepRequest {
  const config = loadBenchConfig(values.runners === undefined ? BENCH_RUNNERS_FILE : resolve(values.runners));
  const profile = parseProfile(values.profile ?? SWEEP_PROFILE);
  if (profile === "smoke") throw new UserError("sweep: the smoke profile runs one trial, and a link's paired verdict needs two: use quick or full");
  // Its default may be absent (the first sweep makes it); a named one absent would be priced as if nothing were measured.
  checkNamedFolder("sweep: --data", values.data, "make it first to start a history there");
  const scenarios = values.scenario ?? [];
  const trials = parseTrials(values.trials, profile);
  const runtimes = parseRuntimes(values.runtime ?? [...RUNTIME_NAMES]);
  const from = parseBounds(values.from, "--from");
  const sideBySide = values["side-by-side"] ?? false;
  if (sideBySide && (values.every !== undefined || values["no-narrow"])) throw new UserError("sweep: --side-by-side measures each runtime's newest release once, with no chain to sample (--every) or narrow (--no-narrow)");
  const unbounded = values.since === undefined && !sideBySide ? runtimes.find((choice) => choice.versions === null && !from.has(choice.runtime)) : undefined;
  if (unbounded !== undefined) {
    const name = unbounded.runtime;
    throw new UserError(`sweep: ${name}: give a window (--since DATE or --from ${name}@VERSION) or name its releases (--runtime ${name}@VERSION, repeated): all its releases would be hundreds of links`);
  }
  return {
    runtimes,
    since: parseSince(values.since),
    from,
    to: parseBounds(values.to, "--to"),
    every: parseGranularity(values.every),
    profile,
    ...(trials !== undefined ? { trials } : {}),
    ...(values["trial-budget"] !== undefined ? { trialBudget: parseTrialBudget(values["trial-budget"]) } : {}),
    // The default selection, as the release job measures it, unless scenarios are named.
    selection: commandLineSelection({ ...values, "default-selection": scenarios.length === 0 }),
    dataDir: resolve(values.data ?? DEFAULT_DATA_DIR),
    testbed: chooseTestbed(config.testbeds, values.testbed),
    machines: [...config.runners, ...config.testbeds],
    ...(values["time-limit"] !== undefined ? { timeLimit: parseDuration(values["time-limit"], "--time-limit") } : {}),
    maxLoad: parseMaxLoad(values["max-load"], "sweep"),
    narrow: !values["no-narrow"],
    ...(values["again-before"] !== undefined ? { againBefore: parseAgainBefore(values["again-before"], Date.now()) } : {}),
    sideBySide,
  };
}

type ResolvedChains = {
  chains: (Chain & { runtime: RuntimeName })[];
  releases: Map<RuntimeName, Release[]>;
  /** Each chosen scenario's version in this checkout, by `suite/name`: what a run measures today. */
  scenarioVersion: (scenario: string) => number;
};

/**
 * Each runtime's chain, with its published releases (for the releases between a link's two).
 * `leftOut` (`deno@2.3.0`): releases a window's selection passes over, as if never published.
 */
async function resolveChains(request: SweepRequest, leftOut: ReadonlyMap<string, RuntimeRelease> = new Map()): Promise<ResolvedChains> {
  const selected = selectScenarios({ suites: request.selection.suites, scenarios: request.selection.scenarios });
  const releases = new Map<RuntimeName, Release[]>();
  const chains = [];
  for (const choice of request.runtimes) {
    const published = (await publishedReleases(choice.runtime, request.testbed.arch)).filter((r) => choice.versions !== null || !leftOut.has(`${choice.runtime}@${r.version}`));
    releases.set(choice.runtime, published);
    const known = new Set(published.map((r) => r.version));
    const missing = choice.versions?.find((version) => !known.has(version));
    if (missing !== undefined) throw new UserError(`sweep: ${choice.runtime}@${missing} is not published for ${request.testbed.arch}`);
    const window = { since: request.since, from: request.from.get(choice.runtime), to: request.to.get(choice.runtime) };
    const versions = choice.versions ?? selectReleases(choice.runtime, published, window, request.every);
    if (versions.length < 2) throw new UserError(`sweep: ${choice.runtime}: ${versions.length === 0 ? "no release" : `only ${versions[0]}`} in the selection; a chain needs two releases`);
    const scenarios = selected.filter((s) => s.manifest.runtimes[choice.runtime] !== undefined).map((s) => `${s.suite}/${s.name}`);
    if (scenarios.length === 0) throw new UserError(`sweep: ${choice.runtime}: none of the chosen scenarios runs on it`);
    chains.push({ runtime: choice.runtime, links: chainLinks(choice.runtime, versions), scenarios });
  }
  const versions = new Map(selected.map((s) => [`${s.suite}/${s.name}`, s.manifest.version]));
  return { chains, releases, scenarioVersion: (scenario) => versions.get(scenario)! };
}

/** What a sweep measures: the chains, and the releases between two of a runtime that narrowing bisects. */
function sweepPlan(request: SweepRequest, { chains, releases, scenarioVersion }: ResolvedChains): SweepPlan {
  return { chains, between: (link) => releasesBetween(releases.get(link.runtime) ?? [], link), narrow: request.narrow, scenarioVersion };
}

/** Releases of a window left out because their binary was refused (deno 2.3.0): published, but not measurable here. */
type LeftOut = readonly RuntimeRelease[];

/**
 * The chains with every release downloaded and verified before the first link, so that no link
 * stops on a download. A release of a window whose binary is refused (the registry's deno 2.3.0
 * reports 2.4.0) is left out, saying why, and the selection is taken again without it: the next
 * release of its line stands in. A release named with --runtime NAME@VERSION is refused as bad input.
 */
async function provisionedChains(request: SweepRequest): Promise<ResolvedChains & { leftOut: LeftOut }> {
  const leftOut = new Map<string, RuntimeRelease>();
  const verified = new Set<string>();
  const note = (line: string) => process.stderr.write(`sweep: ${line}\n`);
  for (;;) {
    const resolved = await resolveChains(request, leftOut);
    const releases = resolved.chains.flatMap((chain) => [chain.links[0]!.from, ...chain.links.map((link) => link.to)].map((version) => ({ runtime: chain.runtime, version })));
    const refused = await firstRefused(releases.filter((release) => !verified.has(specOf(release))), verified, note);
    if (refused === null) return { ...resolved, leftOut: [...leftOut.values()] };
    const named = request.runtimes.find((choice) => choice.runtime === refused.release.runtime)?.versions !== null;
    if (named) throw new UserError(`sweep: ${refused.why}`);
    note(`left out ${refused.release.runtime} ${refused.release.version}: ${refused.why}; the selection is taken again without it`);
    leftOut.set(specOf(refused.release), refused.release);
  }
}

const specOf = (release: RuntimeRelease) => `${release.runtime}@${release.version}`;

/** Downloads and verifies each release in turn; the first whose binary is refused, with the reason. */
async function firstRefused(releases: LeftOut, verified: Set<string>, note: (line: string) => void): Promise<{ release: RuntimeRelease; why: string } | null> {
  for (const release of releases) {
    try {
      await prepareRuntimes([specOf(release)], note);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      return { release, why: error.message };
    }
    verified.add(specOf(release));
  }
  return null;
}

/** A job's suite options: the sweep's, with a narrowing run's apps in place of its scenario's suite's. */
function jobOptions(request: SweepRequest, job: Required<SweepJob>): Selection["suiteOptions"] {
  if (job.apps.length === 0) return request.selection.suiteOptions;
  const suites = new Set(job.scenarios.map((scenario) => scenario.split("/")[0]!));
  return Object.fromEntries(Object.entries(request.selection.suiteOptions).map(([suite, options]) => [suite, suites.has(suite) ? { ...options, app: [...job.apps] } : options]));
}

/** Prices jobs from the suites' estimates, as `plan` does; the same job is priced once. */
function costModel(request: SweepRequest): (job: Required<SweepJob>) => JobCost {
  const known = new Map<string, JobCost>();
  return (job) => {
    const key = jobKey(job);
    let cost = known.get(key);
    if (cost === undefined) {
      const scenarios = resolveScenarios(selectScenarios({ suites: [], scenarios: [...job.scenarios] }), request.profile, request.trials);
      const specs = [job.link.from, job.link.to].map((version) => parseSpec(`${job.link.runtime}@${version}`));
      const plans = planRun(scenarios, specs, jobOptions(request, job));
      cost = { seconds: plans.reduce((sum, p) => sum + (p.seconds ?? 0), 0), maxSeconds: plans.reduce((sum, p) => sum + (p.maxSeconds ?? 0), 0) };
      known.set(key, cost);
    }
    return cost;
  };
}

/**
 * How long the 1-minute load average takes to fall from every CPU busy to `maxLoad`: the kernel
 * decays it by e every minute.
 */
const loadFadeSeconds = (maxLoad: number) => Math.max(0, 60 * Math.log(cpus().length / maxLoad));

/** Runs cut short by a budget count as measured only where the sweep asks for one itself. */
const acceptsCutShort = (request: SweepRequest) => request.trialBudget !== undefined;

/** What data/ holds of the testbed's links. */
const readCoverage = (request: SweepRequest) =>
  RunnerCoverage.read(request.dataDir, request.testbed.name, { acceptCutShort: acceptsCutShort(request), ...(request.againBefore ? { countedFrom: request.againBefore } : {}) });

/** The narrowing runs data/ says a sweep owes before anything else: the first of each unfinished bisection. */
function owedText(owed: readonly Required<SweepJob>[], cost: (job: Required<SweepJob>) => JobCost): string[] {
  if (owed.length === 0) return ["No step in data/ waits for narrowing: every confirmed step of a link measured is narrowed as far as it goes."];
  const rows = owed.map((job) => [`${linkLabel(job.link)}`, job.scenarios.join(", "), job.apps.join(", ") || "the sweep's", formatDuration(cost(job).maxSeconds)]);
  return [
    `Steps in data/ whose narrowing is not finished: the sweep measures these ${count(owed.length, "run")} first (${formatDuration(owed.reduce((sum, job) => sum + cost(job).maxSeconds, 0))} at the cap), and the runs after them depend on what they show (a release downloaded before whose binary does not run here is left out, as the sweep leaves it out; one not downloaded yet is counted, and left out when the sweep finds it does not run):`,
    formatTable(["narrowing run", "scenario", "apps", "at the cap"], rows),
  ];
}

/** What `sweep --plan` prints: each chain, what is left to measure of it, and its cost. */
async function planText(request: SweepRequest, resolved: ResolvedChains): Promise<string> {
  const { chains, scenarioVersion } = resolved;
  const cost = costModel(request);
  const coverage = readCoverage(request);
  const owed = (await nextRuns(sweepPlan(request, resolved), coverage, cost, releaseRunsHere(() => undefined, { download: false }))).filter((job) => job.purpose === "narrowing");
  const earlier = earlierRuns(request.dataDir, (line) => void process.stderr.write(`${line}\n`));
  const rows = chains.map((chain) => {
    const pending = pendingJobs([chain], coverage, scenarioVersion);
    const perLink = chain.links.length === 0 ? { seconds: 0, maxSeconds: 0 } : cost({ link: chain.links.at(-1)!, scenarios: chain.scenarios, apps: [], purpose: "chain" });
    const left = pending.map(cost);
    const paced = pending.reduce((sum, job, i) => sum + left[i]!.maxSeconds * paceOf(earlier, job).factor, 0);
    const versions = [chain.links[0]!.from, ...chain.links.map((link) => link.to)];
    return [
      chain.runtime,
      `${versions.length}: ${versions[0]} … ${versions.at(-1)}`,
      String(chain.links.length),
      String(pending.length),
      `${formatDuration(perLink.seconds)} (${formatDuration(perLink.maxSeconds)})`,
      `${formatDuration(left.reduce((s, c) => s + c.seconds, 0))} (${formatDuration(left.reduce((s, c) => s + c.maxSeconds, 0))})`,
      formatDuration(paced),
    ];
  });
  const chainLines = chains.map((chain) => `${chain.runtime}: ${[chain.links[0]!.from, ...chain.links.map((link) => link.to)].join(" → ")}`);
  const hello = cost({ link: chains[0]!.links[0]!, scenarios: [chains[0]!.scenarios[0]!], apps: [], purpose: "narrowing" });
  return [
    formatTable(["runtime", "releases", "links", "to measure", "per link (at the cap)", "left to measure (at the cap)", "at the sweep's pace"], rows),
    "",
    ...chainLines,
    "",
    `Profile ${request.profile}${request.trials === undefined ? "" : ` with --trials ${request.trials}`}, ${count(chains[0]!.scenarios.length, "scenario")} a link${chains.length > 1 ? " (of the first runtime)" : ""}, on ${request.testbed.name}: each link is one run of its two releases beside each other.`,
    "Times are the suites' estimates at each profile's minimum trials, and (in brackets) with every cell at its cap of adaptive trials; --time-limit starts a link only when its time with every cell at its cap (scaled by the sweep's pace) fits in what is left.",
    "The sweep's pace: the time at the cap scaled as a sweep would price each link, by the largest ratio of measured to estimated time among the latest links of its runtime that earlier sweeps of this data folder measured (1 where none did; kept below the per-user cache, so a new machine starts at 1).",
    `Narrowing a confirmed step between releases k apart adds at most ${narrowingRuns(1)}, ${narrowingRuns(3)} or ${narrowingRuns(7)} runs for k = 1, 3 or 7, each of the step's scenario alone (${chains[0]!.scenarios[0]}: about ${formatDuration(hello.seconds)} a run).`,
    ...owedText(owed, cost),
    ...sideBySideHint(request, chains, coverage),
    `Before each run the sweep waits for the load of the run before it to leave the 1-minute load average: up to ${formatDuration(loadFadeSeconds(request.maxLoad))} after a run that kept every CPU busy (more than a short narrowing run takes), not in the times above.`,
  ].join("\n");
}

/**
 * Whether a release's binary runs here as itself, for the narrowing: verified (and downloaded) once,
 * a release asked again neither verified nor reported again. A plan downloads nothing: a release not
 * in the per-user cache is taken to run, and one there is verified without a word.
 */
function releaseRunsHere(say: (line: string) => void, { download }: { download: boolean }): SweepHooks["runs"] {
  const known = new Map<string, Promise<boolean>>();
  const verify = async (runtime: RuntimeName, version: string) => {
    if (!download && (await cachedBinary(parseSpec(specOf({ runtime, version })))) === null) return true;
    const refusal = await firstRefused([{ runtime, version }], new Set(), (line) => say(`sweep: ${line}`));
    if (refusal !== null) say(`sweep: left out ${runtime} ${version} of the narrowing: ${refusal.why}`);
    return refusal === null;
  };
  return (runtime, version) => {
    const spec = specOf({ runtime, version });
    if (!known.has(spec)) known.set(spec, verify(runtime, version));
    return known.get(spec)!;
  };
}

/** What one run of a sweep measures besides its staged job: its releases, scenarios and each suite's options. */
interface StagedRun {
  readonly specs: readonly string[];
  readonly scenarios: readonly string[];
  readonly suiteOptions: Selection["suiteOptions"];
  readonly timeLimit: number | undefined;
  readonly futility: boolean;
}

/**
 * Measures a job into its stage and collects it into data/. When collect refuses, its problems go
 * to `refused` and the job stays staged.
 */
async function measureStaged(request: SweepRequest, workDir: string, job: PlanJob, run: StagedRun, refused: string[]): Promise<RunOutcome> {
  const outDir = await stageJob(workDir, job);
  const outcome = await runBenchmarks({
    suites: [],
    scenarios: [...run.scenarios],
    runtimes: [...run.specs],
    sentinel: null,
    profile: request.profile,
    ...(request.trials !== undefined ? { trials: request.trials } : {}),
    ...(request.trialBudget !== undefined ? { trialBudget: request.trialBudget } : {}),
    outDir,
    suiteOptions: run.suiteOptions,
    ...(run.timeLimit !== undefined ? { timeLimit: run.timeLimit } : {}),
    futility: run.futility,
    identity: { runner: request.testbed.name, runner_kind: "reference" },
  });
  const collected = await collectStaged(workDir, request.dataDir, { runners: request.machines, declared: declaredMetrics() });
  if (collected !== null && collected.problems.length > 0) {
    refused.push(...collected.problems);
    throw new UserError(`sweep: collect refused ${count(collected.problems.length, "problem")} in ${run.specs.join(", ")}; nothing of it entered ${request.dataDir}, and it stays in ${workDir}`);
  }
  return outcome;
}

/** The sweep's machinery on this machine: real runs into the stage, collected into data/. */
function realHooks(request: SweepRequest, workDir: string, refused: string[]): SweepHooks {
  let coverage: RunnerCoverage | undefined;
  const say = (line: string) => void process.stderr.write(`${line}\n`);
  return {
    cost: costModel(request),
    coverage: () => (coverage ??= readCoverage(request)),
    ...liveMachine,
    log: say,
    interrupted: isInterrupted,
    earlierRuns: () => earlierRuns(request.dataDir, say),
    keepRuns: (runs) => keepRuns(request.dataDir, runs),
    runs: releaseRunsHere(say, { download: true }),
    async measure(job, timeLimit) {
      const specs = [job.link.from, job.link.to].map((version) => specOf({ runtime: job.link.runtime, version }));
      const run = { specs, scenarios: job.scenarios, suiteOptions: jobOptions(request, job), timeLimit, futility: job.purpose === "chain" };
      const outcome = await measureStaged(request, workDir, linkJob(job.link, request.testbed, job.scenarios, job.apps), run, refused).finally(() => (coverage = undefined));
      if (outcome.interrupted) return "interrupted";
      return !acceptsCutShort(request) && outcome.results.some((result) => cutShort(result.doc)) ? "cut short" : "measured";
    },
  };
}

/** The chains' links, each confirmed step narrowed: what a sweep without --side-by-side measures; its report. */
async function sweepChains(request: SweepRequest, workDir: string, refused: string[]): Promise<string> {
  const { chains, releases, leftOut, scenarioVersion } = await provisionedChains(request);
  // Apps and scenarios prepared once, for the suites the chains run (each run provisions its releases).
  await setupAll([], [...new Set(chains.flatMap((chain) => chain.scenarios.map((scenario) => scenario.split("/")[0]!)))]);
  const deadline = request.timeLimit === undefined ? undefined : Date.now() + request.timeLimit * 1000;
  const report = await runSweep(sweepPlan(request, { chains, releases, scenarioVersion }), realHooks(request, workDir, refused), { maxLoad: request.maxLoad, ...(deadline !== undefined ? { deadline } : {}) });
  return [reportText(report, leftOut), ...(report.stopped === null ? sideBySideHint(request, chains, readCoverage(request)) : [])].join("\n");
}

/**
 * The newest release of each runtime in its window (or the one named) whose binary runs here: what
 * `--side-by-side` measures. A window's newest release that is refused is left out, saying why, for the one before it.
 */
async function newestReleases(request: SweepRequest, { verify }: { verify: boolean }): Promise<RuntimeRelease[]> {
  const note = (line: string) => void process.stderr.write(`sweep: ${line}\n`);
  const newest: RuntimeRelease[] = [];
  for (const { runtime, versions } of request.runtimes) {
    if (versions !== null && versions.length > 1) throw new UserError(`sweep --side-by-side: name one release of ${runtime}, not ${versions.length}: the run measures one release of each runtime`);
    const window = { since: request.since, from: request.from.get(runtime), to: request.to.get(runtime) };
    const published = await publishedReleases(runtime, request.testbed.arch);
    const unknown = versions?.find((version) => !published.some((release) => release.version === version));
    if (unknown !== undefined) throw new UserError(`sweep: ${runtime}@${unknown} is not published for ${request.testbed.arch}`);
    const candidates = versions ?? windowed(published, window).reverse();
    if (!verify) {
      if (candidates[0] === undefined) throw new UserError(`sweep --side-by-side: ${runtime}: no release in the window`);
      newest.push({ runtime, version: candidates[0] });
      continue;
    }
    let chosen: RuntimeRelease | undefined;
    for (const version of candidates) {
      const refused = await firstRefused([{ runtime, version }], new Set(), note);
      if (refused === null) {
        chosen = { runtime, version };
        break;
      }
      if (versions !== null) throw new UserError(`sweep: ${refused.why}`);
      note(`left out ${runtime} ${version}: ${refused.why}; the release before it stands in`);
    }
    if (chosen === undefined) throw new UserError(`sweep --side-by-side: ${runtime}: no release in the window runs here`);
    newest.push(chosen);
  }
  return newest;
}

interface SideBySideWork {
  readonly missing: string[];
  readonly atCap: number;
}

/** What a side-by-side run of the releases owes: the scenarios data/ holds no such run of at their version, and their time with every cell at its cap. */
function sideBySideWork(request: SweepRequest, releases: readonly RuntimeRelease[], coverage: RunnerCoverage): SideBySideWork {
  const scenarios = selectScenarios({ suites: request.selection.suites, scenarios: request.selection.scenarios }).flatMap((s) => {
    const on = releases.filter((release) => s.manifest.runtimes[release.runtime] !== undefined);
    return on.length === 0 ? [] : [{ id: `${s.suite}/${s.name}`, measured: coverage.together(on, `${s.suite}/${s.name}`, s.manifest.version) }];
  });
  if (scenarios.length === 0) throw new UserError(`sweep --side-by-side: none of the chosen scenarios runs on ${releases.map(specOf).join(", ")}`);
  const missing = scenarios.filter((s) => !s.measured).map((s) => s.id);
  if (missing.length === 0) return { missing, atCap: 0 };
  const plans = planRun(resolveScenarios(selectScenarios({ suites: [], scenarios: missing }), request.profile, request.trials), releases.map((r) => parseSpec(specOf(r))), request.selection.suiteOptions);
  return { missing, atCap: plans.reduce((sum, plan) => sum + (plan.maxSeconds ?? 0), 0) };
}

/** What `sweep --side-by-side --plan` prints. A plan downloads nothing: a newest release whose binary is refused is found by the run. */
async function sideBySidePlanText(request: SweepRequest): Promise<string> {
  const releases = await newestReleases(request, { verify: false });
  return sideBySideText(request, releases, sideBySideWork(request, releases, readCoverage(request)));
}

/** What data/ holds of the releases side by side, and what a run of them would cost. */
function sideBySideText(request: SweepRequest, releases: readonly RuntimeRelease[], { missing, atCap }: SideBySideWork): string {
  const what = `${releases.map(specOf).join(", ")} side by side on ${request.testbed.name}`;
  if (missing.length === 0) return `${what}: in data/ already, on every scenario at its version; nothing to measure`;
  return `${what}: one run of ${count(missing.length, "scenario")} (${missing.join(", ")}), up to ${formatDuration(atCap)} with every cell at its cap of adaptive trials, profile ${request.profile}`;
}

/**
 * Where a sweep's chains end at releases of several runtimes that data/ holds no run of side by
 * side: the overview draws a machine's newest releases together, and nothing measures them so but
 * `--side-by-side`, which the line names with these releases. Nothing for a sweep of one runtime.
 */
function sideBySideHint(request: SweepRequest, chains: readonly (Chain & { runtime: RuntimeName })[], coverage: RunnerCoverage): string[] {
  if (chains.length < 2) return [];
  const newest = chains.map((chain) => ({ runtime: chain.runtime, version: chain.links.at(-1)!.to }));
  const work = sideBySideWork(request, newest, coverage);
  if (work.missing.length === 0) return [`The newest releases of the chains, ${newest.map(specOf).join(", ")}, are in data/ side by side.`];
  const command = ["scripts/bench sweep --side-by-side", ...newest.map((release) => `--runtime ${specOf(release)}`)].join(" ");
  return [`The overview draws the newest releases together: ${sideBySideText(request, newest, work)}. Measure them with ${command}.`];
}

/**
 * `sweep --side-by-side`: the newest release of each runtime in one run of the selection, as the
 * overview draws them together (docs/history.md), on the scenarios where data/ holds no such run
 * at the scenario's version yet. What it did, in words.
 */
async function measureSideBySide(request: SweepRequest, workDir: string, refused: string[]): Promise<string> {
  const started = Date.now();
  const releases = await newestReleases(request, { verify: true });
  const specs = releases.map(specOf);
  const { missing, atCap } = sideBySideWork(request, releases, readCoverage(request));
  if (missing.length === 0) return `sweep: ${specs.join(", ")} side by side are in data/ already, on every scenario at its version`;
  await setupAll([], [...new Set(missing.map((scenario) => scenario.split("/")[0]!))]);
  const say = (line: string) => void process.stderr.write(`${line}\n`);
  if ((await waitForQuiet("sweep", request.maxLoad, { ...liveMachine, log: say, stop: () => (isInterrupted() ? "interrupted" : null) })) !== null) return "sweep: stopped (interrupted) before the run";
  const left = request.timeLimit === undefined ? undefined : request.timeLimit - (Date.now() - started) / 1000;
  if (left !== undefined && atCap > left) return `sweep: time limit: ${specs.join(", ")} side by side may take up to ${formatDuration(atCap)} with all its looks, and ${formatDuration(Math.max(0, left))} is left`;
  say(`sweep: ${specs.join(", ")} side by side on ${count(missing.length, "scenario")}: up to ${formatDuration(atCap)} (the estimate at every look)`);
  const run = { specs, scenarios: missing, suiteOptions: request.selection.suiteOptions, timeLimit: left, futility: false };
  const outcome = await measureStaged(request, workDir, sideBySideJob(releases, request.testbed, missing), run, refused);
  if (outcome.interrupted) return "sweep: stopped (interrupted): run the same command again to go on; nothing measured is measured again";
  return `sweep: ${specs.join(", ")} measured side by side on ${count(missing.length, "scenario")}, added to ${request.dataDir}`;
}

/** Refuses to measure on a machine whose results collect would refuse. */
function checkOnTestbed(testbed: ReferenceTestbed): void {
  const { arch, cpu_model: model } = readEnvironment();
  if (arch !== testbed.arch || !cpuModelMatches(model, testbed.cpu_models)) {
    throw new UserError(`sweep: this machine (${arch}, ${model}) is not the reference testbed ${testbed.name} (${testbed.arch}, ${testbed.cpu_models.join(" or ")}; .github/bench-runners.json): collect would refuse its results`);
  }
}

/**
 * The sweep's report. A release the selection left out (its binary refused) is named where it lies
 * between a step's two releases, as a release the narrowing left out is: the step may be its.
 */
export function reportText(report: SweepReport, leftOut: LeftOut): string {
  const rows = report.steps.flatMap(({ link, step, narrowed }) => {
    // A step's cells can move by different amounts (1 MiB byte arrays ×1.14, 64 KiB ×1.01): the largest is the step.
    const row = step.rows.reduce((largest, next) => (Math.abs(Math.log(next.ratio!)) > Math.abs(Math.log(largest.ratio!)) ? next : largest));
    const change = `${row.metric} ${verdictText({ ...row, verdict: step.verdict })} ×${row.ratio!.toFixed(3)}${step.rows.length > 1 ? ` (the largest of ${step.rows.length} cells)` : ""}`;
    if (narrowed === null) return [[link.runtime, step.scenario, change, `${link.from} → ${link.to}`, "not narrowed yet: the sweep stopped first", ""]];
    return narrowed.map((n) => {
      const notes = n.adjacent ? (releaseNotes(link.runtime, n.from, n.to)?.changelog ?? "") : "not narrowed to one release";
      const within = leftOut.filter((r) => r.runtime === link.runtime && semver.gt(r.version, n.from) && semver.lt(r.version, n.to)).map((r) => r.version);
      const between = [...new Set([...n.unmeasurable, ...within])].sort(semver.compare);
      const unmeasurable = between.length === 0 ? "" : ` (${between.join(", ")} between cannot be measured here)`;
      return [link.runtime, step.scenario, change, `${link.from} → ${link.to}`, `${n.from} → ${n.to}${unmeasurable}`, notes];
    });
  });
  const lines = [`sweep: ${count(report.measured, "run")} measured, ${count(report.skipped, "link")} already in data/`];
  if (rows.length > 0) lines.push("", formatTable(["runtime", "scenario", "step (headline, paired ratio of the link)", "link", "the step's release", "release notes"], rows));
  else if (report.stopped === null) lines.push("No link shows a confirmed step on a headline metric.");
  if (report.cutShort.length > 0) {
    lines.push(`cut short by the time limit (a cell's adaptive trials stopped before their last look), in data/ but counted as not measured: ${report.cutShort.join("; ")}`);
  }
  if (report.stopped !== null) {
    const again = report.cutShort.length > 0 ? "nothing measured to the end is measured again, and what was cut short is" : "nothing measured is measured again";
    lines.push(`stopped (${report.stopped}): run the same command again to go on; ${again}`);
  }
  return lines.join("\n");
}

export const sweepSubcommand = defineCommand({
  name: "sweep",
  summary: "Measure a history of releases on the reference testbed: each selected release beside the one before it, one run per link, each confirmed step narrowed to its release (docs/history.md).",
  usage:
    "sweep [--plan] [--runtime NAME|SPEC]... [--since DATE] [--from SPEC]... [--to SPEC]... [--every major|minor|patch] [--profile quick|full] [--trials N] [--trial-budget N] [--suite S]... [--scenario X]... [--data DIR] [--testbed NAME] [--runners FILE] [--time-limit T] [--max-load L] [--no-narrow] [--again-before TIME] [--side-by-side]",
  help: [
    "  --plan            price the sweep (its chains, the links data/ lacks, the time per link) and measure nothing",
    `  --runtime NAME    node, deno or bun: a chain of its releases in the window (repeatable; default: ${RUNTIME_NAMES.join(", ")});`,
    "  --runtime SPEC    node@22.11.0, repeated: a chain of exactly those releases",
    "  --since DATE      the window: releases published on or after DATE (2024-06 or 2024-06-15)",
    "  --from SPEC       the window: a runtime's releases at or above a version (node@20.0.0; repeatable, one per runtime)",
    "  --to SPEC         the window: a runtime's releases at or below a version",
    "  --every G         minor (default): the newest release of each minor; major: of each major; patch: every release.",
    "                    Always the first release of each line (node: major; deno, bun: minor) and every release of",
    "                    the newest minor",
    `  --profile P       quick (default) or full; --trials N: each scenario's minimum trials (as for run)`,
    "  --trial-budget N  extra trials the adaptive rule may add in each link's run (as for run; 0: none); default: each",
    "                    cell's cap. Fewer looks: a link's verdict may stay undecided where all of them would decide it",
    "  --suite S         the default selection of these suites only; --scenario X: these scenarios instead of the default selection",
    "  --data DIR        the results store: links already there are skipped (default: data/)",
    "  --testbed NAME    the reference testbed this machine is (.github/bench-runners.json; default: the only one)",
    "  --runners FILE    the runners and testbeds, for collect too (default: .github/bench-runners.json)",
    "  --time-limit T    the time the whole sweep may take (10h, 90m): no link starts that could end later with every",
    "                    cell at its cap of adaptive trials; a link is measured with all its looks or left for the next sweep",
    "  --max-load L      wait until the 1-minute load average is below L (default: half the CPUs)",
    "  --no-narrow       measure the chain only; leave each step between the releases of its link",
    "  --again-before T  runs of DIR started before T (2026-11-29, 2026-11-29T00:20Z) count as not measured: their links",
    "                    are measured again after a fix to the harness, and the newer run is the one judged. Name the",
    "                    scenarios (--scenario) and releases it concerns; a resumed sweep takes the same T",
    "  --side-by-side    instead of the chains, one run of the newest release of each runtime (in its window; or the one",
    "                    named, --runtime node@26.12.1) side by side, as the overview draws them together; what data/",
    "                    holds of it already is skipped",
    "",
    "Each link runs its two releases beside each other in one run of the default selection, as the release job runs",
    "a release beside its predecessor; its results go into DIR through collect, checked against the testbed and the",
    "link. A confirmed step is then narrowed: runs of its scenario and apps over the releases between, halved until",
    "it lies between adjacent releases or neither half shows it (--plan lists the runs it owes first).",
    "Run again after Ctrl-C or a time limit: what DIR holds is skipped, an interrupted scenario measured again, and so is",
    "a run whose adaptive trials the time limit stopped before their last look (the sweep stops after it, naming it).",
    "",
    "Exit status: 0 when done (or stopped by the time limit), 1 when collect refused results, 2 on bad input, 130 on Ctrl-C.",
  ],
  options: SWEEP_OPTIONS,
  async run(values) {
    const request = parseRequest(values);
    if (values.plan) {
      process.stdout.write(`${request.sideBySide ? await sideBySidePlanText(request) : await planText(request, await resolveChains(request))}\n`);
      return 0;
    }
    noteLoadedTree();
    checkOnTestbed(request.testbed);
    const workDir = sweepWorkDir(request.dataDir);
    const leftover = await collectStaged(workDir, request.dataDir, { runners: request.machines, declared: declaredMetrics() });
    if (leftover !== null) {
      for (const problem of leftover.problems) process.stderr.write(`${problem}\n`);
      if (leftover.problems.length > 0) throw new UserError(`sweep: results an earlier sweep left in ${workDir} cannot be collected (above); look at them, then remove them`);
      process.stderr.write(`sweep: collected ${count(leftover.added.length, "result")} an earlier sweep had measured but not collected\n`);
    }
    const refused: string[] = [];
    try {
      process.stdout.write(`${request.sideBySide ? await measureSideBySide(request, workDir, refused) : await sweepChains(request, workDir, refused)}\n`);
    } catch (error) {
      if (refused.length === 0) throw error;
      for (const problem of refused) process.stderr.write(`${problem}\n`);
      process.stderr.write(`runtime-bench: ${(error as Error).message}\n`);
      return 1;
    }
    return 0;
  },
});
