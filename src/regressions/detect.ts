import { createHash } from "node:crypto";
import { documentedChanges } from "../core/known-changes.ts";
import { DEFAULT_MIN_EFFECT, noiseFloor, runToRunSpread } from "../compare/noise.ts";
import { CANARY_BASELINE_LABEL, CANARY_LABEL, comparePaired } from "../compare/paired.ts";
import { cellLabel } from "../compare/format.ts";
import { aboveResolution, compareVersions, measurementsOf, type Measurement } from "../compare/series-key.ts";
import type { CompareRow, MinEffectSource } from "../compare/types.ts";
import { significantChange, type MeasuredChange } from "../compare/verdict.ts";
import type { ResultDocument } from "../results/types.ts";
import { detectionCodeHash, type SeriesResult } from "./cache.ts";
import { judgeDrift } from "./drift.ts";
import { releasesBetween, withoutNarrowed } from "./narrowed.ts";
import { releaseNotes } from "../runtimes/catalog.ts";
import { describeDrift } from "./format.ts";
import { judgePaired, measuredPairs, withHalves } from "./pairs.ts";
import { buildSeries, runRef, runRefOf, type Series, type VersionPoint } from "./series.ts";
import { REGRESSIONS_SCHEMA_ID, type DriftedRun, type RegressionOptions, type RegressionReport, type SeriesChange, type SeriesIdentity, type SeriesSummary } from "./types.ts";

/** Versions pooled as the level a new version is held against. */
export const REFERENCE_VERSIONS = 3;

interface Threshold {
  noise_floor: number | null;
  min_effect: number;
  min_effect_source: MinEffectSource;
}

type Judgement =
  | { kind: "outlier" }
  | { kind: "change"; status: SeriesChange["status"]; reason: string; evidence: readonly VersionPoint[] };

/** A release's notes and the commits since the version it is judged against, where the runtime is known. */
function releaseLinks(runtime: string, from: string, to: string): Pick<SeriesChange, "release_notes"> {
  const notes = releaseNotes(runtime, from, to);
  return notes === null ? {} : { release_notes: notes };
}

const newestStart = (points: readonly VersionPoint[]) =>
  points.flatMap((p) => p.runs.map((m) => m.doc.run.started_at)).reduce((a, b) => (a > b ? a : b));

function driftReason(point: VersionPoint, driftByRun: ReadonlyMap<string, DriftedRun>): string {
  const drifts = [...new Set(point.runs.map((m) => driftByRun.get(runRef(m))))].filter((d): d is DriftedRun => d !== undefined);
  return `held back: measured while the machine drifted (${drifts.map(describeDrift).join("; ")})`;
}

const ACROSS_RUNS_ON_REFERENCE =
  "held back: measured across runs on a reference testbed, whose absolute figures move from run to run; there only a release measured beside its predecessor in one run confirms a change";

/**
 * Is a significant change at `point` real? Measured in drifting runs: held back. Every one of
 * several runs of the version shows it, or the next trusted version still differs from the
 * reference the same way: confirmed. The next version does not: a one-off outlier. Nothing
 * after it yet: unconfirmed, awaiting a repeated run or the next release. On a reference testbed
 * runs hours apart on one host differ as much as releases do, and the later runs share the shift
 * of their hours: no run confirms what only runs apart show, so such a change stays held back.
 */
function judgeChange(
  reference: readonly Measurement[],
  point: VersionPoint,
  later: VersionPoint | undefined,
  change: MeasuredChange,
  minEffect: number,
  driftByRun: ReadonlyMap<string, DriftedRun>,
  onReference: boolean,
): Judgement {
  if (point.drifted) return { kind: "change", status: "unconfirmed", reason: driftReason(point, driftByRun), evidence: [point] };
  const sameWay = (runs: readonly Measurement[]) => significantChange(reference, runs, minEffect)?.verdict === change.verdict;
  const heldBack = (evidence: readonly VersionPoint[]): Judgement => ({ kind: "change", status: "unconfirmed", reason: ACROSS_RUNS_ON_REFERENCE, evidence });
  if (point.runs.length >= 2 && point.runs.every((run) => sameWay([run]))) {
    if (onReference) return heldBack([point]);
    return { kind: "change", status: "confirmed", reason: `each of the ${point.runs.length} runs of ${point.version} shows it`, evidence: [point] };
  }
  if (later === undefined) {
    if (onReference) return heldBack([point]);
    return { kind: "change", status: "unconfirmed", reason: "newest measurement: a repeated run or the next version will confirm it", evidence: [point] };
  }
  if (!sameWay(later.runs)) return { kind: "outlier" };
  if (onReference) return heldBack([point, later]);
  return { kind: "change", status: "confirmed", reason: `${later.version} confirms it`, evidence: [point, later] };
}

