/** The chains of a sweep: resolved from the registry, priced by `--plan`, measured link by link with each confirmed step narrowed, and reported. */
import { cpus } from "node:os";
import semver from "semver";
import { UserError } from "../../../core/errors.ts";
import { verdictText } from "../../../compare/format.ts";
import { loadPointOptions } from "../../../core/params.ts";
import { adaptivePlan } from "../../../compare/sequential.ts";
import { liveMachine } from "../../../env/machine-check.ts";
import { RunnerCoverage, cutShort } from "../../../history/coverage.ts";
import { narrowingRuns } from "../../../history/narrow.ts";
import { chainLinks, linkLabel, releasesBetween, selectReleases, type RuntimeRelease } from "../../../history/select.ts";
import { earlierRuns, keepRuns, linkJob } from "../../../history/stage.ts";
import { jobKey, nextRuns, pacedSeconds, pendingJobs, runSweep, type Chain, type JobCost, type SweepHooks, type SweepJob, type SweepPlan, type SweepReport, type TimedRun } from "../../../history/sweep.ts";
import { planRun } from "../../../orchestrate/estimate.ts";
import { isInterrupted } from "../../../process/children.ts";
import { publishedReleases, type Release } from "../../../releases/published.ts";
import { releaseNotes, type RuntimeName } from "../../../runtimes/catalog.ts";
import { cachedBinary } from "../../../runtimes/provision.ts";
import { parseSpec } from "../../../runtimes/spec.ts";
import { selectScenarios } from "../../../scenarios/select.ts";
import { suiteProfileOf } from "../../../results/types.ts";
import { resolveScenarios } from "../../../suites/resolve.ts";
import type { Selection } from "../../../suites/selection.ts";
import { formatDuration } from "../../../ui/duration.ts";
import { formatTable } from "../../../ui/table.ts";
import { count } from "../../../ui/words.ts";
import { setupAll } from "../setup.ts";
import { acceptsCutShort, readCoverage, specOf, type SweepRequest } from "./request.ts";
import { firstRefused, measureStaged } from "./measure.ts";
import { sideBySideHint } from "./side-by-side.ts";

type ResolvedChains = {
  chains: (Chain & { runtime: RuntimeName })[];
  releases: Map<RuntimeName, Release[]>;
  /** Each chosen scenario's version in this checkout, by `suite/name`: what a run measures today. */
  scenarioVersion: (scenario: string) => number;
  /** Each chosen scenario's cap of adaptive trials in the sweep's profile and trials: the pairs a narrowing run takes at most. */
  narrowingCap: (scenario: string) => number;
};

/**
 * Each runtime's chain, with its published releases (for the releases between a link's two).
 * `leftOut` (`deno@2.3.0`): releases a window's selection passes over, as if never published.
 */
export async function resolveChains(request: SweepRequest, leftOut: ReadonlyMap<string, RuntimeRelease> = new Map()): Promise<ResolvedChains> {
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
  const caps = new Map(resolveScenarios(selected, request.profile, request.trials).map(({ scenario }) => [`${scenario.suite}/${scenario.name}`, adaptivePlan(scenario.profileParams.trials, suiteProfileOf(request.profile)).looks.at(-1)!]));
  return { chains, releases, scenarioVersion: (scenario) => versions.get(scenario)!, narrowingCap: (scenario) => caps.get(scenario)! };
}

/** What a sweep measures: the chains, and the releases between two of a runtime that narrowing bisects. */
function sweepPlan(request: SweepRequest, { chains, releases, scenarioVersion, narrowingCap }: ResolvedChains): SweepPlan {
  return { chains, between: (link) => releasesBetween(releases.get(link.runtime) ?? [], link), narrow: request.narrow, scenarioVersion, narrowingCap };
}

/** Releases of a window left out because their binary was refused (deno 2.3.0): published, but not measurable here. */
export type LeftOut = readonly RuntimeRelease[];

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
      const plans = planRun(scenarios, specs, jobOptions(request, job), { params: job.params });
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
/**
 * The narrowing runs data/ says a sweep owes before anything else: the first of each unfinished bisection, each at the
 * cap and at the pace the sweep would price it at (`earlier`: the runs earlier sweeps kept). Their estimates can be far
 * off (Deno's runs of workers/throughput took 5.5 times theirs), and the pace is what the sweep starts a run by.
 */
