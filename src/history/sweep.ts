/**
 * A history sweep: the links of a chain measured one run each, what data/ already holds skipped,
 * each link's confirmed steps narrowed to their release (narrow.ts) before the next link. Everything that touches
 * the machine comes in through `SweepHooks`, so the loop (resuming, the load it waits out, the time
 * limit, the estimate of what is left) is the same for a test's synthetic runs and a real sweep.
 */
import { waitForQuiet } from "../env/machine-check.ts";
import { missingCells } from "../releases/cells.ts";
import { loadPointOptions, type LoadPointFilter } from "../core/params.ts";
import { formatDuration } from "../ui/duration.ts";
import { count } from "../ui/words.ts";
import { linkSteps, showsStep, stepApps, stepCell, stepLoadPoints, stepParams, stoppedShort, type LinkStep, type RunnerCoverage } from "./coverage.ts";
import { narrowStep, type NarrowedStep } from "./narrow.ts";
import { linkLabel, type ChainLink } from "./select.ts";

/** One run of a sweep: two releases beside each other on some scenarios. */
export interface SweepJob {
  readonly link: ChainLink;
  readonly scenarios?: readonly string[];
  /**
   * The apps a narrowing run measures of its scenario: those of its step's cells, which an earlier
   * run may have measured beyond the sweep's selection (`--scenario` takes every app). None: the
   * sweep's selection.
   */
  readonly apps?: readonly string[];
  /** The load points a narrowing run measures (`run --param`): those of its step's cells. None: every load point. */
  readonly params?: LoadPointFilter;
  /** `chain`: a link of the selection; `narrowing`: two releases within a link that showed a step. */
  readonly purpose: "chain" | "narrowing";
}

/** What a job measures, as one string: two jobs with the same key are the same run. */
export const jobKey = (job: Required<SweepJob>) => `${linkLabel(job.link)} ${job.scenarios.join(" ")} ${job.apps.join(" ")} ${loadPointOptions(job.params)}`;

/** A job's estimated seconds at each profile's minimum trials, and with every cell at its cap. */
export interface JobCost {
  readonly seconds: number;
  readonly maxSeconds: number;
}

export interface SweepHooks {
  /**
   * Measures the job's two releases beside each other in one run on its scenarios and adds the
   * results to data/. `timeLimit`: the seconds left before the sweep's deadline, which the run's
   * adaptive trials stay within; undefined: each cell's cap. `cut short`: measured, but the time
   * limit stopped a cell's adaptive trials before their last look, so data/ counts the run as not
   * measured yet (RunnerCoverage) and the next sweep measures it again.
   */
  measure(job: Required<SweepJob>, timeLimit: number | undefined): Promise<"measured" | "cut short" | "interrupted">;
  cost(job: Required<SweepJob>): JobCost;
  /** What data/ holds on the testbed now. */
  coverage(): RunnerCoverage;
  /** The 1-minute load average, as the machine check records it. */
  load(): number;
  sleep(ms: number): Promise<void>;
  /** Milliseconds since the epoch. */
  now(): number;
  log(line: string): void;
  interrupted(): boolean;
  /** The latest runs of earlier sweeps of the same data folder, oldest first: the pace a sweep starts at. */
  earlierRuns(): readonly TimedRun[];
  /** Keeps the latest runs for the next sweep. */
  keepRuns(runs: readonly TimedRun[]): void;
  /** Whether a release's binary runs here as itself: a narrowing leaves out a release between that does not. */
  runs(runtime: ChainLink["runtime"], version: string): Promise<boolean>;
}

/** How long one run of a sweep took, beside its estimate with every cell at its cap. */
export interface TimedRun {
  readonly purpose: SweepJob["purpose"];
  /** What the run measured, as `subjectOf` keys it: its runtime first, then a narrowing run's scenarios. */
  readonly subject: string;
  readonly measured: number;
  readonly estimated: number;
}

