/**
 * Two subjects of ONE run, HEAD against BASE, trial k with trial k: the comparison for two builds
 * measured side by side (a release and its predecessor, a patched build and its base). The rule is
 * in sequential.ts: each pair of trials gives a log ratio, their mean and Student t interval over
 * the pairs make the ratio and its interval, judged at the false-alarm rate of the look the run
 * stopped at. No run-to-run shift and no history enter: the machine's state of the hour falls on
 * both sides alike. Results of separate runs are compared by `compareResults` (compare.ts).
 */
import type { ResultDocument } from "../results/types.ts";
import { compareResults, rowOf } from "./compare.ts";
import { cellLabel } from "./format.ts";
import { trialClusters } from "./ratio.ts";
import { PAIRED_MIN_EFFECT, fixedPlan, lookAlpha, lookIndex, pairedEstimate, settled, type SequentialPlan } from "./sequential.ts";
import { groupBy, matchKey, measurementsOf, type Measurement } from "./series-key.ts";
import type { CompareOptions, CompareRow, MinEffectSource } from "./types.ts";

/** A subject's label; a result written before labels is called by its runtime and version. */
export function subjectLabel(doc: ResultDocument): string {
  return doc.label ?? `${doc.runtime.name}-${doc.runtime.version}`;
}

/** The looks a result's run judged at: its adaptive record, else one look at its trials. */
function planOf(doc: ResultDocument): SequentialPlan {
  return doc.sequential ?? fixedPlan(doc.run.trials);
}

const inRun = (m: Measurement) => `${m.doc.run.runner}/${m.doc.run.id} ${matchKey(m)}`;

/** One cell of two subjects of one run, HEAD against BASE, trial by trial: what comparePaired returns for each, and the regressions feed judges a release by. */
export function pairedRow(base: Measurement, head: Measurement, minEffect = PAIRED_MIN_EFFECT, source: MinEffectSource = "paired"): CompareRow {
  const baseTrials = trialClusters(base);
  const headTrials = trialClusters(head);
  const plan = planOf(base.doc);
  const alpha = lookAlpha(plan, lookIndex(plan, Math.min(baseTrials.length, headTrials.length)));
  const estimate = baseTrials.length === headTrials.length ? pairedEstimate(baseTrials, headTrials, alpha) : null;
  const row = {
    ...rowOf([base], [head]),
    noise_floor: null,
    min_effect: minEffect,
    min_effect_source: source,
    base_label: subjectLabel(base.doc),
    head_label: subjectLabel(head.doc),
    pairs: Math.min(baseTrials.length, headTrials.length),
    alpha,
  };
  if (estimate === null) {
    const reason =
      baseTrials.length !== headTrials.length
        ? `BASE has ${baseTrials.length} trials and HEAD ${headTrials.length}: trial k pairs with trial k only when both ran every trial`
        : baseTrials.length < 2
          ? `too few trials: ${baseTrials.length} pair${baseTrials.length === 1 ? "" : "s"}, a paired verdict needs 2`
          : "a trial's median is 0, so its pair has no ratio";
    return { ...row, ratio: null, ci95: null, verdict: "inconclusive", reason };
  }
  const change = settled(estimate, minEffect) === "change";
  const faster = (estimate.ratio < 1) === (base.summary.better === "lower");
  return { ...row, ratio: estimate.ratio, ci95: estimate.ci, verdict: change ? (faster ? "faster" : "slower") : "no significant change" };
}

/**
 * HEAD against BASE where both were measured in one run (same runner and run id): one row per
 * matched cell (suite, scenario version, app, load parameters, metric) and run. Cells measured in
 * no common run give no row. `scripts/bench compare RUN --base L --head L`, the site's compare page
 * for two subjects of one run, and the regressions feed for a release measured with its
 * predecessor all judge through this function.
 */
export function comparePaired(base: readonly ResultDocument[], head: readonly ResultDocument[], options: CompareOptions = {}): CompareRow[] {
  const minEffect = options.defaultMinEffect ?? PAIRED_MIN_EFFECT;
  const source: MinEffectSource = options.defaultMinEffect === undefined ? "paired" : "setting";
  const headByCell = groupBy(measurementsOf(head), inRun);
  return measurementsOf(base).flatMap((b) => (headByCell.get(inRun(b)) ?? []).map((h) => pairedRow(b, h, minEffect, source)));
}

/** A row's cell and machine: what a paired row and a row of compareResults for the same cell share. */
const rowCell = (row: CompareRow) => `${row.base_runner} ${cellLabel(row)} v${row.scenario_version} ${row.metric}`;

/**
 * HEAD against BASE, paired wherever the two were measured in one run (a release beside its
 * predecessor), one row per such run, else by compareResults: what the site's compare page shows
 * for two versions.
 */
export function compareWithPairs(base: readonly ResultDocument[], head: readonly ResultDocument[], options: CompareOptions = {}): CompareRow[] {
  const paired = comparePaired(base, head, { defaultMinEffect: options.defaultMinEffect });
  const pairedCells = new Set(paired.map(rowCell));
  return [...paired, ...compareResults(base, head, options).filter((row) => !pairedCells.has(rowCell(row)))];
}
