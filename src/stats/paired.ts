import { bootstrapInterval, mean, median } from "./summary.ts";

/** How one measurement compares with another taken beside it, round by round. */
export interface PairedRatio {
  /** Geometric mean of the per-round ratios: the figure to quote. */
  readonly ratio: number;
  /** 95 % bootstrap interval of that geometric mean, resampling rounds. */
  readonly ci95: readonly [number, number];
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/**
 * Per-round ratios ours[i] / theirs[i] summarised. Pairing within a round cancels the slow drift
 * of a shared machine; what is left is each measurement's own noise, roughly log-normal, for which
 * the mean of log ratios is a more efficient estimate than their median. The interval says how
 * finely this machine could tell the two apart.
 */
export function pairedRatio(ours: readonly number[], theirs: readonly number[]): PairedRatio {
  if (ours.length === 0 || ours.length !== theirs.length) throw new Error(`paired ratio needs equal, non-empty rounds (${ours.length} and ${theirs.length})`);
  const logRatios = ours.map((value, round) => Math.log(value / theirs[round]!));
  const geometricMean = (logs: readonly number[]) => Math.exp(mean(logs));
  const ratios = logRatios.map(Math.exp);
  return {
    ratio: geometricMean(logRatios),
    ci95: bootstrapInterval(logRatios, geometricMean),
    median: median(ratios),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
  };
}

/** `1.003 (0.971–1.036)`: a paired ratio as the benchmarks print it. */
export function formatPairedRatio(paired: PairedRatio): string {
  return `${paired.ratio.toFixed(3)} (${paired.ci95[0].toFixed(3)}–${paired.ci95[1].toFixed(3)})`;
}

/** `0.992 (0.83–1.40)`: the median of the per-round ratios and their range. */
export function formatRoundRatios(paired: PairedRatio): string {
  return `${paired.median.toFixed(3)} (${paired.min.toFixed(2)}–${paired.max.toFixed(2)})`;
}

/** A 95 % interval's half-width on the log scale: paired ratios multiplied (a chain's links, a step's halves) combine theirs as √Σh². */
export const logHalfWidth = ([low, high]: readonly [number, number]): number => (Math.log(high) - Math.log(low)) / 2;