export interface SweepLimits {
  /** No run starts until the 1-minute load average is below this. */
  readonly maxLoad: number;
  /** When the sweep must be done (ms since the epoch): no run starts that its estimate says would end later. */
  readonly deadline?: number;
}

/** A step of a link, and where narrowing put it. */
export interface SweepStep {
  readonly link: ChainLink;
  readonly step: LinkStep;
  /**
   * The narrowest pairs showing it; the link itself when its releases are adjacent or narrowing was
   * not asked for; null when the sweep stopped before its narrowing finished (the next sweep goes on).
   */
  readonly narrowed: readonly NarrowedStep[] | null;
}

export interface SweepReport {
  /** Runs measured now, and links whose every scenario data/ already held. */
  readonly measured: number;
  readonly skipped: number;
  readonly steps: SweepStep[];
  /** The runs the time limit cut short (in words, as the progress names them): in data/, and measured again by the next sweep. */
  readonly cutShort: readonly string[];
  /** Why the sweep stopped before the end: run it again to go on. */
  readonly stopped: "interrupted" | "time limit" | null;
}

/** Thrown through the narrowing when the sweep stops, so that no half is judged without its run. */
class Stopped extends Error {}

/** The runs of each kind (purpose and subject) the pace is taken over. */
const PACE_RUNS = 5;

/**
 * What a run measures, for its pace: a link's runtime, or a narrowing run's runtime and scenarios; as the pace
 * file keys it ("deno workers/throughput") and in words ("deno on workers/throughput").
 * Runtimes and scenarios miss their estimates by factors far apart (docs/history.md, "Progress"), so a run is
 * priced at the pace of its own kind.
 */
function subjectOf(job: Required<SweepJob>): { key: string; words: string } {
  const scenarios = job.purpose === "chain" ? [] : job.scenarios;
  return { key: [job.link.runtime, ...scenarios].join(" "), words: [job.link.runtime, ...(scenarios.length > 0 ? [scenarios.join(", ")] : [])].join(" on ") };
}

const runtimeOf = (subject: string) => subject.split(" ")[0];
/** The suites of a subject's scenarios ("node database/insert-batch": database). */
const suitesOf = (subject: string) => subject.split(" ").slice(1).map((scenario) => scenario.split("/")[0]);

/** Runs of a purpose in words: "2 narrowing runs of deno on workers/throughput". */
function runsOf(purpose: SweepJob["purpose"], runs: number, of: string): string {
  const kind = purpose === "chain" ? "link" : "narrowing run";
  return runs === 1 ? `${kind} of ${of}` : `${runs} ${kind}s of ${of}`;
}

const latestRuns = (recent: readonly TimedRun[], purpose: SweepJob["purpose"], include: (subject: string) => boolean) =>
  recent.filter((run) => run.purpose === purpose && include(run.subject)).slice(-PACE_RUNS);

/**
 * The runs a job is priced at: the latest of its purpose and subject; before one was measured, a narrowing
 * run's at the latest of its runtime on its suite, then on any scenario. Never another runtime's, which can be
 * far off, and another suite's only when its own has none: Node's first narrowing run of database/insert-batch,
 * priced at its runs of startup/npm-package, was announced at 12 times what it took (docs/history.md, "Progress").
 */
function paceRuns(recent: readonly TimedRun[], job: Required<SweepJob>): { runs: TimedRun[]; of: "own" | "suite" | "runtime" } {
  const { key } = subjectOf(job);
  const own = latestRuns(recent, job.purpose, (subject) => subject === key);
  if (own.length > 0 || job.purpose === "chain") return { runs: own, of: "own" };
  const suites = new Set(suitesOf(key));
  const suite = latestRuns(recent, job.purpose, (subject) => runtimeOf(subject) === job.link.runtime && suitesOf(subject).some((name) => suites.has(name)));
  if (suite.length > 0) return { runs: suite, of: "suite" };
  return { runs: latestRuns(recent, job.purpose, (subject) => runtimeOf(subject) === job.link.runtime), of: "runtime" };
}

