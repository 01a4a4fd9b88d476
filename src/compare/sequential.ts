/**
 * The paired design's statistics, shared by the orchestrator (whether a cell needs more trials) and
 * by `comparePaired` (its verdict), so a run stops on exactly the rule its comparison judges by.
 *
 * Two subjects of one run are measured trial by trial, side by side; trial k of HEAD is paired with
 * trial k of BASE. Each pair gives one log ratio of the trials' medians: what the machine did in
 * that minute falls on both and cancels, so the run-to-run shift of the machine never enters. The
 * mean of the log ratios and its Student t interval over the pairs give the ratio and its interval.
 *
 * Adaptive trials look at the pairs more than once, and each look is a chance of a false alarm. The
 * rule is group-sequential with a fixed set of looks (the minimum trials, half-way, the maximum;
 * more on a long way to the maximum) and alpha spending: look k tests at
 * alpha_k = alpha · (t_k² − t_(k−1)²), t_k its share of the maximum trials, so the looks together
 * spend exactly alpha. By the union bound the
 * chance of any false alarm over all looks is at most alpha whatever the correlation of the looks:
 * conservative, and valid without a table of boundaries. Early looks spend little (a change seen
 * there must be plain), the last look most. A one-off comparison (two runtimes of one run) spends
 * its 5 % the other way round: most at its first look, which decides most of its cells, and the
 * rest at one more look for the cells still undecided (ONE_OFF_FIRST_SHARE). The union bound holds
 * for any split, and whatever decides which cells go on.
 */
import { mean, median, stddev } from "../stats/summary.ts";
import { moderate, type CellSpread, type SpreadPrior } from "./moderated.ts";
import { tCritical, tTwoSidedP } from "./student-t.ts";
import type { ResultDocument, SuiteProfile } from "../results/types.ts";
import { exceedsMinEffect, excludesOne, withinMinEffect } from "./verdict.ts";

/**
 * Two-sided false-alarm rate of one paired comparison over all its looks: 0.08 %. The regressions
 * feed judges every release of a series this way, so over a dozen releases at most 1 % of series
 * without a change carry a false alarm (12 × 0.08 % = 0.96 %); `compare` and the runs' stopping
 * rule use the same rate, so a run stops exactly when the feed can judge it.
 */
export const PAIRED_ALPHA = 0.0008;

/**
 * Two-sided false-alarm rate of a one-off comparison of two subjects of one run (two runtimes,
 * builds a user labelled): one look, at the usual 5 %, as Node's benchmark/compare.js reports a
 * one-off A/B (and, as it warns, one such comparison in twenty crosses it by chance).
 */
export const SINGLE_LOOK_ALPHA = 0.05;

/**
 * The share of SINGLE_LOOK_ALPHA a one-off comparison's first look spends (4 % of its 5 %); its second
 * and last look spends the rest. Where two runtimes run side by side, most cells are decided at the
 * first look, and a first look of two pairs at a small share of 5 % (the t² rule gives it 0.2 %)
 * could decide almost nothing: its t quantile at 1 degree of freedom is in the hundreds. A cell
 * still undecided goes on, and its second look (1 % in the quick profile, at 6 pairs) decides a wide
 * gap that two noisy pairs could not.
 */
export const ONE_OFF_FIRST_SHARE = 0.8;

/**
 * The gap between two runtimes worth more trials: a one-off pair undecided at its first look goes
 * on only where its ratio is 1.5× or more either way. A gap that wide is what a reader of a one-off
 * comparison acts on, and what two noisy pairs most often leave undecided (issue 37); smaller gaps
 * are the release job's to settle. At 10 %, nearly every load point of the default run went on,
 * and the run took over half as long again (docs/paired-verdicts.md).
 */
export const ONE_OFF_GAP = 0.5;

/** Pairs of trials a paired interval needs: with one, the spread between pairs is unknown. */
export const MIN_PAIRS = 2;

/** The smallest change a paired verdict reports (1 %): a smaller one, however certain, is called no change. */
export const PAIRED_MIN_EFFECT = 0.01;

/** Adaptive trials go up to this many times the profile's `trials` (its minimum), and to at least the profile's MIN_MAX_TRIALS. */
export const MAX_TRIALS_FACTOR = 3;

/**
 * The fewest trials adaptive trials may go up to, by profile. The release job's profile (full)
 * takes up to 30 in every suite: at 10, documented steps of 4 to 9 % stayed undecided on the shared
 * 2-CPU testbed in the suites whose full profile starts at 3 trials, and replays that went on
 * decided them at 12 to 30 pairs (docs/known-changes.md). The quick profile keeps 10: it is the
 * default run's and a history sweep's, whose time is the budget.
 */
export const MIN_MAX_TRIALS: Readonly<Record<SuiteProfile, number>> = { quick: 10, full: 30 };

/** Looks per adaptive comparison at the least: at the minimum, half-way, and at the maximum. */
export const LOOKS = 3;

/** At most this many trials between two looks: a plain change stops there rather than waiting on a long gap to the cap. */
export const MAX_LOOK_GAP = 10;

