import { UserError } from "../core/errors.ts";
import { median } from "../stats/summary.ts";
import { compareVersions, groupBy, seriesKey, type Measurement } from "./series-key.ts";

/** Minimum effect for a series with too little history: 5 %. `--min-effect` or RUNTIME_BENCH_MIN_EFFECT change it. */
export const DEFAULT_MIN_EFFECT = 0.05;

/** Runs a series needs before its own noise replaces the default (five run-to-run differences). */
export const MIN_HISTORY_RUNS = 6;

const Z95 = 1.959964;
/** median(|X|) of a standard normal X: turns a median absolute value into a standard deviation. */
const NORMAL_MEDIAN_ABS = 0.6744898;

/**
 * Run-to-run spread of a series: the standard deviation of one run's log median, estimated from the
 * differences between consecutive runs (ordered by version, then by time) as
 * median|d| / (0.6745 × √2). Differences between runs measure drift and sampling noise together;
 * the median ignores the few that hold a real change. Null while the series has too few runs.
 */
export function runToRunSpread(runs: readonly Measurement[]): number | null {
  if (runs.length < MIN_HISTORY_RUNS) return null;
  const ordered = [...runs].sort(
    (a, b) => compareVersions(a.doc.runtime.version, b.doc.runtime.version) || a.doc.run.started_at.localeCompare(b.doc.run.started_at),
  );
  const logs = ordered.map((m) => Math.log(m.summary.median));
  const differences = logs.slice(1).map((value, i) => Math.abs(value - logs[i]!));
  return median(differences) / (NORMAL_MEDIAN_ABS * Math.SQRT2);
}

/**
 * The smallest change between one run of each of two series that stands out of their run-to-run
 * noise at 95 % confidence: exp(1.96 × √(σa² + σb²)) − 1. For one series against itself, σa = σb.
 */
export function noiseFloor(spreadA: number, spreadB: number = spreadA): number {
  return Math.exp(Z95 * Math.hypot(spreadA, spreadB)) - 1;
}

/** Each series' run-to-run spread (null when too short), measured from the given history. */
export function spreadBySeries(history: readonly Measurement[]): Map<string, number | null> {
  const spreads = new Map<string, number | null>();
  for (const [key, runs] of groupBy(history, seriesKey)) spreads.set(key, runToRunSpread(runs));
  return spreads;
}

/** A percentage, `5` or `5%`, as a fraction (0.05). Only percentages: a bare `0.05` would be ambiguous. */
export function parseMinEffect(text: string, where: string): number {
  const percent = Number(text.trim().replace(/%$/, ""));
  if (!Number.isFinite(percent) || percent < 0 || percent >= 1000 || text.trim() === "") {
    throw new UserError(`${where}: '${text}' is not a percentage (use e.g. 5 or 5%)`);
  }
  return percent / 100;
}

/** The default minimum effect: the flag, else RUNTIME_BENCH_MIN_EFFECT, else 5 %. */
export function defaultMinEffect(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (flag !== undefined) return parseMinEffect(flag, "--min-effect");
  const fromEnv = env.RUNTIME_BENCH_MIN_EFFECT;
  if (fromEnv !== undefined && fromEnv !== "") return parseMinEffect(fromEnv, "RUNTIME_BENCH_MIN_EFFECT");
  return DEFAULT_MIN_EFFECT;
}