/**
 * What a job's estimate is scaled by: the largest ratio of actual to estimated time among the runs it is
 * priced at, 1 before the first; and those runs in words. The largest, not the mean: the estimate is every
 * cell at its cap, and runs whose cells decided early pulled a mean below what a run at the cap takes (Deno's
 * narrowing runs of workers/throughput took 12.5 min at 6 pairs and 23 at 10; the mean announced "up to 16 min
 * 43 s" for one that took 22 min 56 s and ended chunk 71 past its limit).
 */
export function paceOf(recent: readonly TimedRun[], job: Required<SweepJob>): { factor: number; text: string } {
  const { runs, of } = paceRuns(recent, job);
  const ratios = runs.filter((run) => run.estimated > 0).map((run) => run.measured / run.estimated);
  const factor = ratios.length > 0 ? Math.max(...ratios) : 1;
  const pace = runs.length > 1 ? "the slowest pace" : "the pace";
  const { key, words } = subjectOf(job);
  if (runs.length > 0 && of === "own") return { factor, text: `${pace} of the latest ${runsOf(job.purpose, runs.length, words)}` };
  const none = `no ${runsOf(job.purpose, 1, words)} measured yet`;
  if (runs.length === 0) return { factor, text: `${none}: the estimate's own pace` };
  const others = of === "suite" ? `${job.link.runtime} on the ${[...new Set(suitesOf(key))].join(", ")} suite` : job.link.runtime;
  return { factor, text: `${none}: ${pace} of the latest ${runsOf(job.purpose, runs.length, others)}` };
}

/** A job's seconds at the cap scaled by the pace of the latest runs of its kind: what a sweep starts it by, and `--plan` prices it at. */
export function pacedSeconds(recent: readonly TimedRun[], job: Required<SweepJob>, cost: JobCost): number {
  return cost.maxSeconds * paceOf(recent, job).factor;
}

/** The machinery of one sweep: the queue's pace, the gate before each run, and its progress lines. */
class SweepRun {
  stopped: SweepReport["stopped"] = null;
  measured = 0;
  readonly cutShort: string[] = [];
  /**
   * The latest runs of each purpose and subject, this sweep's and earlier ones': a narrowing run of
   * one scenario and a link of every suite miss their estimates by different factors (on the
   * testbed, narrowing runs took 0.6 of theirs and a Node link 0.9), and a link priced at the
   * narrowing runs' pace started where it did not fit. Earlier sweeps' runs count, so that a sweep
   * run again in chunks does not start at 1 and refuse a link that fits; only the latest few, since
   * the host (and its pace) can change between two days.
   */
  private recent: TimedRun[];

  constructor(
    private readonly hooks: SweepHooks,
    private readonly limits: SweepLimits,
  ) {
    this.recent = [...hooks.earlierRuns()];
  }

  private record(run: TimedRun): void {
    this.recent.push(run);
    const sameKind = (a: TimedRun, b: TimedRun) => a.purpose === b.purpose && a.subject === b.subject;
    this.recent = this.recent.filter((kept, i) => this.recent.slice(i + 1).filter((later) => sameKind(later, kept)).length < PACE_RUNS);
    this.hooks.keepRuns(this.recent);
  }

  private secondsLeft(): number | undefined {
    return this.limits.deadline === undefined ? undefined : (this.limits.deadline - this.hooks.now()) / 1000;
  }

  /** The job's seconds with every look its adaptive trials may need, at the slowest pace of the latest runs of its kind. */
  private price(job: Required<SweepJob>): number {
    return pacedSeconds(this.recent, job, this.hooks.cost(job));
  }