/** When a paired comparison looks at its pairs, and the total false-alarm rate those looks share. */
export interface SequentialPlan {
  /** Trial counts at which the pairs are judged, ascending; the last is the maximum. */
  readonly looks: readonly number[];
  readonly alpha: number;
  /** A one-off comparison's plan: the share of alpha its first look spends, the later looks sharing the rest evenly. Absent: the t² rule. */
  readonly firstShare?: number;
}

/**
 * The looks of a cell whose profile asks for `minTrials` trials: evenly from the minimum (never
 * below MIN_PAIRS: a one-trial profile gives no interval) to its maximum, MAX_TRIALS_FACTOR times
 * the minimum but at least the profile's MIN_MAX_TRIALS (two or three pairs alone leave a t
 * interval too wide to decide anything at a small alpha); LOOKS of them, more where the looks
 * would lie over MAX_LOOK_GAP trials apart.
 */
export function adaptivePlan(minTrials: number, profile: SuiteProfile, alpha = PAIRED_ALPHA): SequentialPlan {
  const first = Math.max(minTrials, MIN_PAIRS);
  const max = Math.max(MAX_TRIALS_FACTOR * first, MIN_MAX_TRIALS[profile]);
  const gaps = Math.max(LOOKS - 1, Math.ceil((max - first) / MAX_LOOK_GAP));
  return { looks: Array.from({ length: gaps + 1 }, (_, k) => Math.round(first + ((max - first) * k) / gaps)), alpha };
}

/** The looks of a one-off comparison (two runtimes side by side) whose profile asks for `minTrials` trials: adaptivePlan's first two, spending SINGLE_LOOK_ALPHA mostly at the first. */
export function oneOffPlan(minTrials: number, profile: SuiteProfile): SequentialPlan {
  return { looks: adaptivePlan(minTrials, profile).looks.slice(0, 2), alpha: SINGLE_LOOK_ALPHA, firstShare: ONE_OFF_FIRST_SHARE };
}

/** The plan a result's `sequential` record stands for. */
export function recordedPlan(recorded: NonNullable<ResultDocument["sequential"]>): SequentialPlan {
  return { looks: recorded.looks, alpha: recorded.alpha, ...(recorded.first_share === undefined ? {} : { firstShare: recorded.first_share }) };
}

/** A single look at a fixed number of trials: a run without adaptive trials, judged once. */
export function fixedPlan(trials: number, alpha = PAIRED_ALPHA): SequentialPlan {
  return { looks: [trials], alpha };
}

/**
 * The share of alpha the looks up to look `i` spend together (0 before the first): t_i², t_i its
 * share of the maximum trials; for a one-off plan, its first look's share and then even steps.
 */
function spentBy(plan: SequentialPlan, i: number): number {
  if (i < 0) return 0;
  const last = plan.looks.length - 1;
  if (plan.firstShare === undefined) return (plan.looks[i]! / plan.looks[last]!) ** 2;
  return last === 0 ? 1 : plan.firstShare + ((1 - plan.firstShare) * i) / last;
}

/** The false-alarm rate look `k` may spend: alpha · (t_k² − t_(k−1)²). */
export function lookAlpha(plan: SequentialPlan, k: number): number {
  return plan.alpha * (spentBy(plan, k) - spentBy(plan, k - 1));
}

/**
 * The false-alarm rate a run's final judgement at look `k` spends. Where the run stopped for its
 * data (decided) or at its last look: that look's share. Where its budget stopped it early, the
 * later looks never come, so this look spends all they would have: alpha less the earlier looks'
 * shares. The looks taken still spend alpha in all (the union bound), and a link of a sweep that
 * ran out of time at its first look is not judged at a sliver of alpha it can never pass.
 */
export function finalAlpha(plan: SequentialPlan, k: number, stoppedByBudget: boolean): number {
  return stoppedByBudget ? plan.alpha * (1 - spentBy(plan, k - 1)) : lookAlpha(plan, k);
}

/** The look a comparison of `trials` pairs stands at: the last look reached (the first, when short of it). */
export function lookIndex(plan: SequentialPlan, trials: number): number {
  const reached = plan.looks.filter((look) => look <= trials).length;
  return Math.max(0, reached - 1);
}

export interface PairedEstimate {
  /** exp(mean log ratio): the geometric mean of HEAD/BASE over the pairs. */
  readonly ratio: number;
  /** Two-sided 1 − alpha Student t interval of that ratio, over the pairs. */
  readonly ci: [number, number];
  readonly pairs: number;
  readonly alpha: number;
  /** The interval's degrees of freedom: pairs − 1, plus those a spread prior lent (moderated.ts). */
  readonly df: number;
}

/** Trial k of HEAD against trial k of BASE: the log ratio of their medians, per pair; null with fewer than MIN_PAIRS pairs or a median of 0. */
export function pairLogRatios(baseTrials: readonly (readonly number[])[], headTrials: readonly (readonly number[])[]): number[] | null {
  const pairs = Math.min(baseTrials.length, headTrials.length);
  if (pairs < MIN_PAIRS) return null;
  const logRatios = Array.from({ length: pairs }, (_, k) => Math.log(median(headTrials[k]!) / median(baseTrials[k]!)));
  return logRatios.every(Number.isFinite) ? logRatios : null;
}

