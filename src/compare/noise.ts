import { UserError } from "../core/errors.ts";
import { MEASUREMENTS, type ShiftEntry, type ShiftTable } from "../core/measurements.ts";
import type { Profile, RunnerKind } from "../results/types.ts";
import { compareVersions, groupBy, seriesKey, type Measurement } from "./series-key.ts";
import { t975 } from "./student-t.ts";

/** Minimum effect of `regressions` for a series with too little history: 5 %. `--min-effect` or RUNTIME_BENCH_MIN_EFFECT change it. */
export const DEFAULT_MIN_EFFECT = 0.05;

/**
 * The run-to-run shift by suite and kind of machine: the minimum effect of a comparison whose
 * series have no history yet (fewer than MIN_HISTORY_RUNS runs). Within one run the trials see one
 * state of the machine, so the interval of HEAD/BASE cannot hold this shift; only the minimum
 * effect can. A local or hosted machine may be shared with anything, so it takes the figures
 * measured under heavy load; a dedicated machine runs nothing else, so it takes those measured on a
 * quiet one, until its history gives each series its own noise floor, which replaces this table.
 * The figures, and how each was measured, are the entry "run-to-run-shift" of docs/measurements.json.
 *
 * The table lives here rather than in each suite's definition because `compareResults` also runs
 * in the site's browser worker, which may import no suite code: a verdict must be the same in the
 * CLI and on the site, and for results of a suite this checkout no longer has.
 */
export const RUN_TO_RUN_SHIFT: Readonly<Record<string, Readonly<Partial<Record<RunnerKind, ShiftTable>>>>> = shiftsByKind(
  MEASUREMENTS.entries["run-to-run-shift"].shifts,
);

function shiftsByKind(shifts: ShiftEntry["shifts"]): Record<string, Partial<Record<RunnerKind, ShiftTable>>> {
  const suites = [...new Set([...Object.keys(shifts.shared), ...Object.keys(shifts.quiet)])];
  return Object.fromEntries(
    suites.map((suite) => {
      const shared = shifts.shared[suite];
      const quiet = shifts.quiet[suite];
      return [suite, { ...(shared ? { local: shared, hosted: shared } : {}), ...(quiet ? { dedicated: quiet } : {}) }];
    }),
  );
}

const shiftOf = (table: ShiftTable, metric: string) => table.metrics?.[metric] ?? table.default;

export type { ShiftTable };

const percent = (fraction: number) => `${Number((fraction * 100).toPrecision(3)).toLocaleString("en")} %`;

/**
 * RUN_TO_RUN_SHIFT as the rows of a table: suite, metric, the shift on a local or hosted machine
 * and on a dedicated one (what a suite not measured on a kind takes, so marked). The methodology
 * page and docs/measurements.md both show these rows.
 */
export function shiftTableRows(): [suite: string, metric: string, local: string, dedicated: string][] {
  const cell = (table: ShiftTable | undefined, suite: string, kind: RunnerKind, metric: string | null) =>
    table
      ? `${percent(metric === null ? table.default : shiftOf(table, metric))}${table.full ? ` (full profile: ${percent(metric === null ? table.full.default : shiftOf(table.full, metric))})` : ""}`
      : `${percent(runToRunShift(suite, kind, "quick", metric ?? ""))}, not measured on this kind of machine`;
  return Object.entries(RUN_TO_RUN_SHIFT).flatMap(([suite, kinds]) => {
    const metrics = [...new Set(Object.values(kinds).flatMap((table) => Object.keys(table.metrics ?? {})))];
    return [null, ...metrics].map((metric): [string, string, string, string] => [
      suite,
      metric ?? "every other metric",
      cell(kinds.local, suite, "local", metric),
      cell(kinds.dedicated, suite, "dedicated", metric),
    ]);
  });
}

/** The widest default of any suite on a kind of machine: what a suite not measured there takes. */
export function widestDefault(kind: RunnerKind): number {
  return Math.max(...Object.values(RUN_TO_RUN_SHIFT).flatMap((tables) => (tables[kind] ? [tables[kind].default] : [])));
}

