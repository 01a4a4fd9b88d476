/**
 * The shapes of `scripts/bench compare`. The site imports `compareResults(base, head, options)`
 * from src/compare/compare.ts, which returns these rows, so its compare page shows the same numbers.
 */
import type { DocumentedChange } from "../core/known-changes.ts";
import type { ParamValue } from "../core/params.ts";
import type { Better, ResultDocument } from "../results/types.ts";

/**
 * `faster` / `slower` are in the metric's own direction (for a `higher`-is-better metric, a larger
 * HEAD is `faster`); `no significant change` means the interval rules out a change larger than
 * the minimum effect; `inconclusive` means the data back neither (too few trials or pairs, an
 * interval that reaches beyond the minimum effect, or a change the interval shows but the machine's
 * run-to-run shift could have made; the row's `reason` says which); `not comparable` means the two sides were measured on different machines,
 * or one side has samples of 0 (no ratio).
 */
export type Verdict = "faster" | "slower" | "no significant change" | "inconclusive" | "not comparable";

/**
 * Where the minimum effect of a verdict came from: the series' measured noise (`noise floor`), the
 * run-to-run shift of its suite on its kind of machine when it has no history (`run-to-run
 * shift`), the user's `--min-effect` (`setting`), the default of `regressions` (`default`), or the
 * paired design's own minimum (`paired`: two subjects of one run, trial k with trial k, where the
 * run-to-run shift cancels; src/compare/sequential.ts).
 */
export type MinEffectSource = "noise floor" | "run-to-run shift" | "setting" | "default" | "paired" | "resolution";

/**
 * Which rule judged a row. `sequential`: two released versions of one runtime measured side by
 * side (a release beside its predecessor, a canary beside its release), judged as the release job
 * and the feed judge them, at the share of the false-alarm rate (0.08 % over all looks) of the look
 * the run stopped at. `single look`: any other two subjects of one run (two runtimes, builds a user
 * labelled), a one-off comparison at 95 % (at its look's share of 5 % where runtimes side by side
 * took more looks, their first having left them undecided), trial k with trial k. `separate runs`: results of
 * different runs, pooled per side, at 95 % with the run-to-run shift or the noise floor as the
 * minimum effect (compareResults).
 */
export type CompareRule = "sequential" | "single look" | "separate runs";

/** What `compareResults` is told besides the two sides. */
export interface CompareOptions {
  /** Results from which each series' noise floor is measured (usually all of data/); none: the default applies. */
  readonly history?: readonly ResultDocument[];
  /**
   * Minimum effect (a fraction: 0.05 = 5 %) for a series without enough history, in place of the
   * run-to-run shift of its suite and kind of machine (RUN_TO_RUN_SHIFT in noise.ts).
   */
  readonly defaultMinEffect?: number;
  /** The rule of paired rows, in place of the one the subjects imply (`pairedRule`): how a user asks a release's question of two labelled builds. */
  readonly pairedRule?: PairedRule;
}

/** The rules two subjects of one run can be judged by. */
export type PairedRule = Exclude<CompareRule, "separate runs">;

/** What was measured, named the same way by comparisons, series, feed entries and the site. */
export interface MeasuredCell {
  suite: string;
  scenario: string;
  scenario_version: number;
  app: string | null;
  params: Record<string, ParamValue>;
  metric: string;
  unit: string;
  better: Better;
}

/** One matched (suite, scenario, app, params, metric) cell: HEAD against BASE. */
export interface CompareRow extends MeasuredCell {
  base_runtime: string;
  base_version: string;
  head_runtime: string;
  head_version: string;
  base_runner: string;
  head_runner: string;
  /** How many results (runs) were pooled on each side. */
  base_runs: number;
  head_runs: number;
  base_median: number;
  head_median: number;
  /** HEAD median / BASE median; null when not comparable. */
  ratio: number | null;
  /**
   * Interval of the ratio; null when not comparable. Separate runs: 95 %, trial-clustered
   * bootstrap. A paired row: the Student t interval over the pairs at 1 − `alpha` (95 % for a
   * single look, or 1 − its look's share of 5 % where runtimes side by side took more looks; for the
   * sequential rule the share of 0.08 % of the look it was judged at, so wider).
   */
  ci95: [number, number] | null;
  /** The rule that judged the row, and so the level of its interval. */
  rule: CompareRule;
  /** The smallest change this pair's series can show at 95 % confidence, from their history; null without history. */
  noise_floor: number | null;
  /** The change a verdict needs besides an interval excluding 1: the noise floor, the run-to-run shift, or the setting. */
  min_effect: number;
  min_effect_source: MinEffectSource;
  verdict: Verdict;
  /** Why a pair is not comparable, or why it is inconclusive. */
  reason?: string;
  /** Changes the runtime's team documented on this cell between the two versions (docs/known-changes.json): named beside the verdict. */
  documented?: DocumentedChange[];
  /** Paired rows: the two subjects' labels in their run, the pairs of trials judged, and the two-sided false-alarm rate of that judgement (1 − the interval's level). */
  base_label?: string;
  head_label?: string;
  pairs?: number;
  alpha?: number;
  /** A single look whose spread was moderated by its suite's other cells (src/compare/moderated.ts): the interval's degrees of freedom, and over how many cells the prior was fitted. */
  df?: number;
  moderated_over?: number;
}