/** The spread between a cell's pairs: the variance of their log ratios, with pairs − 1 degrees of freedom. */
export function pairSpread(logRatios: readonly number[]): CellSpread {
  return { variance: stddev(logRatios) ** 2, df: logRatios.length - 1 };
}

/**
 * HEAD against BASE from their trials (each a list of samples), trial k with trial k, at
 * false-alarm rate `alpha`; null with fewer than MIN_PAIRS pairs (no spread between pairs to go
 * by) or when a trial's median is 0 (no ratio). With a `prior`, the spread is the cell's own
 * moderated by the other cells' (moderated.ts), with their degrees of freedom added.
 */
export function pairedEstimate(baseTrials: readonly (readonly number[])[], headTrials: readonly (readonly number[])[], alpha: number, prior: SpreadPrior | null = null): PairedEstimate | null {
  const logRatios = pairLogRatios(baseTrials, headTrials);
  return logRatios === null ? null : estimateOf(logRatios, alpha, prior);
}

/** The estimate from the pairs' log ratios (at least MIN_PAIRS of them). */
export function estimateOf(logRatios: readonly number[], alpha: number, prior: SpreadPrior | null = null): PairedEstimate {
  const own = pairSpread(logRatios);
  const spread = prior === null ? own : moderate(own, prior);
  const center = mean(logRatios);
  const half = (tCritical(alpha, spread.df) * Math.sqrt(spread.variance)) / Math.sqrt(logRatios.length);
  return { ratio: Math.exp(center), ci: [Math.exp(center - half), Math.exp(center + half)], pairs: logRatios.length, alpha, df: spread.df };
}

/**
 * What an estimate settles against the minimum effect e: a change (the interval excludes 1 and
 * the ratio is beyond e), no change (the whole interval lies within ±e), or nothing yet. Only a
 * change can be a false alarm; stopping for "no change" takes no chance from alpha.
 */
export function settled(estimate: PairedEstimate, minEffect: number): "change" | "no change" | "undecided" {
  if (excludesOne(estimate.ci) && exceedsMinEffect(estimate.ratio, minEffect)) return "change";
  if (withinMinEffect(estimate.ci, minEffect)) return "no change";
  return "undecided";
}

/**
 * Below this chance of being decided at the last look, a pair still undecided at an earlier look is
 * futile: its trials stop there, since going on to the cap would most likely buy an inconclusive
 * verdict at up to three times the cost. Stopping for futility never makes a false alarm more
 * likely (the bounds of a change stay as they are, and a pair stopped crosses none of them later):
 * it gives up a little power on steps the cap could barely have decided.
 */
export const FUTILITY_CHANCE = 0.1;

/** P(T > x) for Student's t with `df` degrees of freedom. */
const above = (x: number, df: number) => (x >= 0 ? tTwoSidedP(x, df) / 2 : 1 - tTwoSidedP(-x, df) / 2);

/**
 * The chance that a pair undecided at a look before the last is decided (a change, or no change) at
 * the plan's last look: its predictive power. The pairs still to come are taken to have the spread
 * of those so far, and a mean drawn as the data so far allow (a flat prior), so the last look's mean
 * log ratio lies about the present mean m with spread s·√((N − n) / (N·n)), Student t with the
 * present pairs' degrees of freedom, for n pairs now and N at the last look; its interval's half-width
 * is the present spread's at the last look's alpha. A change needs |mean| beyond that half-width and
 * the minimum effect; no change needs |mean| within the minimum effect less the half-width.
 */
export function chanceDecidedAtLast(logRatios: readonly number[], plan: SequentialPlan, minEffect: number): number {
  const pairs = logRatios.length;
  const last = plan.looks.at(-1)!;
  const { variance, df } = pairSpread(logRatios);
  const sd = Math.sqrt(variance);
  const center = mean(logRatios);
  const bound = Math.log1p(minEffect);
  const halfWidth = (tCritical(lookAlpha(plan, plan.looks.length - 1), last - 1) * sd) / Math.sqrt(last);
  const spread = sd * Math.sqrt((last - pairs) / (last * pairs));
  const beyond = (edge: number) => above((edge - center) / spread, df) + above((edge + center) / spread, df);
  const change = beyond(Math.max(halfWidth, bound));
  const noChange = halfWidth < bound ? 1 - beyond(bound - halfWidth) : 0;
  return change + noChange;
}

/**
 * Where one metric of a pair stands at look `k`: decided (a change, or no change); open (undecided,
 * at the last look or likely to be decided by it); or futile. The schedule stops on it, and
 * benchmarks/futility-replay replays it.
 */
export function standingAtLook(logRatios: readonly number[], plan: SequentialPlan, k: number, minEffect: number): "decided" | "open" | "futile" {
  if (settled(estimateOf(logRatios, lookAlpha(plan, k)), minEffect) !== "undecided") return "decided";
  return k === plan.looks.length - 1 || chanceDecidedAtLast(logRatios, plan, minEffect) >= FUTILITY_CHANCE ? "open" : "futile";
}
