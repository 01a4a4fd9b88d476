import type { MeasuredCell } from "../compare/types.ts";
import { pooledMedian, ratioOfMedians } from "../compare/ratio.ts";
import { cellOf, compareVersions, environmentKey, groupBy, matchKey, seriesKey, type Measurement } from "../compare/series-key.ts";
import { syscallDiff, type SyscallDiff } from "../compare/syscall-diff.ts";
import { boundedByClient, excludesOne } from "../compare/verdict.ts";
import { paramsSlug } from "../core/params.ts";
import type { ResultDocument } from "../results/types.ts";

/**
 * What a finding is, and how far off it must be. An outlier is a runtime far from the others on
 * the same cell and machine (default 3×); a step is a series whose two adjacent releases differ by
 * 2× or more. Either needs its 95 % interval to exclude 1: a wide gap the samples cannot back is
 * noise, not a finding.
 */
export interface FindingThresholds {
  readonly outlierFactor: number;
  readonly stepFactor: number;
}

export const DEFAULT_THRESHOLDS: FindingThresholds = { outlierFactor: 3, stepFactor: 2 };

/** One runtime's (outlier) or one version's (step) figure on the finding's cell. */
export interface FindingFigure {
  runtime: string;
  version: string;
  median: number;
  /** The 95 % interval of that median, as its result records it (pooled results: the widest). */
  ci95: [number, number];
  run_ids: string[];
}

export interface Finding extends MeasuredCell {
  /** Stable across builds: the same gap on the same cell and machine keeps its id. */
  id: string;
  kind: "outlier" | "step";
  runner: string;
  arch: string;
  /** The runtime that is far off (outlier), or the later release (step). */
  runtime: string;
  version: string;
  /** For a step: the release before it. */
  from_version?: string;
  /** In the metric's own direction: `slower` means worse than the others, or than the release before. */
  direction: "slower" | "faster";
  /** How many times off, ≥ 1, in the worse direction: for an outlier, against the others' geometric mean; for a step, against the release before. */
  factor: number;
  /** 95 % interval of the ratio subject over reference (an outlier's nearest other, a step's release before), in "times". */
  ci95: [number, number];
  /** Every runtime's figure (outlier) or both releases' (step), the subject first. */
  figures: FindingFigure[];
  /** The start of the newest result the finding rests on. */
  updated: string;
  /** Where its results were counted: the calls that differ most from the reference's (src/compare/syscall-diff.ts). */
  syscall_changes?: SyscallDiff;
}

/** The calls that differ most from `reference` to `subject`, where both were counted. */
function callsBetween(reference: readonly Measurement[], subject: readonly Measurement[]): Pick<Finding, "syscall_changes"> {
  const diff = syscallDiff(reference.map((m) => m.doc), subject.map((m) => m.doc));
  return diff === null || diff.changes.length === 0 ? {} : { syscall_changes: diff };
}

const headlineMetric = (doc: ResultDocument): string | undefined => Object.keys(doc.metrics)[0];

/** Measurements of each ok result's headline metric (its manifest's first), the one findings judge; the others are never made. */
function headlineMeasurements(docs: readonly ResultDocument[]): Measurement[] {
  return docs.flatMap((doc) => {
    const metric = doc.status === "ok" ? headlineMetric(doc) : undefined;
    return metric === undefined ? [] : [{ doc, metric, summary: doc.metrics[metric]! }];
  });
}

function figureOf(side: readonly Measurement[]): FindingFigure {
  const { doc } = side[0]!;
  const lows = side.map((m) => m.summary.ci95[0]);
  const highs = side.map((m) => m.summary.ci95[1]);
  return {
    runtime: doc.runtime.name,
    version: doc.runtime.version,
    median: sideMedian(side),
    ci95: [Math.min(...lows), Math.max(...highs)],
    run_ids: [...new Set(side.map((m) => m.doc.run.id))],
  };
}

interface Gap {
  factor: number;
  direction: "slower" | "faster";
}

/** Each side's pooled median once: a release is the later side of one step and the earlier of the next, a runtime a side of every gap of its cell. */
const pooledMedians = new WeakMap<readonly Measurement[], number>();
function sideMedian(side: readonly Measurement[]): number {
  let value = pooledMedians.get(side);
  if (value === undefined) pooledMedians.set(side, (value = pooledMedian(side)));
  return value;
}

/** `subject / reference` as a factor ≥ 1 and whether the subject is the worse side. */
function gap(reference: readonly Measurement[], subject: readonly Measurement[]): Gap {
  const ratio = sideMedian(subject) / sideMedian(reference);
  const worse = (ratio > 1) === (subject[0]!.summary.better === "lower");
  return { factor: ratio >= 1 ? ratio : 1 / ratio, direction: worse ? "slower" : "faster" };
}

/**
 * Whether a gap in `direction` (the subject's, against the reference) stands where a side's figure
 * is its load generator's ceiling: only if that side is the better one, whose server is faster
 * still. A subject found worse while its own client ran out of CPU may not be worse at all.
 */
const standsBeside = (reference: readonly Measurement[], subject: readonly Measurement[], direction: Gap["direction"]) =>
  boundedByClient({ verdict: direction }, reference, subject).verdict === direction;

/** The interval of `subject / reference`, when it excludes 1; the bootstrap runs only for gaps already wide enough. */
function backedInterval(reference: readonly Measurement[], subject: readonly Measurement[]): [number, number] | null {
  const { ci95 } = ratioOfMedians(reference, subject);
  return excludesOne(ci95) ? ci95 : null;
}

const newestStart = (sides: readonly (readonly Measurement[])[]) =>
  sides.flat().reduce((latest, m) => (m.doc.run.started_at > latest ? m.doc.run.started_at : latest), "");

