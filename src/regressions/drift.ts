import { noiseFloor, runToRunSpread } from "../compare/noise.ts";
import { groupBy, runtimeLabel, seriesKey, type Measurement } from "../compare/series-key.ts";
import { significantChange } from "../compare/verdict.ts";
import type { ResultDocument } from "../results/types.ts";
import { runRef } from "./series.ts";
import type { DriftedRun } from "./types.ts";

/** Earlier sentinel runs pooled as the level a new run is held against. */
export const SENTINEL_BASELINE_RUNS = 5;

/** The result of a run's pinned reference runtime: its spec (or name@version) is the run's `sentinel`. */
export function isSentinel(doc: ResultDocument): boolean {
  const sentinel = doc.run.sentinel;
  return typeof sentinel === "string" && (doc.runtime.spec === sentinel || runtimeLabel(doc) === sentinel);
}

/**
 * Runs whose sentinel moved: for every sentinel series (same runner, sentinel version, scenario,
 * metric), each run against its previous runs pooled, with the verdict rule of `compare` and the
 * series' noise floor as minimum effect (the default while the series is short). A run drifts when
 * any of its sentinel figures changed. Results are never rewritten, so this is computed where used.
 */
export function judgeDrift(measurements: readonly Measurement[], defaultMinEffect: number): DriftedRun[] {
  const sentinels = measurements.filter((m) => isSentinel(m.doc));
  const drifted = new Map<string, DriftedRun>();
  for (const runs of groupBy(sentinels, (m) => `${seriesKey(m)} ${m.doc.runtime.version}`).values()) {
    const ordered = [...runs].sort((a, b) => a.doc.run.started_at.localeCompare(b.doc.run.started_at));
    const spread = runToRunSpread(ordered);
    const minEffect = spread === null ? defaultMinEffect : noiseFloor(spread);
    ordered.forEach((run, i) => {
      if (i === 0) return;
      const change = significantChange(ordered.slice(Math.max(0, i - SENTINEL_BASELINE_RUNS), i), [run], minEffect);
      if (change === null) return;
      const { doc, metric } = run;
      const entry = drifted.get(runRef(run)) ?? {
        run_id: doc.run.id,
        runner: doc.run.runner,
        started_at: doc.run.started_at,
        sentinel: doc.run.sentinel!,
        moved: [],
      };
      entry.moved.push({ suite: doc.suite, scenario: doc.scenario, app: doc.app, params: { ...doc.params }, metric, ratio: change.ratio, ci95: change.ci95, min_effect: minEffect });
      drifted.set(runRef(run), entry);
    });
  }
  return [...drifted.values()].sort((a, b) => a.started_at.localeCompare(b.started_at));
}