  /**
   * Whether the job no longer fits in the time left with every look. A link cut short at its first
   * look is judged on two or three pairs at 0.08 %, where Student's t is in the tens, and decides
   * nothing (Bun 1.3.14 to 1.4.0: startup 2.4× faster in each of three trials, inconclusive): it is
   * left for the next run.
   */
  private overruns(job: Required<SweepJob>): boolean {
    const left = this.secondsLeft();
    return left !== undefined && this.price(job) > left;
  }

  /**
   * Whether the job may start now: false when the sweep stops (Ctrl-C, or the job cannot fit), before
   * or while it waits for a quiet machine. The fit is tested at each poll of the wait, so that a sweep
   * stops as soon as the job no longer fits, not after waiting for the load to fall until its deadline.
   */
  private async ready(job: Required<SweepJob>): Promise<boolean> {
    const { hooks, limits } = this;
    const stop = (): NonNullable<SweepReport["stopped"]> | null => (hooks.interrupted() ? "interrupted" : this.overruns(job) ? "time limit" : null);
    const stopped =
      (await waitForQuiet("sweep", limits.maxLoad, { load: () => hooks.load(), now: () => hooks.now(), sleep: (ms) => hooks.sleep(ms), log: (line) => hooks.log(line), stop })) ??
      // waitForQuiet asks only while the load is high: on a quiet machine, or after its last sleep, the job may not fit.
      stop();
    if (stopped === "time limit") {
      hooks.log(`sweep: time limit: ${linkLabel(job.link)} may take up to ${formatDuration(this.price(job))} with all its looks, and ${formatDuration(Math.max(0, this.secondsLeft()!))} is left; run the sweep again to go on`);
    }
    return stopped === null || this.stop(stopped);
  }

  private stop(reason: NonNullable<SweepReport["stopped"]>): false {
    this.stopped = reason;
    return false;
  }

  /**
   * Measures one job, `queue` being it and the jobs known to follow it; false when the sweep stops
   * (Ctrl-C, or the time limit), before or during the job.
   */
  async run(job: Required<SweepJob>, queue: readonly Required<SweepJob>[], position: string): Promise<boolean> {
    if (this.stopped !== null || !(await this.ready(job))) return false;
    const left = this.secondsLeft();
    const queued = queue.reduce((sum, next) => sum + this.price(next), 0);
    const pace = paceOf(this.recent, job);
    const cells = [job.apps.join(", "), loadPointOptions(job.params)].filter(Boolean).join("; ");
    const what = `${linkLabel(job.link)} on ${job.scenarios.length === 1 ? job.scenarios[0] : `${job.scenarios.length} scenarios`}${cells ? ` (${cells})` : ""}`;
    this.hooks.log(`sweep ${position}: ${what}: up to ${formatDuration(this.price(job))}; up to ${formatDuration(queued)} for what is queued (the estimate at every look × ${pace.factor.toFixed(2)}, ${pace.text})`);
    const started = this.hooks.now();
    const outcome = await this.hooks.measure(job, left);
    if (outcome === "interrupted") return this.stop("interrupted");
    this.measured += 1;
    if (outcome === "measured") {
      this.record({ purpose: job.purpose, subject: subjectOf(job).key, measured: (this.hooks.now() - started) / 1000, estimated: this.hooks.cost(job).maxSeconds });
      return true;
    }
    // Neither its time (the limit's, not its own) sets the pace, nor its verdicts (not final) judge a step: a narrowing half would read as showing none.
    this.cutShort.push(what);
    this.hooks.log(`sweep: ${what}: the time limit stopped its adaptive trials before their last look; its results are in data/, and the next sweep measures it again`);
    return this.stop("time limit");
  }
}

/** One runtime's chain: its links, and the scenarios (`suite/name`) each link runs. */
export interface Chain {
  readonly links: readonly ChainLink[];
  readonly scenarios: readonly string[];
}

