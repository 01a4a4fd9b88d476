/**
 * Two subjects of ONE run, HEAD against BASE, trial k with trial k: the comparison for two builds
 * or runtimes measured side by side (a release and its predecessor, a patched build and its base,
 * two runtimes). Each pair of trials gives a log ratio of the trials' medians, their mean and
 * Student t interval over the pairs make the ratio and its interval (sequential.ts). What the
 * machine did in that minute falls on both sides alike, so no run-to-run shift and no history
 * enter. Which false-alarm rate the interval is judged at depends on the question (`pairedRule`).
 * Results of separate runs are compared by `compareResults` (compare.ts).
 */
import type { ResultDocument } from "../results/types.ts";
import { compareResults, rowOf } from "./compare.ts";
import { cellLabel, formatConfidence } from "./format.ts";
import { trialClusters } from "./ratio.ts";
import { fitSpreadPrior, type CellSpread, type SpreadPrior } from "./moderated.ts";
import { MIN_PAIRS, ONE_OFF_GAP, PAIRED_ALPHA, PAIRED_MIN_EFFECT, SINGLE_LOOK_ALPHA, finalAlpha, fixedPlan, lookIndex, pairLogRatios, pairSpread, pairedEstimate, recordedPlan, type SequentialPlan } from "./sequential.ts";
import { groupBy, matchKey, measurementsOf, type Measurement } from "./series-key.ts";
import type { CompareOptions, CompareRow, MinEffectSource, PairedRule } from "./types.ts";
import { boundedByClient, judge, type Judgement } from "./verdict.ts";

/** The labels benchmark.yml gives a canary build and the release it is measured against in one run (docs/release-job.md). */
export const CANARY_LABEL = "canary";
export const CANARY_BASELINE_LABEL = "release";

/** A subject's label; a result written before labels is called by its runtime and version. */
export function subjectLabel(doc: ResultDocument): string {
  return doc.label ?? `${doc.runtime.name}-${doc.runtime.version}`;
}

/** Unlabelled: the label `run` gives a released version it measures (`node-22.11.0`). */
const unlabelled = (doc: ResultDocument) => subjectLabel(doc) === `${doc.runtime.name}-${doc.runtime.version}`;

/**
 * The question a pair of subjects answers, and so its rule. Two released versions of one runtime
 * (unlabelled), or a canary beside its release, are what the release job measures and the feed
 * judges release after release: the sequential rule, whose 0.08 % keeps a dozen releases' false
 * alarms under 1 %. Anything else (two runtimes, builds a user labelled) is a one-off question,
 * asked once: a single look at 95 %.
 */
export function pairedRule(base: ResultDocument, head: ResultDocument): PairedRule {
  if (base.runtime.name !== head.runtime.name) return "single look";
  const canary = base.label === CANARY_BASELINE_LABEL && head.label === CANARY_LABEL;
  return canary || (unlabelled(base) && unlabelled(head)) ? "sequential" : "single look";
}

/**
 * The false-alarm rate a cell of `pairs` pairs is judged at. By the sequential rule: the share of
 * 0.08 % of the look its run stopped at (the looks its run recorded, else one at its trials). A
 * single look: 5 %, or where the run took a one-off plan's looks (two runtimes side by side), the
 * share of the look it stopped at.
 */
function alphaOf(rule: PairedRule, doc: ResultDocument, pairs: number): number {
  const recorded = doc.sequential;
  const oneOff = recorded?.first_share !== undefined;
  if (rule === "single look" && !oneOff) return SINGLE_LOOK_ALPHA;
  const plan: SequentialPlan = recorded === undefined ? fixedPlan(doc.run.trials) : rule === "sequential" && oneOff ? { looks: recorded.looks, alpha: PAIRED_ALPHA } : recordedPlan(recorded);
  return finalAlpha(plan, lookIndex(plan, pairs), recorded?.stopped === "budget");
}

