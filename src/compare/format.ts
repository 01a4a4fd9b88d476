import { MAX_PRIOR_DF, MIN_PRIOR_CELLS } from "./moderated.ts";
import { ONE_OFF_FIRST_SHARE, SINGLE_LOOK_ALPHA } from "./sequential.ts";
import { describeDocumented } from "../core/known-changes.ts";
import { escapeMarkdown } from "../core/markup.ts";
import { paramsSlug } from "../core/params.ts";
import { formatNumber, formatTable } from "../ui/table.ts";
import type { CompareRow } from "./types.ts";
import { formatInterval } from "./verdict.ts";

/** `+12.3 %` / `−4.0 %`: a ratio as a signed change. */
export function formatChange(ratio: number): string {
  const percent = (ratio - 1) * 100;
  return `${percent >= 0 ? "+" : "−"}${Math.abs(percent).toFixed(1)} %`;
}

export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

/** A time or a rate: a unit whose change is a speed. */
const isSpeed = (unit: string) => /^(ns|µs|ms|s|min)$/.test(unit) || unit.endsWith("/s");

/**
 * A verdict in a reader's words. `faster` / `slower` are stored in the metric's own direction
 * whatever it measures; a peak memory or a count of calls that fell is not faster, but lower
 * (better).
 */
export function verdictText(row: Pick<CompareRow, "verdict" | "unit" | "better">): string {
  if ((row.verdict !== "faster" && row.verdict !== "slower") || isSpeed(row.unit)) return row.verdict;
  const improved = row.verdict === "faster";
  return `${improved === (row.better === "lower") ? "lower" : "higher"} (${improved ? "better" : "worse"})`;
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
    row.ci95 === null ? `(${ruleLabel(row)})` : `${formatInterval(row.ci95)} ${ruleLabel(row)}`,
    row.verdict === "not comparable" ? "" : minEffect,
    [row.reason === undefined ? verdictText(row) : `${verdictText(row)}: ${row.reason}`, ...(row.documented ?? []).map((change) => `documented: ${describeDocumented(change)} ${change.url}`)].join("; "),
  ];
}

/** `99.44 %`: the level of an interval judged at false-alarm rate `alpha`. */
export function formatConfidence(alpha: number): string {
  const percent = (1 - alpha) * 100;
  return `${Number.isInteger(percent) ? percent.toFixed(0) : percent.toFixed(2)} %`;
}

/** A paired row's pairs: `, 2 pairs`; nothing for a row of separate runs. */
export function pairCount(row: Pick<CompareRow, "pairs">): string {
  return row.pairs === undefined ? "" : `, ${row.pairs} pair${row.pairs === 1 ? "" : "s"}`;
}

/** A paired row's pairs, and the spread it borrowed where it did: `, 2 pairs`, `, 2 pairs, 7.4 df moderated over 40 cells`. */
function pairsLabel(row: Pick<CompareRow, "pairs" | "df" | "moderated_over">): string {
  const pairs = pairCount(row);
  return row.df === undefined || row.moderated_over === undefined ? pairs : `${pairs}, ${row.df.toFixed(1)} df moderated over ${row.moderated_over} cells`;
}

/** The rule a row was judged by and its interval's level: `95 % single look, 3 pairs`, `99.99 % sequential, 10 pairs`, `95 % separate runs`. */
export function ruleLabel(row: Pick<CompareRow, "rule" | "alpha" | "pairs" | "df" | "moderated_over">): string {
  return `${formatConfidence(row.alpha ?? 0.05)} ${row.rule}${pairsLabel(row)}`;
}

/** A rate as the rule texts give it: `4 %`, `0.5 %`. */
const percentOf = (fraction: number) => `${Number((fraction * 100).toPrecision(3))} %`;

const HEADER = ["scenario", "metric", "BASE", "HEAD", "HEAD/BASE", "interval", "min effect", "verdict"];

const OUTCOMES =
  "No significant change needs the whole interval within ±min effect; an interval that reaches beyond it is inconclusive, as is too little data. " +
  "Faster and slower are said of times and rates; a memory or a count is lower or higher, better or worse.";

