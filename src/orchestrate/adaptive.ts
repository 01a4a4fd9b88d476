/**
 * Adaptive trials: a scenario in which two or more subjects of one runtime run side by side (two
 * builds, or a release and its predecessor) takes its profile's `trials` as a minimum (never below
 * the MIN_PAIRS a paired interval needs, so a one-trial profile is not blind to its release), then
 * looks at the pairs of each app and load point and runs that point another round of trials while
 * one of its pairs is still undecided against PAIRED_MIN_EFFECT and likely to be decided by the last
 * look, up to MAX_TRIALS_FACTOR times the minimum (at least the profile's MIN_MAX_TRIALS) and
 * within the job's budget of extra trials and extra time. A point decided, futile (its undecided pairs unlikely to be decided by the cap), or
 * with no pair left to judge (a side failed), stops while the others go on: one undecided point
 * does not keep a scenario's every cell running. The rule and its false-alarm rate are in
 * src/compare/sequential.ts. A point where only subjects of different runtimes meet (the default
 * run's) is a one-off question: it takes the first two of the same looks on its headline metric,
 * each pair of runtimes judged by the one-off plan (most of 5 % at the first look; no more trials
 * for runtimes less than ONE_OFF_GAP apart), so a wide gap that its first
 * two noisy pairs leave undecided still gets a verdict. A scenario without either runs exactly its
 * profile's trials. The smoke profile judges nothing, so it runs its one trial whatever its subjects.
 */
import { paramsSlug } from "../core/params.ts";
import { splitTrials } from "../compare/ratio.ts";
import { groupBy } from "../compare/series-key.ts";
import { MIN_PAIRS, ONE_OFF_GAP, PAIRED_MIN_EFFECT, adaptivePlan, oneOffPlan, pairLogRatios, standingAtLook, type SequentialPlan } from "../compare/sequential.ts";
import { mean, median } from "../stats/summary.ts";
import type { ResultDocument, SuiteProfile } from "../results/types.ts";
import type { Subject } from "../suites/suite.ts";

/** What the schedule reads of a cell: its subject, whether it is still measured, and its samples by trial. */
export interface ScheduledCell {
  readonly subject: Subject;
  readonly status: string;
  readonly samples: Readonly<Record<string, readonly number[]>>;
  readonly trialSamples: Readonly<Record<string, readonly number[]>>;
}

/** What a whole run may spend on trials beyond each profile's minimum, shared by its scenarios: trials, and seconds. */
export interface TrialBudget {
  trials: number;
  seconds: number;
}

/** No limit but each cell's cap. */
export const UNLIMITED: Readonly<TrialBudget> = { trials: Infinity, seconds: Infinity };

type Stopped = NonNullable<ResultDocument["sequential"]>["stopped"];

/** The app and load point of a cell: cells that share it are compared trial by trial. */
export const cellKey = (cell: Pick<ScheduledCell, "subject">) => `${cell.subject.app ?? "-"} ${paramsSlug(cell.subject.params)}`;

/** Each subject after the first of its runtime, against that first one: the pairs of one app and load point. */
function pairsOf<C extends ScheduledCell>(cells: readonly C[]): [C, C][] {
  const groups = groupBy(cells, (cell) => cell.subject.runtime.identity.name);
  return [...groups.values()].flatMap(([base, ...heads]) => heads.map((head): [C, C] => [base!, head]));
}

/** The first subject of each runtime against the first of every other: the one-off pairs of one app and load point. */
function acrossRuntimes<C extends ScheduledCell>(cells: readonly C[]): [C, C][] {
  const firsts = [...groupBy(cells, (cell) => cell.subject.runtime.identity.name).values()].map(([first]) => first!);
  return firsts.flatMap((base, i) => firsts.slice(i + 1).map((head): [C, C] => [base, head]));
}

/** A scenario's headline metric: its first. */
const headlineOf = (cell: ScheduledCell) => Object.keys(cell.subject.scenario.metrics)[0]!;

const trialsOf = (cell: ScheduledCell, metric: string) => splitTrials(cell.samples[metric] ?? [], cell.trialSamples[metric] ?? []);

