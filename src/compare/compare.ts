import { documentedChanges } from "../core/known-changes.ts";
import type { ResultDocument } from "../results/types.ts";
import { formatChange, formatPercent } from "./format.ts";
import { MIN_HISTORY_RUNS, noiseFloor, runToRunShift, spreadBySeries, type Spread } from "./noise.ts";
import { pooledMedian } from "./ratio.ts";
import {
  aboveResolution,
  cellOf,
  environmentDifference,
  environmentKey,
  groupBy,
  matchKey,
  measurementsOf,
  runtimeLabel,
  seriesKey,
  type Measurement,
} from "./series-key.ts";
import type { CompareOptions, CompareRow, MinEffectSource } from "./types.ts";
import { excludesOne, measureChange, type MeasuredChange } from "./verdict.ts";

/**
 * Pairs of runtimes to compare within one match key. One runtime on each side: that pair (two
 * versions of one runtime, or two runtimes). Several: each BASE runtime with the HEAD versions of
 * the same runtime, so two folders of node + bun compare node with node and bun with bun.
 */
function runtimePairs(base: readonly Measurement[], head: readonly Measurement[]): [Measurement[], Measurement[]][] {
  const baseRuntimes = [...groupBy(base, (m) => runtimeLabel(m.doc)).values()];
  const headRuntimes = [...groupBy(head, (m) => runtimeLabel(m.doc)).values()];
  if (baseRuntimes.length === 1 && headRuntimes.length === 1) return [[baseRuntimes[0]!, headRuntimes[0]!]];
  return baseRuntimes.flatMap((b) =>
    headRuntimes.filter((h) => h[0]!.doc.runtime.name === b[0]!.doc.runtime.name).map((h): [Measurement[], Measurement[]] => [b, h]),
  );
}

interface MinimumEffect {
  noise_floor: number | null;
  min_effect: number;
  min_effect_source: MinEffectSource;
}

/**
 * The minimum effect of a pair: the noise floor of the two series where history measures it; else
 * the user's setting; else the run-to-run shift of the suite on that kind of machine, which the
 * interval of a single run on each side cannot see.
 */
function minimumEffect(spreads: ReadonlyMap<string, Spread | null>, base: Measurement, head: Measurement, setting: number | undefined): MinimumEffect {
  // A series without history borrows the other's spread: on one machine, relative noise is alike.
  const known = [spreads.get(seriesKey(base)), spreads.get(seriesKey(head))].filter((s): s is Spread => s != null);
  if (known.length > 0) {
    const floor = noiseFloor(known[0]!, known[1] ?? known[0]!);
    return { noise_floor: floor, min_effect: floor, min_effect_source: "noise floor" };
  }
  return withoutHistory(base, head, setting);
}

/** Without history: the setting, else the shift of the suite's metric on that kind of machine, in the noisier of the two sides' profiles. */
function withoutHistory(base: Measurement, head: Measurement, setting: number | undefined): MinimumEffect {
  if (setting !== undefined) return { noise_floor: null, min_effect: setting, min_effect_source: "setting" };
  const shift = (m: Measurement) => runToRunShift(m.doc.suite, m.doc.run.runner_kind, m.doc.run.profile, m.metric);
  return { noise_floor: null, min_effect: Math.max(shift(base), shift(head)), min_effect_source: "run-to-run shift" };
}

/**
 * The verdict and its reason. Without history, a change the interval shows but within the
 * run-to-run shift is inconclusive, not "no significant change": the data neither back it nor rule it out.
 */
function verdictOf(change: MeasuredChange, effect: MinimumEffect, base: Measurement): Pick<CompareRow, "verdict" | "reason"> {
  if (change.verdict === "inconclusive") return { verdict: change.verdict, reason: change.reason! };
  if (change.verdict !== "no significant change" || effect.min_effect_source !== "run-to-run shift" || !excludesOne(change.ci95)) {
    return { verdict: change.verdict };
  }
  return {
    verdict: "inconclusive",
    reason:
      `${formatChange(change.ratio)} is within the ${formatPercent(effect.min_effect)} run-to-run shift of ${base.doc.suite} ${base.metric} on a ` +
      `${base.doc.run.runner_kind} machine; judging a change this small needs ${MIN_HISTORY_RUNS} runs of history`,
  };
}

