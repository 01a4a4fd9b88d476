import { UserError } from "../core/errors.ts";
import type { Profile, RunnerKind } from "../results/types.ts";
import { compareVersions, groupBy, seriesKey, type Measurement } from "./series-key.ts";
import { t975 } from "./student-t.ts";

/** Minimum effect of `regressions` for a series with too little history: 5 %. `--min-effect` or RUNTIME_BENCH_MIN_EFFECT change it. */
export const DEFAULT_MIN_EFFECT = 0.05;

/**
 * How far one run's median moved from the next on the same binaries, as a change (0.5 = 50 %), for
 * a suite's metrics on one kind of machine: `default` for its metrics, `metrics` where one differs.
 */
export interface ShiftTable {
  readonly default: number;
  readonly metrics?: Readonly<Record<string, number>>;
  /** The full profile's shift where it was measured apart (its runs spread more trials over more time); else the same. */
  readonly full?: ShiftTable;
}

/**
 * The largest shift between back-to-back runs of node@22.11.0 and bun@1.2.0, rounded up (README,
 * "False alarms on real runs"): a development machine shared with six other benchmark jobs, its
 * load between 9 and 25 on 2 cores. In quick runs a startup time moved by up to ×2.02 (every
 * runtime at once: the machine, not the runtime), in full runs of `hello` by up to 37 % (10 rows
 * only, hence the margin to 60 %). A latency percentile at a fixed arrival rate moves most, up to
 * ×140: once the server falls behind, requests queue. Such a machine can back no verdict on HTTP
 * latency without history. HTTP's full profile was not measured (2 hours a pair of `json` runs): it takes the quick figures.
 */
const LOCAL_STARTUP: ShiftTable = { default: 1.1, metrics: { peak_rss_mb: 0.05 }, full: { default: 0.6, metrics: { peak_rss_mb: 0.05 } } };
const LOCAL_HTTP: ShiftTable = {
  default: 6,
  metrics: {
    latency_p50_ms: 150,
    latency_p90_ms: 150,
    latency_p99_ms: 150,
    latency_p999_ms: 150,
    server_peak_rss_mb: 0.2,
    success_rate: 0.05,
  },
};

/**
 * The largest shift between back-to-back quick runs of node@22.11.0 and bun@1.2.0 on the same
 * 2-core virtual machine with nothing else running (load average under 2.2; README, "False alarms
 * on real runs"), rounded up: what a machine kept for benchmarks shifts by. Startup, 7 pairs: at
 * most 31.9 %, so 50 %. HTTP `json`, every app, 5 pairs that set the figures and 2 held out:
 * throughput up to 49.1 % and server and client CPU up to 52.9 %, so 75 %; the median and 90th
 * percentile latency up to 60.8 % (a held-out pair, past the 60 % first set), so 100 %; tail
 * latency at a fixed rate up to ×5.8, so 600 %. The full profiles were not measured apart.
 */
const QUIET_STARTUP: ShiftTable = { default: 0.5, metrics: { peak_rss_mb: 0.05 } };
const QUIET_HTTP: ShiftTable = {
  default: 0.75,
  metrics: { latency_p50_ms: 1, latency_p90_ms: 1, latency_p99_ms: 6, latency_p999_ms: 6, server_peak_rss_mb: 0.05, success_rate: 0.05 },
};

/**
 * The same measure for three of the newer suites, on the same quiet machine, only for a dedicated
 * machine; under load they take the wider of these and the widest loaded default. File I/O, the
 * native app, 5 pairs and 2 held out: wall time and operations up to ×2.3 (bun's write-many, once),
 * throughput up to 38 %, so 150 % and 60 %. Database, sqlite and pg apps, 7 pairs (the 2 held out
 * moved further than the 5 before them, so all 7 set it): throughput, wall time and median latency
 * up to 110.8 %, p99 latency up to ×7.7, server CPU from 0 to a few clock ticks (no ratio holds
 * it), so 150 %, 1,000 % and no verdict without history. Install, small, npm and bun, 3 pairs and
 * 2 held out: wall time up to 69.2 %, peak RSS up to 8.3 %, so 100 % and 15 %.
 */
const QUIET_FILEIO: ShiftTable = { default: 1.5, metrics: { throughput_mb_s: 0.6, peak_rss_mb: 0.1 } };
const QUIET_DATABASE: ShiftTable = { default: 1.5, metrics: { latency_p99_ms: 10, server_cpu_s: 150, peak_rss_mb: 0.05 } };
const QUIET_INSTALL: ShiftTable = { default: 1, metrics: { peak_rss_mb: 0.15 } };

/**
 * The run-to-run shift by suite and kind of machine: the minimum effect of a comparison whose
 * series have no history yet (fewer than MIN_HISTORY_RUNS runs). Within one run the trials see one
 * state of the machine, so the interval of HEAD/BASE cannot hold this shift; only the minimum
 * effect can. A local or hosted machine may be shared with anything, so it takes the figures of a
 * heavily loaded one; a dedicated machine runs nothing else, so it takes those of a quiet one,
 * until its history gives each series its own noise floor, which replaces this table.
 *
 * The table lives here rather than in each suite's definition because `compareResults` also runs
 * in the site's browser worker, which may import no suite code: a verdict must be the same in the
 * CLI and on the site, and for results of a suite this checkout no longer has.
 */
export const RUN_TO_RUN_SHIFT: Readonly<Record<string, Readonly<Partial<Record<RunnerKind, ShiftTable>>>>> = {
  startup: { local: LOCAL_STARTUP, hosted: LOCAL_STARTUP, dedicated: QUIET_STARTUP },
  http: { local: LOCAL_HTTP, hosted: LOCAL_HTTP, dedicated: QUIET_HTTP },
  fileio: { dedicated: QUIET_FILEIO },
  database: { dedicated: QUIET_DATABASE },
  install: { dedicated: QUIET_INSTALL },
};

const shiftOf = (table: ShiftTable, metric: string) => table.metrics?.[metric] ?? table.default;

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
