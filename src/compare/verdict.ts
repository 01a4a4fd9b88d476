import { clientLimitOf, type Better } from "../results/types.ts";
import { pooledMedian, ratioOfMedians, type RatioEstimate } from "./ratio.ts";
import type { Measurement } from "./series-key.ts";

/**
 * Three honest outcomes. A change needs both: the interval of the ratio excludes 1, and the ratio
 * lies beyond the minimum effect e (above 1 + e or below 1 / (1 + e)); `faster` is in the metric's
 * own direction. No significant change needs the whole interval within ±e: the data rule out a
 * change larger than e. Anything else is inconclusive, and says why: an interval that reaches
 * beyond ±e neither shows a change nor rules one out, however little the ratio moved.
 */
export function judge({ ratio, ci95 }: RatioEstimate, better: Better, minEffect: number, level = "95 %"): Judgement {
  if (excludesOne(ci95) && exceedsMinEffect(ratio, minEffect)) return { verdict: (ratio < 1) === (better === "lower") ? "faster" : "slower" };
  if (withinMinEffect(ci95, minEffect)) return { verdict: "no significant change" };
  return { verdict: "inconclusive", reason: tooWide(ci95, minEffect, level) };
}

export interface Judgement {
  verdict: "faster" | "slower" | "no significant change" | "inconclusive";
  /** Why the verdict is `inconclusive`. */
  reason?: string;
}

/** The whole interval lies within ±e on a log scale: it rules out a change larger than e. */
export function withinMinEffect([low, high]: readonly [number, number], minEffect: number): boolean {
  const bound = Math.log1p(minEffect);
  return Math.log(low) >= -bound && Math.log(high) <= bound;
}

/**
 * A ratio's bound in three decimals; from 10,000 up in three significant digits, since two pairs at
 * the sequential rule's first look can reach 1e+21, which toFixed would print in seventeen.
 */
const formatBound = (bound: number) => (!Number.isFinite(bound) ? "∞" : bound >= 1e4 ? bound.toExponential(2) : bound.toFixed(3));

/** `[0.912, 1.087]`: an interval of a ratio as every table, feed and reason prints it (`0` for a bound at or below it). */
export function formatInterval([low, high]: readonly [number, number]): string {
  return `[${low > 0 ? formatBound(low) : "0"}, ${formatBound(high)}]`;
}

/** Why an interval that is neither a change nor within ±e decides nothing. */
export function tooWide(interval: readonly [number, number], minEffect: number, level: string): string {
  return `the ${level} interval ${formatInterval(interval)} reaches beyond ±${(minEffect * 100).toFixed(1)} %: it neither shows a change nor rules one out`;
}

export function excludesOne([low, high]: readonly [number, number]): boolean {
  return low > 1 || high < 1;
}

/** The ratio lies beyond the minimum effect e, in either direction, on a log scale. */
export function exceedsMinEffect(ratio: number, minEffect: number): boolean {
  return Math.abs(Math.log(ratio)) > Math.log1p(minEffect);
}

/** Whether a side's load generator, not its server, set a metric's figure (the metric's client ran out of CPU in some trial). */
const clientBound = (side: readonly Measurement[]) => side.some(({ doc, summary }) => clientLimitOf(doc, summary) !== null);

/**
 * A side whose client was the bottleneck measured the client's limit: its server is at least that
 * good, by how much is unknown. So a change stands only where that side is the one found better
 * (better by at least the ratio); anything else about it, "no significant change" above all
 * (two servers at one client's ceiling look equal), is inconclusive.
 */
export function boundedByClient(judgement: Judgement, base: readonly Measurement[], head: readonly Measurement[]): Judgement {
  const [baseBound, headBound] = [clientBound(base), clientBound(head)];
  if (!baseBound && !headBound) return judgement;
  const tool = (baseBound ? base : head)[0]!.summary.client_limited;
  if (baseBound && headBound) return { verdict: "inconclusive", reason: `both sides were client-bound (${tool} used all its CPU): each figure is ${tool}'s limit, not its server's` };
  if (judgement.verdict === (headBound ? "faster" : "slower")) return judgement;
  return { verdict: "inconclusive", reason: `${headBound ? "HEAD" : "BASE"} was client-bound (${tool} used all its CPU): its server may be faster than its figure, which bounds it from below only` };
}

export interface MeasuredChange extends RatioEstimate, Judgement {}

/** Trials a verdict needs on each side: with one, the spread between trials (the machine's state of the moment) is unknown. */
export const MIN_TRIALS = 2;

/** Why one side has too few trials (or samples) for any verdict, or null. */
function tooFewTrials(sides: Readonly<Record<"BASE" | "HEAD", readonly Measurement[]>>): string | null {
  for (const [label, side] of Object.entries(sides)) {
    const trials = side.reduce((n, m) => n + m.doc.run.trials, 0);
    const samples = side.reduce((n, m) => n + m.summary.samples.length, 0);
    if (trials < MIN_TRIALS || samples < 2) {
      return `too few trials: ${label} has ${trials} trial${trials === 1 ? "" : "s"} (${samples} sample${samples === 1 ? "" : "s"}), a verdict needs ${MIN_TRIALS} on each side`;
    }
  }
  return null;
}

/**
 * HEAD against BASE for one metric, each side pooled over its runs: the step both compare and
 * regressions take. A side with fewer than MIN_TRIALS trials has no spread between trials to
 * resample, so its interval would be far too narrow: such a pair is inconclusive.
 */
export function measureChange(base: readonly Measurement[], head: readonly Measurement[], minEffect: number): MeasuredChange {
  const estimate = ratioOfMedians(base, head);
  const few = tooFewTrials({ BASE: base, HEAD: head });
  if (few !== null) return { ...estimate, verdict: "inconclusive", reason: few };
  return { ...estimate, ...boundedByClient(judge(estimate, base[0]!.summary.better, minEffect), base, head) };
}

/**
 * The change between two sides when it is significant, else null. A pooled ratio within the
 * minimum effect is no change whatever its interval, so the bootstrap runs only for candidates:
 * what makes a whole history quick to scan.
 */
export function significantChange(base: readonly Measurement[], head: readonly Measurement[], minEffect: number): MeasuredChange | null {
  if (!exceedsMinEffect(pooledMedian(head) / pooledMedian(base), minEffect)) return null;
  const change = measureChange(base, head, minEffect);
  return change.verdict === "faster" || change.verdict === "slower" ? change : null;
}