export function rowOf(base: readonly Measurement[], head: readonly Measurement[]): Omit<CompareRow, "ratio" | "ci95" | "noise_floor" | "min_effect" | "min_effect_source" | "verdict" | "rule"> {
  const { doc } = base[0]!;
  const headDoc = head[0]!.doc;
  const cell = cellOf(base[0]!);
  const documented =
    doc.runtime.name === headDoc.runtime.name ? documentedChanges({ runtime: doc.runtime.name, from: doc.runtime.version, to: headDoc.runtime.version, ...cell }) : [];
  return {
    ...cell,
    ...(documented.length > 0 ? { documented } : {}),
    base_runtime: doc.runtime.name,
    base_version: doc.runtime.version,
    head_runtime: headDoc.runtime.name,
    head_version: headDoc.runtime.version,
    base_runner: doc.run.runner,
    head_runner: headDoc.run.runner,
    base_runs: base.length,
    head_runs: head.length,
    base_median: pooledMedian(base),
    head_median: pooledMedian(head),
  };
}

const separateRow = (base: readonly Measurement[], head: readonly Measurement[]) => ({ ...rowOf(base, head), rule: "separate runs" as const });

/**
 * A ratio of medians, and its bootstrap interval, need samples above zero on both sides (a
 * database's CPU time can round to 0 s, a rate ladder can sustain no rate): why not, or null.
 */
function zeroSamples(base: readonly Measurement[], head: readonly Measurement[]): string | null {
  const hasZero = (side: readonly Measurement[]) => side.some((m) => m.summary.samples.includes(0));
  const sides = [hasZero(base) ? "base" : null, hasZero(head) ? "head" : null].filter((side) => side !== null);
  return sides.length > 0 ? `the ${sides.join(" and ")} ha${sides.length > 1 ? "ve" : "s"} samples of 0: no ratio` : null;
}

/**
 * HEAD against BASE, one row per matched cell and machine. Results match on suite, scenario (same
 * scenario_version), app, load parameters and metric; only `ok` results count; repeated runs of a
 * runtime version on one side are pooled. Pairs measured on different machines (runner, arch, CPU
 * model, hardware fingerprint) are rows with verdict `not comparable` and no ratio. `scripts/bench
 * compare` prints exactly these rows; the site's compare page calls this function too.
 */
export function compareResults(base: readonly ResultDocument[], head: readonly ResultDocument[], options: CompareOptions = {}): CompareRow[] {
  const spreads = spreadBySeries(measurementsOf(options.history ?? []));
  const headByKey = groupBy(measurementsOf(head), matchKey);
  const rows: CompareRow[] = [];
  for (const [key, baseSide] of groupBy(measurementsOf(base), matchKey)) {
    const headSide = headByKey.get(key);
    if (!headSide) continue;
    for (const [baseRuntime, headRuntime] of runtimePairs(baseSide, headSide)) {
      const baseByMachine = groupBy(baseRuntime, (m) => environmentKey(m.doc));
      const headByMachine = groupBy(headRuntime, (m) => environmentKey(m.doc));
      const shared = [...baseByMachine.keys()].filter((machine) => headByMachine.has(machine));
      if (shared.length === 0) {
        rows.push({
          ...separateRow(baseRuntime, headRuntime),
          ratio: null,
          ci95: null,
          ...withoutHistory(baseRuntime[0]!, headRuntime[0]!, options.defaultMinEffect),
          verdict: "not comparable",
          // No machine is shared, so any BASE result and any HEAD result differ in it.
          reason: environmentDifference(baseRuntime[0]!.doc, headRuntime[0]!.doc)!,
        });
        continue;
      }
      for (const machine of shared) {
        const b = baseByMachine.get(machine)!;
        const h = headByMachine.get(machine)!;
        const effect = minimumEffect(spreads, b[0]!, h[0]!, options.defaultMinEffect);
        // A metric with a stated resolution (a clock's tick) is judged by it; any other with samples of 0, below.
        const coarse = [...b, ...h].find((m) => m.summary.resolution !== undefined && !aboveResolution(m));
        if (coarse !== undefined) {
          // A ratio to a clock's tick is no measurement: the row says so instead of judging it.
          const { median, unit, resolution } = coarse.summary;
          rows.push({ ...separateRow(b, h), ratio: null, ci95: null, ...effect, verdict: "inconclusive", reason: `below resolution: a median of ${median} ${unit} is at or below the measurement's ${resolution ?? 0} ${unit}` });
          continue;
        }
        const zero = zeroSamples(b, h);
        if (zero) {
          rows.push({ ...separateRow(b, h), ratio: null, ci95: null, ...effect, verdict: "not comparable", reason: zero });
          continue;
        }
        const change = measureChange(b, h, effect.min_effect);
        rows.push({ ...separateRow(b, h), ratio: change.ratio, ci95: change.ci95, ...effect, ...verdictOf(change, effect, b[0]!) });
      }
    }
  }
  return rows;
}