/** The plan of a sweep: its chains, and the releases between two releases of a runtime. */
export interface SweepPlan {
  readonly chains: readonly Chain[];
  readonly between: (link: ChainLink) => readonly string[];
  /** Narrow each confirmed step of a link to its release. */
  readonly narrow: boolean;
  /** The version a scenario (`suite/name`) is at in this checkout: what a run measures today. */
  readonly scenarioVersion: (scenario: string) => number;
  /**
   * The pairs a narrowing run of a scenario takes at most (its cap of adaptive trials in the sweep's
   * profile and `--trials`): a half that left its step undecided on fewer is measured again.
   */
  readonly narrowingCap: (scenario: string) => number;
}

/**
 * The chains' runs that data/ does not hold yet: each link on its scenarios not measured at their version in this
 * checkout (a run of another version measured something else: docs/running.md).
 */
export function pendingJobs(chains: readonly Chain[], coverage: RunnerCoverage, scenarioVersion: SweepPlan["scenarioVersion"]): Required<SweepJob>[] {
  return chains.flatMap((chain) => {
    const jobs = chain.links.map((link): SweepJob => ({ link, purpose: "chain" }));
    return missingCells(jobs, () => chain.scenarios, (job, scenario) => coverage.measured(job.link, scenario, scenarioVersion(scenario))).map((job) => ({ ...job, scenarios: job.scenarios!, apps: [], params: {} }));
  });
}

/**
 * Measures each link of the chains, and narrows the link's steps right after it, so that whatever
 * a time limit leaves committed is complete: every link in data/ with its steps narrowed.
 * Resumable at every run; a link data/ already holds is only narrowed (its runs are there if it was).
 */
export async function runSweep(plan: SweepPlan, hooks: SweepHooks, limits: SweepLimits): Promise<SweepReport> {
  const sweep = new SweepRun(hooks, limits);
  const jobs = pendingJobs(plan.chains, hooks.coverage(), plan.scenarioVersion);
  const links = plan.chains.reduce((n, chain) => n + chain.links.length, 0);
  const skipped = links - jobs.length;
  if (skipped > 0) hooks.log(`sweep: ${skipped} of ${links} links are in data/ already, each on every scenario at its version: skipped`);
  const steps: SweepStep[] = [];
  try {
    for (const chain of plan.chains) {
      for (const link of chain.links) {
        const k = jobs.findIndex((job) => job.link === link);
        if (k >= 0 && !(await sweep.run(jobs[k]!, jobs.slice(k), `${k + 1}/${jobs.length}`))) throw new Stopped();
        // Each step as soon as it is narrowed: a time limit within a link's later narrowing keeps the ones finished.
        for await (const step of linkStepsNarrowed(link, chain.scenarios, plan, hooks, sweep)) steps.push(step);
      }
    }
  } catch (error) {
    if (!(error instanceof Stopped)) throw error;
  }
  return { measured: sweep.measured, skipped, steps, cutShort: sweep.cutShort, stopped: sweep.stopped };
}

/**
 * The runs a sweep would start with, as far as data/ can tell, measuring nothing: the links it lacks,
 * and the next runs of each step it holds whose narrowing is not finished (the runs after those
 * depend on what they show). `runs` says which releases run here, as the sweep's hook does; a plan
 * downloads nothing, so it can only tell for releases already downloaded. For `sweep --plan`.
 */
export async function nextRuns(plan: SweepPlan, coverage: RunnerCoverage, cost: SweepHooks["cost"], runs: SweepHooks["runs"] = async () => true): Promise<Required<SweepJob>[]> {
  const jobs: Required<SweepJob>[] = [];
  const dry: SweepHooks = {
    async measure(job) {
      // Unmeasured here, a pair two steps need is asked for twice.
      if (!jobs.some((queued) => jobKey(queued) === jobKey(job))) jobs.push(job);
      return "measured";
    },
    cost,
    coverage: () => coverage,
    load: () => 0,
    sleep: async () => undefined,
    now: () => 0,
    log: () => undefined,
    interrupted: () => false,
    earlierRuns: () => [],
    keepRuns: () => undefined,
    runs,
  };
  await runSweep(plan, dry, { maxLoad: Infinity });
  return jobs;
}