const inRun = (m: Measurement) => `${m.doc.run.runner}/${m.doc.run.id} ${matchKey(m)}`;

/** Why two sides' trials give no paired estimate. */
function noEstimate(baseTrials: number, headTrials: number): string {
  if (baseTrials !== headTrials) return `BASE has ${baseTrials} trials and HEAD ${headTrials}: trial k pairs with trial k only when both ran every trial`;
  if (baseTrials < MIN_PAIRS) return `too few pairs: ${baseTrials} pair${baseTrials === 1 ? "" : "s"} of trials, a paired verdict needs ${MIN_PAIRS}`;
  return "a trial's median is 0, so its pair has no ratio";
}

/**
 * The smallest change a metric read in ticks (CPU time in 10 ms, a warm-up in windows) can show:
 * more than one tick, since each reading rounds by up to a tick and quantised trials pair into
 * identical ratios whose interval has no width at all. An exact count (one more system call)
 * rounds nothing: 0. (1e-9: one tick exactly, despite floating point.)
 */
function tickEffect(base: Measurement, head: Measurement): number {
  const { resolution, exact } = base.summary;
  const smaller = Math.min(base.summary.median, head.summary.median);
  return resolution === undefined || exact || smaller <= 0 ? 0 : resolution / smaller + 1e-9;
}

/** How a paired cell is judged, where not by its results alone. */
export interface PairedJudging {
  /** The smallest change called one (default PAIRED_MIN_EFFECT), and where it came from. */
  readonly minEffect?: number;
  readonly minEffectSource?: MinEffectSource;
  /** Default: what the two results are (pairedRule). */
  readonly rule?: PairedRule;
  /** A single look's cells of one metric or suite (`spreadPriors`), which moderate the cell's spread between pairs. */
  readonly prior?: SpreadPrior | null;
}

/**
 * One cell of two subjects of one run, HEAD against BASE, trial by trial: what comparePaired
 * returns for each, and the regressions feed judges a release by.
 */
export function pairedRow(base: Measurement, head: Measurement, judging: PairedJudging = {}): CompareRow {
  const { minEffect: pairedEffect = PAIRED_MIN_EFFECT, minEffectSource: pairedSource = "paired", rule = pairedRule(base.doc, head.doc), prior = null } = judging;
  const baseTrials = trialClusters(base);
  const headTrials = trialClusters(head);
  const pairs = Math.min(baseTrials.length, headTrials.length);
  const tick = tickEffect(base, head);
  const [minEffect, source]: [number, MinEffectSource] = tick > pairedEffect ? [tick, "resolution"] : [pairedEffect, pairedSource];
  const alpha = alphaOf(rule, base.doc, pairs);
  const estimate = baseTrials.length === headTrials.length ? pairedEstimate(baseTrials, headTrials, alpha, prior) : null;
  const row = {
    ...rowOf([base], [head]),
    noise_floor: null,
    min_effect: minEffect,
    min_effect_source: source,
    rule,
    base_label: subjectLabel(base.doc),
    head_label: subjectLabel(head.doc),
    pairs,
    alpha,
  };
  if (estimate === null) return { ...row, ratio: null, ci95: null, verdict: "inconclusive", reason: noEstimate(baseTrials.length, headTrials.length) };
  const judgement = stoppedShort(boundedByClient(judge({ ratio: estimate.ratio, ci95: estimate.ci }, base.summary.better, minEffect, formatConfidence(alpha)), [base], [head]), base.doc, pairs);
  const moderated = prior === null ? {} : { df: estimate.df, moderated_over: prior.cells };
  return { ...row, ...moderated, ratio: estimate.ratio, ci95: estimate.ci, ...judgement };
}

/** Why adaptive trials that stopped short of their cap left a cell undecided, where they did: more trials were unlikely to decide it, or its runtimes too close for more to be worth it. */
const STOPPED_SHORT: Partial<Record<NonNullable<ResultDocument["sequential"]>["stopped"], string>> = {
  futile: "since the last look was unlikely to decide it (futility)",
  "small gap": `since runtimes side by side less than ${1 + ONE_OFF_GAP}× apart on the headline take no more`,
};

