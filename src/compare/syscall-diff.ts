/**
 * The explanation of a change in a count: which system calls changed most between BASE and HEAD,
 * per unit of work (`+1 statx per start`, `−2.0 write per request`). Every counted result keeps its
 * calls by name and counted run in `details.syscall_counts` (src/tools/strace.ts, SyscallProfile);
 * `compare`, the site's compare page and a finding show these lines beside the rows of a cell.
 * Imported by the site's browser bundle: no Node imports.
 */
import { paramsSlug } from "../core/params.ts";
import { escapeMarkdown } from "../core/markup.ts";
import type { ResultDocument } from "../results/types.ts";
import { median, stddev } from "../stats/summary.ts";
import type { SyscallProfile } from "../tools/strace.ts";
import { cellLabel } from "./format.ts";
import { subjectLabel } from "./paired.ts";
import type { CompareRow } from "./types.ts";

/** One call's change between two sides, per unit: the medians of its counted runs on each side. */
export interface SyscallChange {
  readonly name: string;
  readonly base: number;
  readonly head: number;
  /** head − base. */
  readonly change: number;
  /** Every counted run of one side lies beyond every run of the other: not the runs' own spread. */
  readonly certain: boolean;
}

/** The calls that changed most in one cell, and what each figure is per. */
export interface SyscallDiff {
  readonly per: string;
  readonly changes: readonly SyscallChange[];
}

/** How many calls a diff names. */
export const DIFF_CALLS = 3;

const isProfile = (value: unknown): value is SyscallProfile =>
  typeof value === "object" && value !== null && typeof (value as SyscallProfile).per === "string" && typeof (value as SyscallProfile).calls === "object";

/** A result's calls by name, where it was counted. */
export function profileOf(doc: ResultDocument): SyscallProfile | null {
  const profile = doc.details?.syscall_counts;
  return isProfile(profile) ? profile : null;
}

/** Each call's figures over the side's results, its counted runs pooled (a call a result never made counts 0 in each of its runs). */
function pooled(profiles: readonly SyscallProfile[]): Map<string, number[]> {
  const names = new Set(profiles.flatMap((profile) => Object.keys(profile.calls)));
  const runsOf = (profile: SyscallProfile) => Math.max(1, ...Object.values(profile.calls).map((values) => values.length));
  return new Map([...names].map((name) => [name, profiles.flatMap((profile) => profile.calls[name] ?? Array.from({ length: runsOf(profile) }, () => 0))]));
}

/** Changes smaller than this per unit are the division's rounding, not a call. */
const NEGLIGIBLE = 0.005;

const variance = (values: readonly number[]) => stddev(values) ** 2;

/**
 * How far a change stands out of its runs' own spread: the change over its standard error (as
 * Welch's t has it), the error never below a tenth of a call (whole counts) or a thousandth (per
 * unit), so that a call every run of each side made equally often, and that changed, ranks first.
 */
function standing(base: readonly number[], head: readonly number[], change: number, whole: boolean): number {
  const floor = whole ? 0.1 : 0.001;
  return Math.abs(change) / Math.sqrt(variance(base) / base.length + variance(head) / head.length + floor ** 2);
}

/**
 * The calls (the program's work; the scheduling calls are left out, as from the totals) whose
 * median per unit changed most from BASE to HEAD, the ones that stand out most of their runs'
 * own spread first. Null when a side has no counted result or they count different units.
 */
export function syscallDiff(base: readonly ResultDocument[], head: readonly ResultDocument[], limit = DIFF_CALLS): SyscallDiff | null {
  const baseProfiles = base.map(profileOf).filter((p): p is SyscallProfile => p !== null);
  const headProfiles = head.map(profileOf).filter((p): p is SyscallProfile => p !== null);
  if (baseProfiles.length === 0 || headProfiles.length === 0) return null;
  const per = baseProfiles[0]!.per;
  if ([...baseProfiles, ...headProfiles].some((profile) => profile.per !== per)) return null;
  const before = pooled(baseProfiles);
  const after = pooled(headProfiles);
  const ranked: { change: SyscallChange; standing: number }[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    // A call one side never made: 0 in each of its runs.
    const b = before.get(name) ?? [0];
    const h = after.get(name) ?? [0];
    const change = median(h) - median(b);
    if (Math.abs(change) < NEGLIGIBLE) continue;
    const certain = Math.min(...h) > Math.max(...b) || Math.max(...h) < Math.min(...b);
    const whole = [...b, ...h].every(Number.isInteger);
    ranked.push({ change: { name, base: median(b), head: median(h), change, certain }, standing: standing(b, h, change, whole) });
  }
  ranked.sort((x, y) => y.standing - x.standing || x.change.name.localeCompare(y.change.name));
  return { per, changes: ranked.slice(0, limit).map(({ change }) => change) };
}