/**
 * A link's confirmed steps in every scenario, each narrowed to its release where releases lie between: all at the
 * scenario's version in this checkout, the one a narrowing run measures. A half a bisection measured can show a
 * step of its own on the scenario's other cells (or the other way on the same cell); it is narrowed too, within that
 * half, as a step of a link is. Every pair judged lies in the link's bisection tree and follows the pairs data/
 * holds, so what this adds is bounded by that tree: at most two runs per release between, per scenario.
 */
async function* linkStepsNarrowed(link: ChainLink, scenarios: readonly string[], plan: SweepPlan, hooks: SweepHooks, sweep: SweepRun): AsyncGenerator<SweepStep> {
  for (const scenario of scenarios) {
    const version = plan.scenarioVersion(scenario);
    /** `pair verdict cell` of every step a bisection already follows: a half that shows it is entered for it. */
    const followed = new Set<string>();
    const followKey = (pair: ChainLink, verdict: LinkStep["verdict"], cell: string) => `${linkLabel(pair)} ${verdict} ${cell}`;
    const follow = (pair: ChainLink, step: Pick<LinkStep, "verdict" | "cells">) => step.cells.forEach((cell) => followed.add(followKey(pair, step.verdict, cell)));
    const pairs: ChainLink[] = [link];
    for (let next = 0; next < pairs.length; next++) {
      const pair = pairs[next]!;
      for (const seen of linkSteps(hooks.coverage(), pair, scenario, version)) {
        const step = ownStep(seen, (cell) => !followed.has(followKey(pair, seen.verdict, cell)));
        if (step === undefined) continue;
        follow(pair, step);
        const between = plan.narrow ? plan.between(pair) : [];
        if (between.length > 0) hooks.log(`sweep: ${linkLabel(pair)}${pair === link ? "" : ` (within ${linkLabel(link)})`} is ${step.verdict} on ${scenario}; narrowing it over the ${count(between.length, "release")} between`);
        const [apps, params, cells] = [stepApps(step), stepParams(step), stepLoadPoints(step)];
        const judge = async (from: string, to: string) => {
          const half = { runtime: link.runtime, from, to };
          const coverage = hooks.coverage();
          if (!coverage.measured(half, scenario, version, cells) || stoppedShort(coverage, half, step, plan.narrowingCap(scenario))) {
            const job = { link: half, scenarios: [scenario], apps, params, purpose: "narrowing" as const };
            if (!(await sweep.run(job, [job], `narrowing ${linkLabel(pair)} on ${scenario}`))) throw new Stopped();
          }
          const judgement = showsStep(hooks.coverage(), half, step);
          if (judgement === "step") follow(half, step);
          if (!pairs.some((p) => linkLabel(p) === linkLabel(half)) && plan.between(half).length > 0) pairs.push(half);
          return judgement;
        };
        const measured = (from: string, to: string) => hooks.coverage().measured({ runtime: link.runtime, from, to }, scenario, version, cells);
        let narrowed: readonly NarrowedStep[];
        try {
          narrowed = await narrowStep(pair.from, pair.to, between, judge, { runs: (release) => hooks.runs(link.runtime, release), measured });
        } catch (error) {
          // A step whose narrowing the stop cut off is still a confirmed step: the report shows it as open.
          if (error instanceof Stopped) yield { link: pair, step, narrowed: null };
          throw error;
        }
        yield { link: pair, step, narrowed };
      }
    }
  }
}

/** A step restricted to the cells a bisection does not follow yet; undefined when it follows them all. */
function ownStep(step: LinkStep, unfollowed: (cell: string) => boolean): LinkStep | undefined {
  const rows = step.rows.filter((row) => unfollowed(stepCell(row)));
  return rows.length === 0 ? undefined : { ...step, cells: rows.map(stepCell), rows };
}
