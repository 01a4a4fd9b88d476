import type { Better } from "../results/types.ts";
import { pooledMedian, ratioOfMedians, type RatioEstimate } from "./ratio.ts";
import type { Measurement } from "./series-key.ts";
import type { Verdict } from "./types.ts";

/**
 * A change needs both: the 95 % interval of the ratio excludes 1, and the ratio lies beyond the
 * minimum effect (above 1 + e or below 1 / (1 + e)). `faster` is in the metric's own direction.
 */
export function judge({ ratio, ci95 }: RatioEstimate, better: Better, minEffect: number): Exclude<Verdict, "not comparable"> {
  const excludesOne = ci95[0] > 1 || ci95[1] < 1;
  if (!excludesOne || !exceedsMinEffect(ratio, minEffect)) return "no significant change";
  return (ratio < 1) === (better === "lower") ? "faster" : "slower";
}

/** The ratio lies beyond the minimum effect e, in either direction, on a log scale. */
export function exceedsMinEffect(ratio: number, minEffect: number): boolean {
  return Math.abs(Math.log(ratio)) > Math.log1p(minEffect);
}

export interface MeasuredChange extends RatioEstimate {
  verdict: Exclude<Verdict, "not comparable">;
}

const sampleCount = (side: readonly Measurement[]) => side.reduce((n, m) => n + m.summary.samples.length, 0);

/**
 * HEAD against BASE for one metric, each side pooled over its runs: the step both compare and
 * regressions take. A side with a single sample has no spread to resample, so its interval would
 * be a point: such a pair never gets a verdict.
 */
export function measureChange(base: readonly Measurement[], head: readonly Measurement[], minEffect: number): MeasuredChange {
  const estimate = ratioOfMedians(base, head);
  const verdict = sampleCount(base) < 2 || sampleCount(head) < 2 ? "no significant change" : judge(estimate, base[0]!.summary.better, minEffect);
  return { ...estimate, verdict };
}

/**
 * The change between two sides when it is significant, else null. A pooled ratio within the
 * minimum effect is no change whatever its interval, so the bootstrap runs only for candidates:
 * what makes a whole history quick to scan.
 */
export function significantChange(base: readonly Measurement[], head: readonly Measurement[], minEffect: number): MeasuredChange | null {
  if (!exceedsMinEffect(pooledMedian(head) / pooledMedian(base), minEffect)) return null;
  const change = measureChange(base, head, minEffect);
  return change.verdict === "no significant change" ? null : change;
}
