import { seedFrom, seededRandom } from "../stats/random.ts";
import { BOOTSTRAP_RESAMPLES, median, quantileSorted } from "../stats/summary.ts";
import type { Measurement } from "./series-key.ts";
import { Z975, t975 } from "./student-t.ts";

export interface RatioEstimate {
  /** HEAD median / BASE median, of the pooled samples. */
  ratio: number;
  /** 95 % interval of that ratio: trial-clustered bootstrap, expanded for few trials. */
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

/** Median of a side's samples, pooled over its runs. */
export function pooledMedian(side: readonly Measurement[]): number {
  return median(side.flatMap((m) => m.summary.samples));
}

/** Two-stage resample into `out`: draw clusters with replacement, then samples within each drawn cluster. Returns the count. */
function resampleClustered(clusters: readonly (readonly number[])[], random: () => number, out: Float64Array): number {
  let n = 0;
  for (let c = 0; c < clusters.length; c++) {
    const cluster = clusters[Math.floor(random() * clusters.length)]!;
    for (let i = 0; i < cluster.length; i++) out[n++] = cluster[Math.floor(random() * cluster.length)]!;
  }
  return n;
}

/**
 * Median of the first `n` values of a buffer, reordering them (quickselect): the bootstrap takes
 * thousands of medians, and selecting is several times faster than sorting.
 */
function medianInPlace(values: Float64Array, n: number): number {
  const k = (n - 1) >> 1;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  if (n % 2 === 1) return values[k]!;
  // Even count: the mean of the k-th value and the smallest value above it.
  let next = Infinity;
  for (let i = k + 1; i < n; i++) if (values[i]! < next) next = values[i]!;
  return (values[k]! + next) / 2;
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
  // A resample holds as many samples as its side at most (clusters of unequal size vary it).
  const largest = (clusters: number[][]) => clusters.length * Math.max(...clusters.map((c) => c.length));
  const baseBuffer = new Float64Array(largest(baseClusters));
  const headBuffer = new Float64Array(largest(headClusters));
  const ratios = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    const headMedian = medianInPlace(headBuffer, resampleClustered(headClusters, random, headBuffer));
    ratios[r] = headMedian / medianInPlace(baseBuffer, resampleClustered(baseClusters, random, baseBuffer));
  }
  const estimates = Array.from(ratios.sort());
  const ratio = pooledMedian(head) / pooledMedian(base);
  const widen = t975(baseClusters.length + headClusters.length - 2) / Z975;
  const expand = (bound: number) => ratio * (bound / ratio) ** widen;
  return { ratio, ci95: [expand(quantileSorted(estimates, 0.025)), expand(quantileSorted(estimates, 0.975))] };
}