/** A runtime's newest version on a cell: what it is judged by against the others. */
function newestVersion(measurements: readonly Measurement[]): Measurement[] {
  const byVersion = [...groupBy(measurements, (m) => m.doc.runtime.version).values()];
  return byVersion.sort((a, b) => compareVersions(b[0]!.doc.runtime.version, a[0]!.doc.runtime.version))[0]!;
}

function cellFinding(kind: Finding["kind"], subject: readonly Measurement[], others: readonly (readonly Measurement[])[], key: string): Omit<Finding, "direction" | "factor" | "ci95"> {
  const { doc } = subject[0]!;
  return {
    ...cellOf(subject[0]!),
    id: `${kind} ${key} ${doc.runtime.name}`,
    kind,
    runner: doc.run.runner,
    arch: doc.environment.arch,
    runtime: doc.runtime.name,
    version: doc.runtime.version,
    figures: [figureOf(subject), ...others.map(figureOf)],
    updated: newestStart([subject, ...others]),
  };
}

/**
 * Runtimes far off the others: on each machine and cell, every runtime's newest version; a runtime
 * `outlierFactor` away from the others' typical level (the geometric mean of their medians), on
 * the same side of every other, with the interval of its ratio to the nearest other excluding 1.
 * The others' level, not the nearest alone, because a reader asks how far a runtime is from the
 * field: 5× off one and 2.9× off the other is far off the others. With two runtimes the gap
 * belongs to neither alone, so the worse one carries it.
 */
export function findOutliers(docs: readonly ResultDocument[], thresholds: FindingThresholds = DEFAULT_THRESHOLDS): Finding[] {
  const findings: Finding[] = [];
  const cells = groupBy(headlineMeasurements(docs), (m) => `${environmentKey(m.doc)} ${matchKey(m)}`);
  for (const [key, measurements] of cells) {
    const runtimes = [...groupBy(measurements, (m) => m.doc.runtime.name).values()].map(newestVersion);
    if (runtimes.length < 2) continue;
    for (const subject of runtimes) {
      const others = runtimes.filter((r) => r !== subject);
      const gaps = others.map((other) => ({ other, gap: gap(other, subject) })).sort((a, b) => a.gap.factor - b.gap.factor);
      const nearest = gaps[0]!;
      // A runtime between two others is off neither way: only the best or the worst stands apart.
      if (gaps.some((g) => g.gap.direction !== nearest.gap.direction)) continue;
      if (runtimes.length === 2 && nearest.gap.direction === "faster") continue;
      const factor = Math.exp(gaps.reduce((sum, g) => sum + Math.log(g.gap.factor), 0) / gaps.length);
      if (factor < thresholds.outlierFactor) continue;
      if (!others.every((other) => standsBeside(other, subject, nearest.gap.direction))) continue;
      const ci95 = backedInterval(nearest.other, subject);
      if (ci95 === null) continue;
      findings.push({ ...cellFinding("outlier", subject, others, key), direction: nearest.gap.direction, factor, ci95, ...callsBetween(nearest.other, subject) });
    }
  }
  return findings;
}

/** Adjacent releases of one series `stepFactor` apart, the interval of their ratio excluding 1. */
export function findSteps(docs: readonly ResultDocument[], thresholds: FindingThresholds = DEFAULT_THRESHOLDS): Finding[] {
  const findings: Finding[] = [];
  for (const [key, series] of groupBy(headlineMeasurements(docs), seriesKey)) {
    const versions = [...groupBy(series, (m) => m.doc.runtime.version).values()].sort((a, b) =>
      compareVersions(a[0]!.doc.runtime.version, b[0]!.doc.runtime.version),
    );
    for (let i = 1; i < versions.length; i++) {
      const [before, after] = [versions[i - 1]!, versions[i]!];
      const step = gap(before, after);
      if (step.factor < thresholds.stepFactor || !standsBeside(before, after, step.direction)) continue;
      const ci95 = backedInterval(before, after);
      if (ci95 === null) continue;
      const base = cellFinding("step", after, [before], key);
      findings.push({ ...base, id: `${base.id}@${after[0]!.doc.runtime.version}`, from_version: before[0]!.doc.runtime.version, ...step, ci95, ...callsBetween(before, after) });
    }
  }
  return findings;
}

/** Every finding, largest first. */
export function findFindings(docs: readonly ResultDocument[], thresholds: FindingThresholds = DEFAULT_THRESHOLDS): Finding[] {
  return [...findOutliers(docs, thresholds), ...findSteps(docs, thresholds)].sort((a, b) => b.factor - a.factor || a.id.localeCompare(b.id));
}

/**
 * The results a finding rests on, one per runtime version it names (the newest run of each): what
 * a reproduction of it is made from.
 */
export function findingDocs(finding: Finding, docs: readonly ResultDocument[]): ResultDocument[] {
  const wanted = new Set(finding.figures.map((f) => `${f.runtime}@${f.version}`));
  const newest = new Map<string, ResultDocument>();
  for (const doc of docs) {
    const key = `${doc.runtime.name}@${doc.runtime.version}`;
    if (doc.status !== "ok" || !wanted.has(key) || doc.run.runner !== finding.runner || doc.suite !== finding.suite || doc.scenario !== finding.scenario) continue;
    if (doc.app !== finding.app || paramsSlug(doc.params) !== paramsSlug(finding.params) || !doc.metrics[finding.metric]) continue;
    const known = newest.get(key);
    if (!known || doc.run.started_at > known.run.started_at) newest.set(key, doc);
  }
  return finding.figures.flatMap((f) => newest.get(`${f.runtime}@${f.version}`) ?? []);
}