/**
 * The run-to-run shift of a suite's metric in a profile on a kind of machine. A suite not measured
 * on that kind takes the widest default known for it, or its own figure from another kind where
 * that is wider (a machine under load shifts at least as far as a quiet one): a missing row may
 * cost a verdict, never make a false one.
 */
export function runToRunShift(suite: string, kind: RunnerKind, profile: Profile, metric: string): number {
  const tables = RUN_TO_RUN_SHIFT[suite] ?? {};
  const table = tables[kind];
  if (table) return shiftOf(profile === "full" ? (table.full ?? table) : table, metric);
  return Math.max(widestDefault(kind), ...Object.values(tables).map((other) => shiftOf(other, metric)));
}

/** Runs a series needs before its own noise replaces the default (five run-to-run differences). */
export const MIN_HISTORY_RUNS = 6;

/** Share of the largest run-to-run differences left out of the spread: they may hold real changes or outliers. */
const TRIMMED_SHARE = 0.2;
/** √E[Z² | |Z| below its 80th percentile] for a standard normal Z: makes the trimmed RMS a standard deviation. */
const TRIMMED_RMS_OF_NORMAL = 0.6616;

/** Run-to-run spread of a series: the standard deviation of one run's log median, and the degrees of freedom it rests on. */
export interface Spread {
  sigma: number;
  df: number;
}

/**
 * Run-to-run spread of a series, from the differences between consecutive runs (ordered by
 * version, then by time) of their log medians: the RMS of the smallest 80 % of them, over √2 and
 * the normal's trimmed-RMS factor. Differences between runs measure drift and sampling noise
 * together; trimming drops the few that hold a real change or an outlier. Null while the series
 * has fewer than MIN_HISTORY_RUNS runs.
 */
export function runToRunSpread(runs: readonly Measurement[]): Spread | null {
  if (runs.length < MIN_HISTORY_RUNS) return null;
  const ordered = [...runs].sort(
    (a, b) => compareVersions(a.doc.runtime.version, b.doc.runtime.version) || a.doc.run.started_at.localeCompare(b.doc.run.started_at),
  );
  const logs = ordered.map((m) => Math.log(m.summary.median));
  const squares = logs
    .slice(1)
    .map((value, i) => (value - logs[i]!) ** 2)
    .sort((a, b) => a - b);
  const kept = squares.slice(0, squares.length - Math.ceil(squares.length * TRIMMED_SHARE));
  const rms = Math.sqrt(kept.reduce((sum, v) => sum + v, 0) / kept.length);
  return { sigma: rms / Math.SQRT2 / TRIMMED_RMS_OF_NORMAL, df: squares.length };
}

/**
 * The smallest change between one run of each of two series that stands out of their run-to-run
 * noise at 95 % confidence: exp(t × √(σa² + σb²)) − 1, with t for the fewer degrees of freedom
 * (a short history gives a wider floor). For one series against itself, σa = σb.
 */
export function noiseFloor(a: Spread, b: Spread = a): number {
  return Math.exp(t975(Math.min(a.df, b.df)) * Math.hypot(a.sigma, b.sigma)) - 1;
}

/** Each series' run-to-run spread (null when too short), measured from the given history. */
export function spreadBySeries(history: readonly Measurement[]): Map<string, Spread | null> {
  const spreads = new Map<string, Spread | null>();
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

/** The minimum effect a user set for series without history: the flag, else RUNTIME_BENCH_MIN_EFFECT, else none. */
export function minEffectSetting(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (flag !== undefined) return parseMinEffect(flag, "--min-effect");
  const fromEnv = env.RUNTIME_BENCH_MIN_EFFECT;
  if (fromEnv !== undefined && fromEnv !== "") return parseMinEffect(fromEnv, "RUNTIME_BENCH_MIN_EFFECT");
  return undefined;
}

/** The default minimum effect of `regressions`: the setting, else 5 %. */
export function defaultMinEffect(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  return minEffectSetting(flag, env) ?? DEFAULT_MIN_EFFECT;
}