/**
 * A version measured in one run with the version before it (the release job measures a new
 * release beside its predecessor): its paired comparison in that run, the newest such run. That
 * judgement needs no later version: the run-to-run shift cancels within the run.
 */
function pairedWithPredecessor(previous: VersionPoint | undefined, point: VersionPoint): { base: Measurement; head: Measurement } | null {
  if (previous === undefined) return null;
  for (const head of [...point.runs].reverse()) {
    const base = previous.runs.find((m) => runRef(m) === runRef(head));
    if (base) return { base, head };
  }
  return null;
}

/** A change judged in one run of both versions, by the pairs of its trials. */
function pairedChange(series: Series, from: VersionPoint, to: VersionPoint, paired: { base: Measurement; head: Measurement }, row: CompareRow, floor: number | null): SeriesChange {
  return {
    ...series.identity,
    kind: row.verdict === "slower" ? "regression" : "improvement",
    from_version: from.version,
    to_version: to.version,
    ratio: row.ratio!,
    ci95: row.ci95!,
    noise_floor: floor,
    min_effect: row.min_effect,
    min_effect_source: row.min_effect_source,
    status: "confirmed",
    reason: `paired with ${from.version} in run ${paired.head.doc.run.id} (${row.pairs} pairs of trials)`,
    environment_drift: to.drifted,
    run_ids: to.runs.map((m) => m.doc.run.id),
    updated: paired.head.doc.run.started_at,
    ...releaseLinks(series.identity.runtime, from.version, to.version),
    compare_command: `scripts/bench compare ${paired.head.doc.run.id} --base ${row.base_label} --head ${row.head_label}`,
  };
}

/**
 * Paired steps between versions that are not neighbours in the series: a sweep's link whose
 * narrowing measured releases between its two, where no part showed the step alone (a step spread
 * over several releases, or one run's figure). The series pairs each version with its neighbour,
 * so without this the link's confirmed step would leave the feed; it stays on the link (whose
 * `between` names the releases it lies among, and `halves` what its measured halves said), unless
 * a change of the series within it, the same way, already stands for it.
 */
function unnarrowedLinks(series: Series, found: readonly SeriesChange[], floor: number | null): SeriesChange[] {
  const { points } = series;
  const pairs = measuredPairs(points);
  const links: SeriesChange[] = [];
  for (const pair of pairs.values()) {
    if (pair.to - pair.from < 2) continue;
    const row = judgePaired(pair);
    if (row.verdict !== "faster" && row.verdict !== "slower") continue;
    const change = pairedChange(series, points[pair.from]!, points[pair.to]!, pair, row, floor);
    const within = (c: SeriesChange) => c.kind === change.kind && compareVersions(c.from_version, change.from_version) >= 0 && compareVersions(c.to_version, change.to_version) <= 0;
    if (!found.some(within)) links.push(change);
  }
  return links;
}

/**
 * Steps in one series, version by version. Each version is held against the level before it: the
 * last (up to REFERENCE_VERSIONS) versions since the previous change, pooled, leaving out outliers
 * and versions measured while the machine drifted. Pooling keeps one lucky or unlucky version from
 * becoming the yardstick of the next. The threshold is the series' own noise floor, or the default.
 */
