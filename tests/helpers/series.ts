import { seededRandom } from "../../src/stats/random.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

export interface SampleShape {
  /** Seed of the noise: the same seed gives the same samples. */
  seed: number;
  trials?: number;
  perTrial?: number;
  /** Relative spread of each sample inside its trial (uniform ±). */
  sampleNoise?: number;
  /** Relative shift of a whole trial, shared by its samples (uniform ±): the machine's state of the moment. */
  trialNoise?: number;
}

/** Samples around `level` laid out as the harness writes them: `trials` contiguous blocks of `perTrial`. */
export function syntheticSamples(level: number, shape: SampleShape): number[] {
  const { seed, trials = 3, perTrial = 10, sampleNoise = 0.01, trialNoise = 0 } = shape;
  const random = seededRandom(seed);
  const jitter = (spread: number) => 1 + spread * (2 * random() - 1);
  return Array.from({ length: trials }, () => {
    const trialLevel = level * jitter(trialNoise);
    return Array.from({ length: perTrial }, () => trialLevel * jitter(sampleNoise));
  }).flat();
}

export interface SyntheticRun {
  /** Position in time: run ids and start times increase with it. */
  index: number;
  level: number;
  shape?: Partial<SampleShape>;
  runtime?: string;
  version?: string;
  runner?: string;
  metric?: string;
  better?: "lower" | "higher";
  sentinel?: string | null;
  scenario?: string;
}

const START = Date.UTC(2026, 10, 1);

/** One `ok` result of a synthetic run; the run's id and start time follow `index`, one hour apart. */
export function syntheticResult(run: SyntheticRun): ResultDocument {
  const { index, level, runtime = "node", version = "22.11.0", runner = "bench-x64-1", metric = "wall_ms", better = "lower" } = run;
  const startedAt = new Date(START + index * 3_600_000);
  const stamp = startedAt.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const trials = run.shape?.trials ?? 3;
  return makeResult({
    run: { id: `${stamp}-${index.toString(16).padStart(6, "0")}`, started_at: startedAt.toISOString(), runner, trials, sentinel: run.sentinel ?? null },
    runtime: { name: runtime as ResultDocument["runtime"]["name"], version, spec: `${runtime}@${version}` },
    ...(run.scenario ? { scenario: run.scenario } : {}),
    metrics: { [metric]: metricOf(syntheticSamples(level, { seed: index * 7919 + 1, ...run.shape }), better === "lower" ? "ms" : "req/s", better) },
  });
}

export interface SyntheticHistory {
  seed: number;
  versions?: number;
  /** Relative run-to-run noise of each version's level (uniform ±). */
  runNoise: number;
  /** Relative step applied from version `stepAt` on. */
  step?: number;
  stepAt?: number;
  /** Versions whose level is off by `outlier` this once. */
  outlierAt?: number;
  outlier?: number;
}

/** One run per version `22.<i>.0` of node, level 30 with run-to-run noise, an optional step and an optional one-off outlier. */
export function syntheticHistory(history: SyntheticHistory): ResultDocument[] {
  const { seed, versions = 10, runNoise, step = 0, stepAt = Infinity, outlierAt = -1, outlier = 0 } = history;
  const random = seededRandom(seed);
  return Array.from({ length: versions }, (_, i) => {
    const level = 30 * (1 + runNoise * (2 * random() - 1)) * (i >= stepAt ? 1 + step : 1) * (i === outlierAt ? 1 + outlier : 1);
    return syntheticResult({ index: i, level, version: `22.${i}.0`, shape: { seed: seed * 100 + i, sampleNoise: 0.03, trialNoise: 0.005 } });
  });
}