/**
 * How many rows have each outcome, in the words of a summary line: a change for the worse or the
 * better (slower, or a memory higher), then the rest; `not comparable` only where there are some,
 * so "0 worse" is said as plainly as "3 worse".
 */
export function verdictCounts(rows: readonly Pick<CompareRow, "verdict">[]): string {
  const count = (verdict: CompareRow["verdict"]) => rows.filter((r) => r.verdict === verdict).length;
  const counts: [number, string][] = [
    [count("slower"), "worse"],
    [count("faster"), "better"],
    [count("inconclusive"), "inconclusive"],
    [count("no significant change"), "with no significant change"],
    [count("not comparable"), "not comparable"],
  ];
  return counts
    .filter(([n, words]) => n > 0 || words !== "not comparable")
    .map(([n, words]) => `${n} ${words}`)
    .join(", ");
}

/** What each rule does, for the notes under a table: CLI, job summaries and pull-request comments say the same. */
export const RULE_TEXT: Readonly<Record<CompareRow["rule"], string>> = {
  "separate runs":
    "Separate runs: a change needs the 95 % interval of HEAD/BASE (trial-clustered bootstrap, each side pooled over its runs) to exclude 1 " +
    "and the change to exceed the min effect: the series' noise floor where 6 runs of history measure it, else the run-to-run shift of the " +
    "suite on that kind of machine (or --min-effect). A change within that shift is inconclusive, and so is a side with fewer than 2 trials.",
  "single look":
    "Single look (two runtimes or labelled builds of one run, a one-off question): trial k of HEAD with trial k of BASE; Student's t " +
    "interval over the pairs' log ratios at 95 % (one comparison in twenty crosses it by chance), or, where runtimes side by side took " +
    "more trials because their first look left the headline undecided, at the share of that 5 % of the look they stopped at " +
    `(${percentOf(SINGLE_LOOK_ALPHA * ONE_OFF_FIRST_SHARE)} at the first, ${percentOf(SINGLE_LOOK_ALPHA * (1 - ONE_OFF_FIRST_SHARE))} at the second); a change needs it to exclude 1 and to ` +
    `exceed the min effect. No run-to-run shift or history is needed: the machine's state falls on both sides alike. Where ${MIN_PRIOR_CELLS} or more cells ` +
    "of the metric (else of the suite) in that run have a spread, each cell's spread is moderated by theirs (Smyth's empirical Bayes " +
    `moderated t; exact counts keep their own), and its interval has the degrees of freedom the fit lends (at most ${MAX_PRIOR_DF} more).`,
  sequential:
    "Sequential (a release beside its predecessor, a canary beside its release, as the release job and the feed judge them): trial k " +
    "with trial k, Student's t over the pairs at the level of the look the run stopped at (0.08 % false alarms over all its looks, so a " +
    "dozen releases of an unchanged series carry under 1 %); a change needs it to exclude 1 and to exceed the min effect.",
};

/** What a paired row's ratio is: the notes under a table and the Compare page's hover say it alike. */
export const PAIRED_RATIO =
  "A paired row's HEAD/BASE is the geometric mean of its pairs' ratios (trial k's median over trial k's), so it can differ from the ratio of the pooled medians in BASE and HEAD.";

/** The notes under a table: each rule its rows used, what a paired ratio is where there is one, then the three outcomes. */
export function rulesNote(rows: readonly CompareRow[]): string {
  const rules = (["sequential", "single look", "separate runs"] as const).filter((rule) => rows.some((r) => r.rule === rule));
  const paired = rules.some((rule) => rule !== "separate runs") ? [PAIRED_RATIO] : [];
  return [...rules.map((rule) => RULE_TEXT[rule]), ...paired, OUTCOMES].join("\n");
}

export function compareTable(rows: readonly CompareRow[]): string {
  return `${formatTable(HEADER, rows.map(columns))}\n\n${rulesNote(rows)}`;
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
  return [`**HEAD against BASE**: ${verdictCounts(rows)}.`, "", ...lines, "", ...rulesNote(rows).split("\n").map((line) => `<sub>${escapeMarkdown(line)}</sub><br>`)].join("\n");
}