function detectSteps(series: Series, fallback: number, driftByRun: ReadonlyMap<string, DriftedRun>): SeriesResult {
  const spread = runToRunSpread(series.runs);
  const floor = spread === null ? null : noiseFloor(spread);
  const threshold: Threshold = { noise_floor: floor, min_effect: floor ?? fallback, min_effect_source: floor === null ? "default" : "noise floor" };
  const { points } = series;
  const onReference = series.runs.some((m) => m.doc.run.runner_kind === "reference");
  const changes: SeriesChange[] = [];
  const outliers: string[] = [];
  let level: VersionPoint[] = [];
  points.forEach((point, k) => {
    const paired = pairedWithPredecessor(points[k - 1], point);
    if (paired !== null) {
      const row = judgePaired(paired);
      if (row.verdict === "faster" || row.verdict === "slower") {
        changes.push(pairedChange(series, points[k - 1]!, point, paired, row, floor));
        level = [point];
      } else if (row.verdict === "no significant change") {
        level = [...level, point].slice(-REFERENCE_VERSIONS);
      }
      // A paired estimate that settles nothing is the best this version has: judged alone against
      // the level of other runs, it would carry the run-to-run shift the pairing cancelled, and on a
      // shared machine a run whose adaptive trials ran out undecided would raise false alarms. Only
      // trials that do not pair (no estimate) are judged below, as a version measured alone.
      if (row.ratio !== null) return;
    }
    const reference = level.flatMap((p) => p.runs);
    const change = level.length === 0 ? null : significantChange(reference, point.runs, threshold.min_effect);
    if (change === null) {
      if (!point.drifted) level = [...level, point].slice(-REFERENCE_VERSIONS);
      return;
    }
    const later = points.slice(k + 1).find((p) => !p.drifted);
    const judgement = judgeChange(reference, point, later, change, threshold.min_effect, driftByRun, onReference);
    if (judgement.kind === "outlier") {
      outliers.push(point.version);
      return;
    }
    changes.push({
      ...series.identity,
      kind: change.verdict === "slower" ? "regression" : "improvement",
      from_version: level.at(-1)!.version,
      to_version: point.version,
      ratio: change.ratio,
      ci95: change.ci95,
      ...threshold,
      status: judgement.status,
      reason: judgement.reason,
      environment_drift: point.drifted,
      run_ids: point.runs.map((m) => m.doc.run.id),
      updated: newestStart(judgement.evidence),
      ...releaseLinks(series.identity.runtime, level.at(-1)!.version, point.version),
    });
    if (!point.drifted) level = [point];
  });
  changes.push(...unnarrowedLinks(series, changes, floor));
  const summary: SeriesSummary = {
    ...series.identity,
    versions: points.map((p) => p.version),
    runs: series.runs.length,
    noise_floor: floor,
    outliers,
  };
  return { changes, summary };
}

/**
 * The cache key of a series: a hash of everything its result depends on. That is its identity,
 * every run in the order read (machine, run, start, trials, version, unit, direction, median,
 * samples, their split into trials and the run's looks), the drift of those runs, the default minimum effect, and the detection code itself.
 */
export function seriesInputKey(series: Series, fallback: number, driftByRun: ReadonlyMap<string, DriftedRun>): string {
  const numbers: number[] = [fallback];
  const texts: unknown[] = [detectionCodeHash(), series.identity];
  for (const m of series.runs) {
    const { run, runtime } = m.doc;
    texts.push(run.runner, run.id, run.started_at, runtime.version, m.summary.unit, m.summary.better, driftByRun.get(runRef(m)) ?? null);
    // What a paired judgement reads besides the samples: how they split into trials, and the run's looks.
    texts.push(m.summary.trial_samples ?? null, m.doc.sequential ?? null);
    numbers.push(run.trials, m.summary.median, m.summary.samples.length, ...m.summary.samples);
  }
  return createHash("sha256").update(JSON.stringify(texts)).update(new Uint8Array(Float64Array.from(numbers).buffer)).digest("hex");
}

/**
 * Regressions and improvements over the history in `docs`: for every series (runner × runtime ×
 * suite × scenario × app × load parameters × metric), each new version against the version before,
 * judged against the series' own noise. Changes measured in runs whose drift sentinel moved are held
 * back as unconfirmed. `scripts/bench regressions` prints this report and writes it as the feed.
 */

/**
 * A canary build against its release, paired within each run that measured both: a change the
 * canary would ship, seen before it does. A canary's version (`2.7.0+<commit>`) is no release, so
 * its results never join a series; these changes are the feed's only use of them.
 */
