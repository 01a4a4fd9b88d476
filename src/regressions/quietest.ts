import { cellLabel, formatPercent } from "../compare/format.ts";
import { formatTable } from "../ui/table.ts";
import type { RegressionReport, SeriesChange, SeriesSummary } from "./types.ts";

/**
 * Units of metrics that measure what a cell is judged on, its speed: times and rates. Memory and
 * shares (success rate, efficiency, speed-up) answer other questions, however quiet they are.
 */
const NOT_SPEED = new Set(["MB", "fraction", "x"]);

/** A cell judged on the one of its speed metrics whose history is the least noisy. */
export interface QuietestJudgement {
  /** `node http/json native connections=10 on bench-x64-1`: a series without its metric. */
  readonly cell: string;
  readonly metric: string;
  readonly noise_floor: number;
  /** The cell's other speed metrics with their noise floors. */
  readonly noisier: Readonly<Record<string, number>>;
  /** The chosen metric's changes, as the report has them. */
  readonly changes: readonly SeriesChange[];
}

/**
 * Wall time, CPU time and instructions of one cell answer the same question; the one the machine's
 * noise moves least sees the smallest change. Each cell with two or more speed metrics whose noise
 * floor is known is judged on the quietest of them.
 */
export function judgeOnQuietest(report: RegressionReport): QuietestJudgement[] {
  const cells = new Map<string, SeriesSummary[]>();
  for (const series of report.series) {
    if (series.noise_floor === null || NOT_SPEED.has(series.unit)) continue;
    // A series key is its cell's key followed by the metric.
    const cell = series.series.slice(0, series.series.length - series.metric.length - 1);
    cells.set(cell, [...(cells.get(cell) ?? []), series]);
  }
  return [...cells.values()]
    .filter((series) => series.length > 1)
    .map((series) => {
      const [quietest, ...others] = [...series].sort((a, b) => a.noise_floor! - b.noise_floor! || a.metric.localeCompare(b.metric)) as [SeriesSummary, ...SeriesSummary[]];
      return {
        cell: `${quietest.runtime} ${cellLabel(quietest)} on ${quietest.runner}`,
        metric: quietest.metric,
        noise_floor: quietest.noise_floor!,
        noisier: Object.fromEntries(others.map((s) => [s.metric, s.noise_floor!])),
        changes: report.changes.filter((change) => change.series === quietest.series),
      };
    })
    .sort((a, b) => a.cell.localeCompare(b.cell));
}

/** One line per cell: the metric it is judged on, why, and what that metric says. */
export function quietestText(judgements: readonly QuietestJudgement[]): string {
  if (judgements.length === 0) return "no cell has two speed metrics with a known noise floor yet";
  const verdict = (changes: readonly SeriesChange[]) => {
    const latest = changes.at(-1);
    return latest ? `${latest.status} ${latest.kind} ${latest.from_version} → ${latest.to_version}` : "no change";
  };
  return formatTable(
    ["cell", "judged on", "noise floor", "noisier metrics", "verdict"],
    judgements.map((j) => [
      j.cell,
      j.metric,
      formatPercent(j.noise_floor),
      Object.entries(j.noisier).map(([metric, floor]) => `${metric} ${formatPercent(floor)}`).join(", "),
      verdict(j.changes),
    ]),
  );
}