/**
 * Runtimes side by side less than ONE_OFF_GAP apart, by both the pairs' mean ratio and the ratio of
 * their medians, which compare prints side by side: where a few noisy pairs leave the two apart
 * (×1.37 against ×1.59 in a default run), the point takes its next look rather than stop short of
 * a gap the reader sees.
 */
function smallGap(logRatios: readonly number[], baseSamples: readonly number[], headSamples: readonly number[]): boolean {
  const medians = Math.log(median(headSamples) / median(baseSamples));
  return Math.max(Math.abs(mean(logRatios)), Number.isFinite(medians) ? Math.abs(medians) : 0) < Math.log1p(ONE_OFF_GAP);
}

/** A point of runtimes side by side: judged by the one-off plan, on its headline metric alone. */
const oneOff = (point: Point) => point.plan.firstShare !== undefined;

const measured = ([base, head]: readonly [ScheduledCell, ScheduledCell]) => base.status === "pending" && head.status === "pending";

/**
 * The cells of one app and load point, which stop together: every comparison of the run pairs
 * cells of one app and load point trial by trial, so they must have run the same trials. Its own
 * pairs decide when it stops, not those of the scenario's other load points.
 */
interface Point {
  readonly cells: readonly ScheduledCell[];
  readonly pairs: readonly (readonly [ScheduledCell, ScheduledCell])[];
  /** What its pairs are judged by: builds of one runtime by the sequential rule on every metric, runtimes side by side by the one-off plan on the headline (`oneOff`). */
  readonly plan: SequentialPlan;
  /** Why its adaptive trials stopped; null while they go on, and for a point with no pair left to judge. */
  stopped: Stopped | null;
  measuring: boolean;
}

export interface ScheduleOptions {
  /** The run's profile, which sets the cap of adaptive trials (MIN_MAX_TRIALS). */
  readonly profile: SuiteProfile;
  /** False for a run whose results no verdict reads (the smoke profile). */
  readonly judged?: boolean;
  /** Cells measured in every round the schedule runs and never judged (the run's sentinel, for drift). */
  readonly alongside?: readonly ScheduledCell[];
  /**
   * False: an undecided point goes on to its cap, however unlikely a verdict there. A narrowing run
   * asks which half of a confirmed step holds it; a half stopped at its second look is "not
   * narrowed" for want of a few trials that cost seconds (docs/history.md).
   */
  readonly futility?: boolean;
}

export class TrialSchedule {
  /** The trial counts at which points are judged; null where no point has a pair to judge (each cell runs its profile's trials). */
  readonly looks: readonly number[] | null;
  private readonly points: Point[];
  private readonly pointOf = new Map<ScheduledCell, Point>();

  private readonly alongside: readonly ScheduledCell[];
  private readonly futility: boolean;

  constructor(
    readonly minTrials: number,
    cells: readonly ScheduledCell[],
    private readonly budget: TrialBudget,
    { profile, judged = true, alongside = [], futility = true }: ScheduleOptions,
  ) {
    this.alongside = alongside;
    this.futility = futility;
    const point = (group: readonly ScheduledCell[]): Point => {
      const releases = judged ? pairsOf(group) : [];
      const base = { cells: group, stopped: null, measuring: true };
      if (releases.length > 0) return { ...base, pairs: releases, plan: adaptivePlan(minTrials, profile) };
      return { ...base, pairs: judged ? acrossRuntimes(group) : [], plan: oneOffPlan(minTrials, profile) };
    };
    this.points = [...groupBy(cells, cellKey).values()].map(point);
    for (const p of this.points) for (const cell of p.cells) this.pointOf.set(cell, p);
    // Both plans look at the same trial counts (the one-off at the first two); what each look may spend differs.
    this.looks = this.points.some((p) => p.pairs.length > 0) ? adaptivePlan(minTrials, profile).looks : null;
  }

  /** Trials every cell takes, whatever its pairs say. */
  private get firstTrials(): number {
    return this.looks?.[0] ?? this.minTrials;
  }

