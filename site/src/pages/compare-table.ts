/** The compare page's table: one row per comparison, its interval drawn on a log scale, its rule and confidence stated. */
import { PAIRED_RATIO, cellLabel, formatChange, formatConfidence, formatPercent, pairCount, verdictText } from "../../../src/compare/format.ts";
import { formatSyscallDiff, type ExplainedRow } from "../../../src/compare/syscall-diff.ts";
import type { CompareRow } from "../../../src/compare/types.ts";
import { DETECTABLE_HELP, detectableLabel } from "../../../src/site/detectable.ts";
import { formatNumber } from "../../../src/ui/table.ts";
import { offScale, ratioDomain, ratioGlyph } from "../charts/ratios.ts";
import { h } from "../dom.ts";
import { metricLabel } from "../format.ts";
import { dataTable } from "../table.ts";

/** The confidence of a row's interval: its paired level where it has one, else 95 %. */
export function confidenceOf(row: CompareRow): string {
  return row.alpha === undefined ? "95 %" : formatConfidence(row.alpha);
}

/** The changes the runtime's team documented between the two versions, each linked to its source. */
function documentedLinks(row: CompareRow): HTMLElement[] {
  return (row.documented ?? []).map((change) =>
    h("div", { class: "muted documented" }, "documented: ", h("a", { href: change.url, rel: "noopener" }, change.source), ` ${change.direction}${change.factor === null ? "" : ` ×${change.factor}`}`),
  );
}

function verdictCell(row: CompareRow): HTMLElement {
  const kind = row.verdict === "faster" ? "faster" : row.verdict === "slower" ? "slower" : "same";
  return h("span", { class: `verdict verdict-${kind}` }, verdictText(row));
}

/**
 * A pooled median; how many runs it pools shows on hover, and a long unit (`switches/start`) wraps
 * under its figure, to keep the table narrow enough for its verdicts.
 */
function pooled(median: number, unit: string, runs: number): HTMLElement {
  return h("span", { class: "pooled", title: `median of ${runs} run${runs === 1 ? "" : "s"}, samples pooled` }, h("span", {}, formatNumber(median)), " ", h("span", {}, unit));
}

function minEffectText(row: CompareRow): string {
  const source = row.min_effect_source === "noise floor" ? "noise" : row.min_effect_source === "run-to-run shift" ? "shift" : row.min_effect_source;
  return `${formatPercent(row.min_effect)} ${source}`;
}

/** A load point (`connections=10,keepalive=true,…`) is one long word: it may wrap after each comma. */
function breakable(text: string): HTMLElement {
  const parts = text.split(",");
  return h("span", {}, ...parts.flatMap((part, i) => (i < parts.length - 1 ? [`${part},`, h("wbr")] : [part])));
}

/** An interval's end as the CLI prints it, except at the extremes, which fixed decimals would spell out in twenty digits. */
const intervalEnd = (value: number) => (value !== 0 && (Math.abs(value) >= 1e4 || Math.abs(value) < 1e-3) ? value.toExponential(2) : value.toFixed(3));

const MODERATED_HELP = "degrees of freedom of the interval: its own pairs' and those lent by the other cells of its metric or suite in this run, whose spreads moderate its own (docs/paired-verdicts.md)";

/** The ratio, then its interval with the confidence and the rule that judged it, and what of it the log scale cannot draw. */
function intervalCell(row: CompareRow, span: number): HTMLElement {
  const pairs = pairCount(row);
  // On a line of its own, short: the interval column stays within a 1,280 px screen.
  const moderated = row.df === undefined || row.moderated_over === undefined ? null : h("div", { class: "muted", title: MODERATED_HELP }, `${row.df.toFixed(1)} df, ${row.moderated_over} cells`);
  const why = offScale(row, span);
  return h(
    "span",
    {},
    row.ratio === null ? "" : h("span", row.pairs === undefined ? {} : { title: PAIRED_RATIO }, `×${row.ratio.toFixed(3)} (${formatChange(row.ratio)})`),
    row.ci95 ? h("div", { class: "muted" }, `[${intervalEnd(row.ci95[0])}, ${intervalEnd(row.ci95[1])}]`) : null,
    row.verdict === "not comparable" ? null : h("div", { class: "muted rule" }, `${row.ci95 ? `${confidenceOf(row)}, ` : ""}${row.rule}${pairs}`),
    moderated,
    why ? h("div", { class: "muted off-scale-note" }, why) : null,
  );
}

/** Every comparison as a table row, with its interval drawn on a log scale shared by all rows. */
export function rowsTable(rows: readonly ExplainedRow[]): HTMLElement {
  const span = ratioDomain(rows);
  return dataTable(
    [
      { title: "scenario", cell: (r) => breakable(cellLabel(r)) },
      { title: "metric", cell: (r) => metricLabel(r.metric) },
      { title: "base", numeric: true, cell: (r) => pooled(r.base_median, r.unit, r.base_runs) },
      { title: "head", numeric: true, cell: (r) => pooled(r.head_median, r.unit, r.head_runs) },
      // The interval under its ratio, in one column: the verdict stays in view at 1,280 px.
      { title: "head / base, interval, rule", numeric: true, cell: (r) => intervalCell(r, span) },
      { title: "×1", cell: (r) => ratioGlyph(r, span) },
      { title: "series detects", numeric: true, cell: (r) => h("span", { class: "detectable", title: DETECTABLE_HELP.replace("this series", "these series") }, detectableLabel(r.noise_floor)) },
      // The minimum effect sits under the verdict it decides, not in a column of its own: the verdict stays in view at 1,280 px.
      { title: "verdict, min. effect", cell: (r) => h("span", {}, verdictCell(r), h("div", { class: "muted" }, `min. effect ${minEffectText(r)}`), r.reason ? h("div", { class: "muted" }, r.reason) : null, r.syscall_changes ? h("div", { class: "muted" }, `calls: ${formatSyscallDiff(r.syscall_changes)}`) : null, ...documentedLinks(r)) },
    ],
    rows,
    { stacked: true },
  );
}

const CSV_COLUMNS = ["suite", "scenario", "scenario_version", "app", "params", "metric", "unit", "better", "base_runtime", "base_version", "head_runtime", "head_version", "base_runner", "base_runs", "head_runs", "base_median", "head_median", "ratio", "ci95_low", "ci95_high", "confidence", "rule", "pairs", "noise_floor", "min_effect", "min_effect_source", "verdict", "reason"] as const;

export function rowsCsv(rows: readonly CompareRow[]): string {
  const field = (value: unknown) => {
    const text = value === null || value === undefined ? "" : typeof value === "object" ? Object.entries(value).map(([k, v]) => `${k}=${String(v)}`).join(",") : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = rows.map((r) => {
    const flat: Record<string, unknown> = { ...r, ci95_low: r.ci95?.[0] ?? null, ci95_high: r.ci95?.[1] ?? null, confidence: confidenceOf(r), rule: r.rule };
    return CSV_COLUMNS.map((c) => field(flat[c])).join(",");
  });
  return `${[CSV_COLUMNS.join(","), ...lines].join("\r\n")}\r\n`;
}

/** Rows in reading order: by cell, then metric. */
export function inReadingOrder<Row extends CompareRow>(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => cellLabel(a).localeCompare(cellLabel(b), "en", { numeric: true }) || a.metric.localeCompare(b.metric));
}
