/**
 * The shapes of `scripts/bench regressions` and of its feed. `detectRegressions(docs, options)` in
 * src/regressions/detect.ts returns a RegressionReport; `regressions.json` is that report as written.
 */
import type { MeasuredCell, MinEffectSource, Verdict } from "../compare/types.ts";
import type { DocumentedChange } from "../core/known-changes.ts";
import type { ParamValue } from "../core/params.ts";
import type { SeriesCache } from "./cache.ts";
import type { ReleaseNotes } from "../runtimes/catalog.ts";

export const REGRESSIONS_SCHEMA_ID = "runtime-bench/regressions/v1";

/** What one series is: runner × runtime × suite × scenario × app × load parameters × metric. */
export interface SeriesIdentity extends MeasuredCell {
  /** Stable string key of the series (see src/compare/series-key.ts). */
  series: string;
  runner: string;
  runtime: string;
  /** The metric is its scenario's headline (each result's first metric): the one a history sweep narrows a step on. */
  headline: boolean;
}

export interface SeriesSummary extends SeriesIdentity {
  /** Runtime versions measured, oldest first (semver order). */
  versions: string[];
  /** Results (runs) in the series. */
  runs: number;
  /** The smallest change the series can show at 95 % confidence; null while its history is too short. */
  noise_floor: number | null;
  /** Points of the series set aside as one-off outliers (not confirmed by the next version). */
  outliers: string[];
}

/** A significant change between two versions of a series. */
export interface SeriesChange extends SeriesIdentity {
  kind: "regression" | "improvement";
  from_version: string;
  to_version: string;
  /** to / from, of the pooled medians. */
  ratio: number;
  ci95: [number, number];
  noise_floor: number | null;
  min_effect: number;
  min_effect_source: MinEffectSource;
  /** Only `confirmed` changes are alerts; `unconfirmed` ones wait for another run or were measured while the machine drifted. */
  status: "confirmed" | "unconfirmed";
  /** How it was confirmed, or why it is held back. */
  reason: string;
  environment_drift: boolean;
  /** Runs that measured `to_version`. */
  run_ids: string[];
  /** Start of the newest run this judgement rests on (the feed's `updated`). */
  updated: string;
  /** `canary`: a nightly or canary build against the newest release, paired in one run, before it ships; absent: a release against the one before. */
  channel?: "canary";
  /** Changes the runtime's team documented on this cell between the two versions (docs/known-changes.json). */
  documented?: DocumentedChange[];
  /** What `to_version` changed: its release notes (`changelog`) and the commits since `from_version` (`compare`); absent for a canary build. */
  release_notes?: ReleaseNotes;
  /** A change judged in one run of both versions: the command that shows that paired comparison again. */
  compare_command?: string;
  /** The wider pairs of releases that showed this change before it was narrowed to these two (a sweep's link). */
  narrowed_from?: string[];
  /**
   * The runtime's published releases between the two versions, where they are known: none (the
   * change lies between adjacent releases) or how many, the first and the last (a sweep's link or
   * half not narrowed to one release: the change came with one of them or with `to_version`).
   * Absent when the published releases were not read (a canary; the registry unreachable).
   */
  between?: ReleasesBetween;
  /**
   * A change between versions that are not neighbours in its series: the two halves its releases
   * were split into, at a release between measured beside each end in one run (a sweep's
   * narrowing), with what each said; neither showed the change alone. Absent where no release
   * between was measured beside both ends.
   */
  halves?: [MeasuredHalf, MeasuredHalf];
  /**
   * The newest version of this change's scenario that the results hold, where it is newer than the
   * series' own: the scenario changed what it measures, its series ends here, and a sweep narrows
   * the newer version's steps, never this one's.
   */
  replaced_by?: number;
}

/** One half of a change's two releases, measured beside each other in one run, and its paired verdict. */
export interface MeasuredHalf {
  from_version: string;
  to_version: string;
  ratio: number | null;
  ci95: [number, number] | null;
  verdict: Verdict;
}

export interface ReleasesBetween {
  releases: number;
  first?: string;
  last?: string;
}

/** A run whose pinned sentinel runtime moved beyond its own noise: its figures are not trusted alone. */
export interface DriftedRun {
  run_id: string;
  runner: string;
  started_at: string;
  sentinel: string;
  moved: { suite: string; scenario: string; app: string | null; params: Record<string, ParamValue>; metric: string; ratio: number; ci95: [number, number]; min_effect: number }[];
}

export interface RegressionOptions {
  /** Minimum effect (fraction) for series without enough history. */
  readonly defaultMinEffect?: number;
  /** Timestamp of the report (tests pass a fixed one). */
  readonly now?: Date;
  /** Results of series already computed, by a hash of their input: unchanged series are not computed again. */
  readonly cache?: SeriesCache;
  /**
   * Each runtime's published stable releases: a change then says which releases lie between its two
   * versions. Under `runtime@runner`, those of that runner's architecture; else under `runtime`.
   */
  readonly published?: ReadonlyMap<string, readonly string[]>;
}

/** What `scripts/bench regressions --json` prints and `regressions.json` holds. */
export interface RegressionReport {
  schema: typeof REGRESSIONS_SCHEMA_ID;
  generated_at: string;
  changes: SeriesChange[];
  drifted_runs: DriftedRun[];
  series: SeriesSummary[];
}
