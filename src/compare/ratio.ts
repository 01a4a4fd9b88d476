import { seedFrom, seededRandom } from "../stats/random.ts";
import { BOOTSTRAP_RESAMPLES, median, quantileSorted } from "../stats/summary.ts";
import type { Measurement } from "./series-key.ts";

export interface RatioEstimate {
  /** HEAD median / BASE median, of the pooled samples. */
  ratio: number;
  /** 95 % percentile-bootstrap interval of that ratio. */
  ci95: [number, number];
}

/**
 * A measurement's samples split by trial. The harness appends each trial's samples in order, so
 * equal contiguous blocks are the trials; samples of one trial share the machine's state of the
 * moment and are not independent, the trials are. Samples that do not split evenly stay one each.
 */
export function trialClusters({ doc, summary }: Measurement): number[][] {
  const trials = doc.run.trials;
  const samples = summary.samples;
  if (trials < 2 || samples.length % trials !== 0) return samples.map((s) => [s]);
  const size = samples.length / trials;
  return Array.from({ length: trials }, (_, t) => samples.slice(t * size, (t + 1) * size));
}

/** Two-stage resample: draw clusters with replacement, then samples within each drawn cluster. */
function resampleClustered(clusters: readonly (readonly number[])[], random: () => number): number[] {
  const out: number[] = [];
  for (let c = 0; c < clusters.length; c++) {
    const cluster = clusters[Math.floor(random() * clusters.length)]!;
    for (let i = 0; i < cluster.length; i++) out.push(cluster[Math.floor(random() * cluster.length)]!);
  }
  return out;
}

/** Two-sided 95 % quantiles of Student's t for 1–30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101,
  2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];
const Z975 = 1.959964;

/** t quantile for `df` degrees of freedom; past the table, its first-order expansion z + (z³ + z) / 4df. */
function t975(df: number): number {
  return df <= T975.length ? T975[Math.max(df, 1) - 1]! : Z975 + (Z975 ** 3 + Z975) / (4 * df);
}

/**
 * Ratio of medians HEAD/BASE with a bootstrap interval that resamples trials, then samples within
 * them (each side pooled over all its runs). Resampling single samples as if independent gives
 * intervals far too narrow on a shared machine: two runs of one binary a minute apart then differ
 * "significantly". With few trials a percentile interval is still too narrow (it acts as if the
 * spread were known), so it is widened around the ratio, on a log scale, by t(df)/z with
 * df = trials on both sides − 2: the expanded percentile interval. Seeded from the data, so the
 * same samples always give the same interval.
 */
export function ratioOfMedians(base: readonly Measurement[], head: readonly Measurement[]): RatioEstimate {
  const baseClusters = base.flatMap(trialClusters);
  const headClusters = head.flatMap(trialClusters);
  const baseSamples = baseClusters.flat();
  const headSamples = headClusters.flat();
  const random = seededRandom(seedFrom([...baseSamples, ...headSamples]));
  const estimates = new Array<number>(BOOTSTRAP_RESAMPLES);
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    estimates[r] = median(resampleClustered(headClusters, random)) / median(resampleClustered(baseClusters, random));
  }
  estimates.sort((a, b) => a - b);
  const ratio = median(headSamples) / median(baseSamples);
  const widen = t975(baseClusters.length + headClusters.length - 2) / Z975;
  const expand = (bound: number) => ratio * (bound / ratio) ** widen;
  return { ratio, ci95: [expand(quantileSorted(estimates, 0.025)), expand(quantileSorted(estimates, 0.975))] };
}
