import { seedFrom, seededRandom } from "./random.ts";

export function median(values: ArrayLike<number>): number {
  return quantile(values, 0.5);
}

/** Linear-interpolation quantile (type 7, as R and NumPy default). */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) throw new Error("quantile of no values");
  // A typed array sorts numbers natively: several times faster than an array sorted by a comparator
  // (the medians of a five-year site build's findings took a tenth of a part's time that way).
  return quantileSorted(new Float64Array(values).sort(), q);
}

export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower]!;
  const high = sorted[upper]!;
  return low + (high - low) * (position - lower);
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Sample standard deviation (n − 1); 0 for a single value. */
export function stddev(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1));
}

export const BOOTSTRAP_RESAMPLES = 2000;

/**
 * Percentile-bootstrap interval of any statistic of one sample. Seeded from the samples, so the
 * same data always gives the same interval.
 */
export function bootstrapInterval(
  values: readonly number[],
  statistic: (resample: number[]) => number,
  level = 0.95,
  resamples = BOOTSTRAP_RESAMPLES,
): [number, number] {
  if (values.length === 1) {
    const only = statistic([...values]);
    return [only, only];
  }
  const random = seededRandom(seedFrom(values));
  const estimates = new Array<number>(resamples);
  const resample = new Array<number>(values.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++) resample[i] = values[Math.floor(random() * values.length)]!;
    estimates[r] = statistic(resample);
  }
  estimates.sort((a, b) => a - b);
  const alpha = (1 - level) / 2;
  return [quantileSorted(estimates, alpha), quantileSorted(estimates, 1 - alpha)];
}

/** The statistics of a sample: its median with a 95 % bootstrap interval, mean, spread and range. */
export interface SampleSummary {
  median: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  ci95: [number, number];
}

export function summarize(samples: readonly number[]): SampleSummary {
  if (samples.length === 0) throw new Error("cannot summarize an empty sample");
  return {
    median: median(samples),
    mean: mean(samples),
    stddev: stddev(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    ci95: bootstrapInterval(samples, median),
  };
}