export function owedText(owed: readonly Required<SweepJob>[], cost: (job: Required<SweepJob>) => JobCost, earlier: readonly TimedRun[]): string[] {
  if (owed.length === 0) return ["No step in data/ waits for narrowing: every confirmed step of a link measured is narrowed as far as it goes."];
  const paced = (job: Required<SweepJob>) => pacedSeconds(earlier, job, cost(job));
  const total = (seconds: (job: Required<SweepJob>) => number) => formatDuration(owed.reduce((sum, job) => sum + seconds(job), 0));
  const rows = owed.map((job) => [`${linkLabel(job.link)}`, job.scenarios.join(", "), job.apps.join(", ") || "the sweep's", loadPointOptions(job.params) || "every", formatDuration(cost(job).maxSeconds), formatDuration(paced(job))]);
  return [
    `Steps in data/ whose narrowing is not finished: the sweep measures these ${count(owed.length, "run")} first (${total((job) => cost(job).maxSeconds)} at the cap, ${total(paced)} at the sweep's pace), and the runs after them depend on what they show (a release downloaded before whose binary does not run here is left out, as the sweep leaves it out; one not downloaded yet is counted, and left out when the sweep finds it does not run):`,
    formatTable(["narrowing run", "scenario", "apps", "load points", "at the cap", "at the sweep's pace"], rows),
  ];
}

/** What `sweep --plan` prints: each chain, what is left to measure of it, and its cost. */
export async function planText(request: SweepRequest, resolved: ResolvedChains): Promise<string> {
  const { chains, scenarioVersion } = resolved;
  const cost = costModel(request);
  const coverage = readCoverage(request);
  const owed = (await nextRuns(sweepPlan(request, resolved), coverage, cost, releaseRunsHere(() => undefined, { download: false }))).filter((job) => job.purpose === "narrowing");
  const earlier = earlierRuns(request.dataDir, (line) => void process.stderr.write(`${line}\n`));
  const rows = chains.map((chain) => {
    const pending = pendingJobs([chain], coverage, scenarioVersion);
    const perLink = chain.links.length === 0 ? { seconds: 0, maxSeconds: 0 } : cost({ link: chain.links.at(-1)!, scenarios: chain.scenarios, apps: [], params: {}, purpose: "chain" });
    const left = pending.map(cost);
    const paced = pending.reduce((sum, job, i) => sum + pacedSeconds(earlier, job, left[i]!), 0);
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
  const hello = cost({ link: chains[0]!.links[0]!, scenarios: [chains[0]!.scenarios[0]!], apps: [], params: {}, purpose: "narrowing" });
  return [
    formatTable(["runtime", "releases", "links", "to measure", "per link (at the cap)", "left to measure (at the cap)", "at the sweep's pace"], rows),
    "",
    ...chainLines,
    "",
    `Profile ${request.profile}${request.trials === undefined ? "" : ` with --trials ${request.trials}`}, ${count(chains[0]!.scenarios.length, "scenario")} a link${chains.length > 1 ? " (of the first runtime)" : ""}, on ${request.testbed.name}: each link is one run of its two releases beside each other.`,
    "Times are the suites' estimates at each profile's minimum trials, and (in brackets) with every cell at its cap of adaptive trials; --time-limit starts a link only when its time with every cell at its cap (scaled by the sweep's pace) fits in what is left.",
    "The sweep's pace: the time at the cap scaled as a sweep would price each run, by the largest ratio of measured to estimated time among the latest runs of its kind (a link: its runtime's links; a narrowing run: its runtime's on its scenario, else on its suite, else on any) that earlier sweeps of this data folder measured (1 where none did; kept below the per-user cache, so a new machine starts at 1).",
    `Narrowing a confirmed step between releases k apart adds at most ${narrowingRuns(1)}, ${narrowingRuns(3)} or ${narrowingRuns(7)} runs for k = 1, 3 or 7, each of the step's scenario alone (${chains[0]!.scenarios[0]}: about ${formatDuration(hello.seconds)} a run).`,
    ...owedText(owed, cost, earlier),
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
      const run = { specs, scenarios: job.scenarios, suiteOptions: jobOptions(request, job), params: job.params, timeLimit, futility: job.purpose === "chain" };
      const outcome = await measureStaged(request, workDir, linkJob(job.link, request.testbed, job.scenarios, job.apps), run, refused).finally(() => (coverage = undefined));
      if (outcome.interrupted) return "interrupted";
      return !acceptsCutShort(request) && outcome.results.some((result) => cutShort(result.doc)) ? "cut short" : "measured";
    },
  };
}

/** The chains' links, each confirmed step narrowed: what a sweep without --side-by-side measures; its report. */
export async function sweepChains(request: SweepRequest, workDir: string, refused: string[]): Promise<string> {
  const { chains, releases, leftOut, scenarioVersion, narrowingCap } = await provisionedChains(request);
  // Apps and scenarios prepared once, for the suites the chains run (each run provisions its releases).
  await setupAll([], [...new Set(chains.flatMap((chain) => chain.scenarios.map((scenario) => scenario.split("/")[0]!)))]);
  const deadline = request.timeLimit === undefined ? undefined : Date.now() + request.timeLimit * 1000;
  const report = await runSweep(sweepPlan(request, { chains, releases, scenarioVersion, narrowingCap }), realHooks(request, workDir, refused), { maxLoad: request.maxLoad, ...(deadline !== undefined ? { deadline } : {}) });
  return [reportText(report, leftOut), ...(report.stopped === null ? sideBySideHint(request, chains, readCoverage(request)) : [])].join("\n");
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
