import type { ResultDocument } from "../results/types.ts";
import { DEFAULT_MIN_EFFECT, noiseFloor, spreadBySeries, type Spread } from "./noise.ts";
import { pooledMedian } from "./ratio.ts";
import {
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
import { measureChange } from "./verdict.ts";

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

/** The minimum effect of a pair: the noise floor of the two series where history measures it, else the default. */
function minimumEffect(
  spreads: ReadonlyMap<string, Spread | null>,
  base: Measurement,
  head: Measurement,
  fallback: number,
): { noise_floor: number | null; min_effect: number; min_effect_source: MinEffectSource } {
  // A series without history borrows the other's spread: on one machine, relative noise is alike.
  const known = [spreads.get(seriesKey(base)), spreads.get(seriesKey(head))].filter((s): s is Spread => s != null);
  if (known.length === 0) return { noise_floor: null, min_effect: fallback, min_effect_source: "default" };
  const floor = noiseFloor(known[0]!, known[1] ?? known[0]!);
  return { noise_floor: floor, min_effect: floor, min_effect_source: "noise floor" };
}

function rowOf(base: Measurement[], head: Measurement[]): Omit<CompareRow, "ratio" | "ci95" | "noise_floor" | "min_effect" | "min_effect_source" | "verdict"> {
  const { doc } = base[0]!;
  const headDoc = head[0]!.doc;
  return {
    ...cellOf(base[0]!),
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

/**
 * HEAD against BASE, one row per matched cell and machine. Results match on suite, scenario (same
 * scenario_version), app, load parameters and metric; only `ok` results count; repeated runs of a
 * runtime version on one side are pooled. Pairs measured on different machines (runner, arch, CPU
 * model, hardware fingerprint) are rows with verdict `not comparable` and no ratio. `scripts/bench
 * compare` prints exactly these rows; the site's compare page calls this function too.
 */
export function compareResults(base: readonly ResultDocument[], head: readonly ResultDocument[], options: CompareOptions = {}): CompareRow[] {
  const fallback = options.defaultMinEffect ?? DEFAULT_MIN_EFFECT;
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
          ...rowOf(baseRuntime, headRuntime),
          ratio: null,
          ci95: null,
          noise_floor: null,
          min_effect: fallback,
          min_effect_source: "default",
          verdict: "not comparable",
          // No machine is shared, so any BASE result and any HEAD result differ in it.
          reason: environmentDifference(baseRuntime[0]!.doc, headRuntime[0]!.doc)!,
        });
        continue;
      }
      for (const machine of shared) {
        const b = baseByMachine.get(machine)!;
        const h = headByMachine.get(machine)!;
        const effect = minimumEffect(spreads, b[0]!, h[0]!, fallback);
        const change = measureChange(b, h, effect.min_effect);
        rows.push({ ...rowOf(b, h), ratio: change.ratio, ci95: change.ci95, ...effect, verdict: change.verdict });
      }
    }
  }
  return rows;
}