/** An inconclusive cell whose adaptive trials stopped short of their cap says why. */
function stoppedShort(judgement: Judgement, doc: ResultDocument, pairs: number): Judgement {
  const why = doc.sequential === undefined ? undefined : STOPPED_SHORT[doc.sequential.stopped];
  if (judgement.verdict !== "inconclusive" || why === undefined) return judgement;
  return { ...judgement, reason: `${judgement.reason}; its trials stopped at ${pairs} of ${doc.sequential!.looks.at(-1)!}, ${why}` };
}

interface MatchedCell {
  readonly base: Measurement;
  readonly head: Measurement;
  readonly rule: PairedRule;
}

/**
 * The cells whose spreads a single look's prior is fitted to, narrowest first: one metric of one
 * suite, then the whole suite (one run, the same two subjects). A metric's own cells, where there
 * are enough of them, agree more closely (HTTP's tail latencies scatter more than its throughput).
 */
const priorGroups = ({ base, head }: MatchedCell): [string, string] => {
  const suite = `${base.doc.run.runner}/${base.doc.run.id} ${subjectLabel(base.doc)} ${subjectLabel(head.doc)} ${base.doc.suite}`;
  return [`${suite} ${base.metric}`, suite];
};

/**
 * A single look's cells moderate their spreads by the other cells of their metric, or else of
 * their suite, in that run on the same two subjects (moderated.ts): a quick run's two pairs alone
 * give a t quantile of 12.7. Exact counts are left out (their spread is the program's, not the
 * machine's), as is the sequential rule, whose alpha the release job's adaptive trials already
 * reach with pairs of their own. Each cell's prior, where its metric's or suite's cells with a
 * spread are enough for one.
 */
function spreadPriors(cells: readonly MatchedCell[]): (cell: MatchedCell) => SpreadPrior | null {
  const spreads = new Map<string, CellSpread[]>();
  for (const cell of cells.filter(moderates)) {
    const logRatios = pairLogRatios(trialClusters(cell.base), trialClusters(cell.head));
    if (logRatios === null) continue;
    for (const group of priorGroups(cell)) spreads.set(group, [...(spreads.get(group) ?? []), pairSpread(logRatios)]);
  }
  const priors = new Map([...spreads].map(([group, list]) => [group, fitSpreadPrior(list)]));
  return (cell) => (moderates(cell) ? (priorGroups(cell).map((group) => priors.get(group)).find((prior) => prior) ?? null) : null);
}

const moderates = (cell: MatchedCell) => cell.rule === "single look" && cell.base.summary.exact !== true;

/**
 * HEAD against BASE where both were measured in one run (same runner and run id): one row per
 * matched cell (suite, scenario version, app, load parameters, metric) and run. Cells measured in
 * no common run give no row. `scripts/bench compare RUN --base L --head L`, the site's compare page
 * for two subjects of one run, and the regressions feed for a release measured with its
 * predecessor all judge through this function.
 */
export function comparePaired(base: readonly ResultDocument[], head: readonly ResultDocument[], options: Omit<CompareOptions, "history"> = {}): CompareRow[] {
  const minEffect = options.defaultMinEffect ?? PAIRED_MIN_EFFECT;
  const source: MinEffectSource = options.defaultMinEffect === undefined ? "paired" : "setting";
  const headByCell = groupBy(measurementsOf(head), inRun);
  const cells = measurementsOf(base).flatMap((b) => (headByCell.get(inRun(b)) ?? []).map((h): MatchedCell => ({ base: b, head: h, rule: options.pairedRule ?? pairedRule(b.doc, h.doc) })));
  const priorOf = spreadPriors(cells);
  return cells.map((cell) => pairedRow(cell.base, cell.head, { minEffect, minEffectSource: source, rule: cell.rule, prior: priorOf(cell) }));
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