function canaryChanges(docs: readonly ResultDocument[]): SeriesChange[] {
  const canaries = docs.filter((doc) => doc.label === CANARY_LABEL);
  const runs = new Set(canaries.map((doc) => `${doc.run.runner} ${doc.run.id}`));
  const baselines = docs.filter((doc) => doc.label === CANARY_BASELINE_LABEL && runs.has(`${doc.run.runner} ${doc.run.id}`));
  return comparePaired(baselines, canaries, { pairedRule: "sequential" })
    .filter((row) => row.verdict === "faster" || row.verdict === "slower")
    .map((row): SeriesChange => {
      const measured = canaries.filter((doc) => doc.runtime.name === row.head_runtime && doc.runtime.version === row.head_version);
      const { suite, scenario, scenario_version, app, params, metric, unit, better } = row;
      return {
        ...{ suite, scenario, scenario_version, app, params, metric, unit, better },
        series: `canary ${row.base_runner} ${row.head_runtime} ${cellLabel(row)} ${metric}`,
        runner: row.base_runner,
        runtime: row.head_runtime,
        headline: measured.some((doc) => Object.keys(doc.metrics)[0] === metric),
        kind: row.verdict === "slower" ? "regression" : "improvement",
        from_version: row.base_version,
        to_version: row.head_version,
        ratio: row.ratio!,
        ci95: row.ci95!,
        noise_floor: null,
        min_effect: row.min_effect,
        min_effect_source: row.min_effect_source,
        status: "confirmed",
        reason: `canary build paired with release ${row.base_version} in one run (${row.pairs} pairs of trials)`,
        environment_drift: false,
        run_ids: [...new Set(measured.map((doc) => doc.run.id))],
        updated: measured.reduce((latest, doc) => (doc.run.started_at > latest ? doc.run.started_at : latest), ""),
        channel: "canary",
      };
    });
}

/** A change with the changes its runtime's team documented on its cell between its two versions (docs/known-changes.json). */
function withDocumented(change: SeriesChange): SeriesChange {
  const documented = documentedChanges({ ...change, from: change.from_version, to: change.to_version });
  return documented.length > 0 ? { ...change, documented } : change;
}

/** A release's change with the published releases between its two versions, where they are known. */
function withBetween(change: SeriesChange, published: ReadonlyMap<string, readonly string[]> | undefined): SeriesChange {
  const between = change.channel === "canary" || published === undefined ? null : releasesBetween(change, published);
  return between === null ? change : { ...change, between };
}

const scenarioOf = (identity: Pick<SeriesIdentity, "suite" | "scenario">) => `${identity.suite}/${identity.scenario}`;

/** The newest version of each scenario among the series (`suite/scenario` to its version). */
function newestScenarioVersions(series: readonly Series[]): Map<string, number> {
  const newest = new Map<string, number>();
  for (const { identity } of series) {
    const key = scenarioOf(identity);
    newest.set(key, Math.max(newest.get(key) ?? 0, identity.scenario_version));
  }
  return newest;
}

/** A change on a scenario version the results also hold a newer version of, marked as replaced. */
function withReplaced(change: SeriesChange, newest: ReadonlyMap<string, number>): SeriesChange {
  const version = newest.get(scenarioOf(change)) ?? change.scenario_version;
  return version > change.scenario_version ? { ...change, replaced_by: version } : change;
}

export function detectRegressions(docs: readonly ResultDocument[], options: RegressionOptions = {}): RegressionReport {
  const fallback = options.defaultMinEffect ?? DEFAULT_MIN_EFFECT;
  const measurements = measurementsOf(docs.filter((doc) => doc.label !== CANARY_LABEL)).filter(aboveResolution);
  const drifted = judgeDrift(measurements, fallback);
  const driftByRun = new Map(drifted.map((d) => [runRefOf(d.runner, d.run_id), d]));
  const allSeries = buildSeries(measurements, new Set(driftByRun.keys()));
  const results = allSeries.map((series) => {
    if (options.cache === undefined) return detectSteps(series, fallback, driftByRun);
    const key = seriesInputKey(series, fallback, driftByRun);
    const known = options.cache.get(key);
    if (known !== undefined) return known;
    const result = detectSteps(series, fallback, driftByRun);
    options.cache.set(key, result);
    return result;
  });
  const newest = newestScenarioVersions(allSeries);
  return {
    schema: REGRESSIONS_SCHEMA_ID,
    generated_at: (options.now ?? new Date()).toISOString(),
    changes: [...withHalves(withoutNarrowed(results.flatMap((r) => r.changes)), allSeries), ...canaryChanges(docs)]
      .map((change) => withReplaced(withBetween(withDocumented(change), options.published), newest))
      .sort((a, b) => b.updated.localeCompare(a.updated) || a.series.localeCompare(b.series)),
    drifted_runs: drifted,
    series: results.map((r) => r.summary).sort((a, b) => a.series.localeCompare(b.series)),
  };
}
