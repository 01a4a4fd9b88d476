/**
 * The threshold each series can detect, shown beside its trend and its compare rows: the smallest
 * change between two of its runs that stands out of its own run-to-run noise at 95 % confidence.
 * It is compare's noise floor of the series against itself (src/compare/noise.ts), so the site
 * states the very threshold `compare` and `regressions` hold the series to. No Node imports: the
 * build uses it and the browser bundle may.
 */
import { formatPercent } from "../compare/format.ts";
import { MIN_HISTORY_RUNS, noiseFloor, runToRunSpread } from "../compare/noise.ts";
import { groupBy, measurementsOf } from "../compare/series-key.ts";
import type { ResultDocument } from "../results/types.ts";

/**
 * Per metric, for the results of one series of one runtime on one machine (every version, one
 * scenario version): the smallest change it confirms at 95 %, or null while it has fewer runs than
 * a noise floor needs (MIN_HISTORY_RUNS).
 */
export function detectableChanges(docs: readonly ResultDocument[]): Record<string, number | null> {
  const byMetric = groupBy(measurementsOf(docs), (m) => m.metric);
  return Object.fromEntries(
    [...byMetric].map(([metric, runs]) => {
      const spread = runToRunSpread(runs);
      return [metric, spread === null ? null : noiseFloor(spread)];
    }),
  );
}

/** How a page states a threshold: `≥ 3.2 %`, or the runs it still lacks. */
export function detectableLabel(threshold: number | null): string {
  return threshold === null ? `needs ${MIN_HISTORY_RUNS} runs` : `≥ ${formatPercent(threshold)}`;
}

/** What the label means, for its tooltip. */
export const DETECTABLE_HELP = `the smallest change between two runs of this series that stands out of its own run-to-run noise at 95 % confidence (a series needs ${MIN_HISTORY_RUNS} runs to tell)`;