/** A change as a line's part: `+1 statx per start` (whole numbers where both sides count whole calls), `−0.25 accept4 per request`. */
export function formatSyscallChange(change: SyscallChange, per: string): string {
  const whole = [change.base, change.head].every(Number.isInteger);
  const size = Math.abs(change.change);
  const digits = whole ? 0 : size >= 0.1 ? 1 : 2;
  return `${change.change > 0 ? "+" : "−"}${size.toFixed(digits)} ${change.name} per ${per}`;
}

/** A diff as one line: its calls, a change within its runs' own spread so marked. */
export function formatSyscallDiff(diff: SyscallDiff): string {
  if (diff.changes.length === 0) return `no call changed per ${diff.per}`;
  return diff.changes.map((change) => `${formatSyscallChange(change, diff.per)}${change.certain ? "" : " (within its runs' spread)"}`).join(", ");
}

/** Metrics whose rows a diff explains: the totals of calls (`syscalls`, `path_syscalls`, `syscalls_per_request`...). */
export const explainsMetric = (metric: string): boolean => /(^|_)syscalls/.test(metric);

/** The `ok` results of one side a row was computed from: its cell, runtime version, machine and, for a paired row, subject. */
function sideOf(row: CompareRow, docs: readonly ResultDocument[], side: "base" | "head"): ResultDocument[] {
  const [runtime, version, runner, label] =
    side === "base" ? [row.base_runtime, row.base_version, row.base_runner, row.base_label] : [row.head_runtime, row.head_version, row.head_runner, row.head_label];
  const params = paramsSlug(row.params);
  return docs.filter(
    (doc) =>
      doc.status === "ok" &&
      doc.suite === row.suite &&
      doc.scenario === row.scenario &&
      doc.scenario_version === row.scenario_version &&
      doc.app === row.app &&
      paramsSlug(doc.params) === params &&
      doc.runtime.name === runtime &&
      doc.runtime.version === version &&
      doc.run.runner === runner &&
      (label === undefined || subjectLabel(doc) === label),
  );
}

/** Each row of a calls total with its diff, from the results the rows were computed from. */
export function rowDiffs(rows: readonly CompareRow[], base: readonly ResultDocument[], head: readonly ResultDocument[]): Map<CompareRow, SyscallDiff> {
  const diffs = new Map<CompareRow, SyscallDiff>();
  for (const row of rows) {
    if (!explainsMetric(row.metric)) continue;
    const diff = syscallDiff(sideOf(row, base, "base"), sideOf(row, head, "head"));
    if (diff !== null) diffs.set(row, diff);
  }
  return diffs;
}

/** A compare row, with the calls that changed most where it is a calls total (`compare --json`, the site's compare page). */
export type ExplainedRow = CompareRow & { readonly syscall_changes?: SyscallDiff };

export function explainRows(rows: readonly CompareRow[], base: readonly ResultDocument[], head: readonly ResultDocument[]): ExplainedRow[] {
  const diffs = rowDiffs(rows, base, head);
  return rows.map((row) => (diffs.has(row) ? { ...row, syscall_changes: diffs.get(row)! } : row));
}

/** A row's two sides, as the diff's line names them. */
const sides = (row: CompareRow) =>
  `${row.base_label ?? `${row.base_runtime}@${row.base_version}`} → ${row.head_label ?? `${row.head_runtime}@${row.head_version}`}`;

/** The diffs under a compare table: one line per row of a calls total (`--markdown`: a list). */
export function syscallDiffSection(diffs: ReadonlyMap<CompareRow, SyscallDiff>, markdown: boolean): string {
  if (diffs.size === 0) return "";
  const lines = [...diffs].map(([row, diff]) => {
    const line = `${cellLabel(row)} ${row.metric}, ${sides(row)}: ${formatSyscallDiff(diff)}`;
    return markdown ? `- ${escapeMarkdown(line)}` : `  ${line}`;
  });
  const title = "Calls that changed most, per cell (scheduling calls apart; docs/methodology.md, \"Counts\"):";
  return [markdown ? `**${title}**` : title, ...lines].join("\n");
}
