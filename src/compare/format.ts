import { escapeMarkdown } from "../core/markup.ts";
import { paramsSlug } from "../core/params.ts";
import { formatNumber, formatTable } from "../ui/table.ts";
import type { CompareRow } from "./types.ts";

/** `+12.3 %` / `−4.0 %`: a ratio as a signed change. */
export function formatChange(ratio: number): string {
  const percent = (ratio - 1) * 100;
  return `${percent >= 0 ? "+" : "−"}${Math.abs(percent).toFixed(1)} %`;
}

export function formatInterval([low, high]: [number, number]): string {
  return `[${low.toFixed(3)}, ${high.toFixed(3)}]`;
}

export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

/** `startup/hello`, then app and load parameters when there are any. */
export function cellLabel(row: { suite: string; scenario: string; app: string | null; params: CompareRow["params"] }): string {
  return [`${row.suite}/${row.scenario}`, row.app, paramsSlug(row.params)].filter(Boolean).join(" ");
}

function columns(row: CompareRow): string[] {
  const side = (label: string | undefined, runtime: string, version: string, value: number, runs: number) =>
    `${label === undefined ? "" : `${label} `}${runtime}@${version} ${formatNumber(value)} ${row.unit}${runs > 1 ? ` (${runs} runs)` : ""}`;
  const minEffect = `${formatPercent(row.min_effect)} ${row.min_effect_source}`;
  return [
    cellLabel(row),
    row.metric,
    side(row.base_label, row.base_runtime, row.base_version, row.base_median, row.base_runs),
    side(row.head_label, row.head_runtime, row.head_version, row.head_median, row.head_runs),
    row.ratio === null ? "" : `${row.ratio.toFixed(3)}× (${formatChange(row.ratio)})`,
    row.ci95 === null ? "" : `${formatInterval(row.ci95)}${row.alpha === undefined ? "" : ` ${formatConfidence(row.alpha)}, ${row.pairs} pairs`}`,
    row.verdict === "not comparable" ? "" : minEffect,
    row.reason === undefined ? row.verdict : `${row.verdict}: ${row.reason}`,
  ];
}

/** `99.44 %`: the level of a paired interval judged at false-alarm rate `alpha`. */
export function formatConfidence(alpha: number): string {
  return `${((1 - alpha) * 100).toFixed(2)} %`;
}

const HEADER = ["scenario", "metric", "BASE", "HEAD", "HEAD/BASE", "95 % CI", "min effect", "verdict"];

export const VERDICT_RULE =
  "A verdict needs the 95 % interval of HEAD/BASE to exclude 1 and the change to exceed the min effect: the series' noise floor where " +
  "6 runs of history measure it, else the run-to-run shift of the suite on that kind of machine (or --min-effect). " +
  "A change within that shift is inconclusive, and so is a side with fewer than 2 trials.";

export const PAIRED_RULE =
  "Paired (two subjects of one run): trial k of HEAD with trial k of BASE; the interval is Student's t over the pairs' log ratios at " +
  "the level of the look the run stopped at (0.08 % false alarms over all looks), and a verdict needs it to exclude 1 and the change to " +
  "exceed the min effect. No run-to-run shift or history is needed.";

const ruleOf = (rows: readonly CompareRow[]) => (rows.some((r) => r.pairs !== undefined) ? PAIRED_RULE : VERDICT_RULE);

export function compareTable(rows: readonly CompareRow[]): string {
  return `${formatTable(HEADER, rows.map(columns))}\n\n${ruleOf(rows)}`;
}

/** A GitHub-flavoured table for a job summary or a pull-request comment. */
export function compareMarkdown(rows: readonly CompareRow[]): string {
  const emphasis = (row: CompareRow, cells: string[]) => {
    const last = cells.length - 1;
    if (row.verdict === "faster" || row.verdict === "slower") cells[last] = `**${cells[last]}**`;
    return cells;
  };
  const lines = [
    `| ${HEADER.join(" | ")} |`,
    `| ${HEADER.map((_, i) => (i >= 4 && i <= 6 ? "---:" : "---")).join(" | ")} |`,
    ...rows.map((row) => `| ${emphasis(row, columns(row).map(escapeMarkdown)).join(" | ")} |`),
  ];
  const count = (verdict: CompareRow["verdict"]) => rows.filter((r) => r.verdict === verdict).length;
  const summary = (["slower", "faster", "inconclusive", "no significant change", "not comparable"] as const)
    .filter((verdict) => count(verdict) > 0)
    .map((verdict) => `${count(verdict)} ${verdict}`)
    .join(", ");
  return [`**HEAD against BASE**: ${summary}.`, "", ...lines, "", `<sub>${ruleOf(rows)}</sub>`].join("\n");
}