  /**
   * Where the point stands at look `k`: its pairs all decided; one open (undecided, and likely to be
   * decided by the last look, or at the last look itself); or the undecided ones futile, or, for
   * runtimes side by side, a small gap (less than ONE_OFF_GAP apart: not worth more trials). Too few pairs for
   * an interval is open; a metric whose trials give no ratio (a zero median) decides nothing,
   * however many.
   */
  private standing(point: Point, k: number): "decided" | "open" | "futile" | "small gap" {
    let standing: "decided" | "futile" | "small gap" = "decided";
    for (const [base, head] of point.pairs.filter(measured)) {
      const metrics = oneOff(point) ? [headlineOf(base)].filter((metric) => metric in base.samples && metric in head.samples) : Object.keys(base.samples);
      for (const metric of metrics) {
        const baseTrials = trialsOf(base, metric);
        const headTrials = trialsOf(head, metric);
        if (Math.min(baseTrials.length, headTrials.length) < MIN_PAIRS) return "open";
        const logRatios = pairLogRatios(baseTrials, headTrials);
        const metricStanding = logRatios === null ? "decided" : standingAtLook(logRatios, point.plan, k, PAIRED_MIN_EFFECT);
        if (metricStanding === "decided") continue;
        if (oneOff(point) && smallGap(logRatios!, base.samples[metric]!, head.samples[metric]!)) {
          if (standing === "decided") standing = "small gap";
          continue;
        }
        if (metricStanding === "open") return "open";
        if (!this.futility) return "open";
        standing = "futile";
      }
    }
    return standing;
  }

  /** Whether `cell` takes trial `t` (0-based): every cell its first trials, then only the points still undecided, and the cells alongside them. */
  measures(cell: ScheduledCell, t: number): boolean {
    if (t < this.firstTrials) return true;
    const point = this.pointOf.get(cell);
    return point === undefined ? this.alongside.includes(cell) : point.measuring;
  }

  /**
   * After every cell has had `done` trials: run one more round, each trial taking `secondsPerTrial`
   * as they did so far? Beyond its first trials, a point whose pairs lost a side has nothing left to
   * judge and stops at once. At a look, each point still measured stops when its pairs are decided
   * or futile, and the rounds up to the next look of the points that go on are taken from the budget
   * at once, so a point always stops at a look and each look is tested once, at its own share of alpha.
   */
  another(done: number, secondsPerTrial = 0): boolean {
    const looks = this.looks;
    if (looks === null) return done < this.minTrials;
    if (done < this.firstTrials) return true;
    for (const point of this.points) if (!point.pairs.some(measured)) point.measuring = false;
    const k = looks.indexOf(done);
    if (k >= 0) this.look(looks, k, done, secondsPerTrial);
    return this.points.some((point) => point.measuring);
  }

  private look(looks: readonly number[], k: number, done: number, secondsPerTrial: number): void {
    const going = this.points.filter((point) => point.measuring);
    for (const point of going) {
      const standing = this.standing(point, k);
      if (standing === "decided") this.stop(point, standing);
      else if (k === point.plan.looks.length - 1) this.stop(point, "max trials");
      else if (standing !== "open") this.stop(point, standing);
    }
    const goingOn = going.filter((point) => point.measuring);
    if (goingOn.length === 0) return;
    const cells = goingOn.reduce((sum, point) => sum + point.cells.filter((cell) => cell.status === "pending").length, 0) + this.alongside.length;
    const rounds = looks[k + 1]! - done;
    const cost = { trials: rounds * cells, seconds: rounds * cells * secondsPerTrial };
    if (this.budget.trials < cost.trials || this.budget.seconds < cost.seconds) {
      for (const point of goingOn) this.stop(point, "budget");
      return;
    }
    this.budget.trials -= cost.trials;
    this.budget.seconds -= cost.seconds;
  }

  private stop(point: Point, why: Stopped): void {
    point.stopped = why;
    point.measuring = false;
  }

  /** What a cell's result records of its adaptive trials; nothing for a cell no pair of its point judged by them. */
  record(cell: ScheduledCell): ResultDocument["sequential"] {
    const point = this.pointOf.get(cell);
    if (point?.stopped === undefined || point.stopped === null) return undefined;
    const { looks, alpha, firstShare } = point.plan;
    return { looks: [...looks], alpha, ...(firstShare === undefined ? {} : { first_share: firstShare }), stopped: point.stopped };
  }
}
