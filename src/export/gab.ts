import semver from "semver";
import { aboveResolution, compareVersions, groupBy, measurementsOf, type Measurement } from "../compare/series-key.ts";
import type { Better, ResultDocument } from "../results/types.ts";
import { paramsSlug } from "../core/params.ts";
import { formatNumber } from "../ui/table.ts";

/**
 * One benchmark in github-action-benchmark's custom JSON input (tools `customBiggerIsBetter` and
 * `customSmallerIsBetter`): `name`, `unit` and `value` are required, `range` and `extra` are
 * free text shown in the chart's tooltip.
 */
export interface GabEntry {
  name: string;
  unit: string;
  value: number;
  range: string;
  extra: string;
}

/** The tool name github-action-benchmark expects for a direction. */
export function gabTool(better: Better): "customBiggerIsBetter" | "customSmallerIsBetter" {
  return better === "higher" ? "customBiggerIsBetter" : "customSmallerIsBetter";
}

/** `22.x`: a runtime's release line (its major version), so parallel lines (node 20 and 22) chart apart. */
export function versionLine(version: string): string {
  const major = semver.valid(version) ? semver.major(version) : null;
  return major === null ? version : `${major}.x`;
}

/**
 * `node 22.x · startup/hello · wall_ms · bench-x64-1`, with the app and load parameters after the
 * scenario and ` v2` after a scenario past its first version: everything that tells series apart.
 */
export function gabName({ doc, metric }: Measurement): string {
  const scenario = `${doc.suite}/${doc.scenario}${doc.scenario_version > 1 ? ` v${doc.scenario_version}` : ""}`;
  return [`${doc.runtime.name} ${versionLine(doc.runtime.version)}`, scenario, doc.app, paramsSlug(doc.params), metric, doc.run.runner]
    .filter((part): part is string => Boolean(part))
    .map(gabText)
    .join(" · ");
}

/**
 * github-action-benchmark prints names into its commit comment's Markdown and its chart page as
 * they are, escaping nothing: every character that could be markup there (`<`, `` ` ``, `|`, `@`,
 * `*`, `[`…) becomes `_`. The schema keeps versions and names to their shape; this covers the rest.
 */
export function gabText(text: string): string {
  return text.replace(/[^A-Za-z0-9 .,:;=/+x%-]/g, "_");
}

/**
 * A unit as github-action-benchmark prints it, unescaped, into its summary table and its alert
 * comment: letters (`µs`), digits, spaces and `.` `/` `%` `-` stay, anything else becomes `_`.
 * collect also holds every unit to the ones its suite declares.
 */
export function gabUnit(unit: string): string {
  return unit.replace(/[^\p{L}\p{N} ./%-]/gu, "_");
}

function entryOf(measurement: Measurement): GabEntry {
  const { doc, summary } = measurement;
  const [low, high] = summary.ci95;
  return {
    name: gabName(measurement),
    unit: gabUnit(summary.unit),
    value: summary.median,
    range: `± ${formatNumber((high - low) / 2)}`,
    extra: [
      `${doc.runtime.name} ${gabText(doc.runtime.version)} (sha256 ${doc.runtime.sha256.slice(0, 12)})`,
      `median ${formatNumber(summary.median)} ${gabUnit(summary.unit)}, 95 % CI [${formatNumber(low)}, ${formatNumber(high)}], n=${summary.samples.length}`,
      `run ${doc.run.id} on ${gabText(doc.run.runner)}`,
    ].join("\n"),
  };
}

/**
 * github-action-benchmark entries for the metrics of one direction. Each name is one point of one
 * series: where the results hold several versions of a line (or several runs), the newest version's
 * latest run stands for it, so no two entries share a name.
 */
export function gabEntries(docs: readonly ResultDocument[], better: Better): GabEntry[] {
  const measurements = measurementsOf(docs).filter((m) => m.summary.better === better && aboveResolution(m));
  const newest = (a: Measurement, b: Measurement) =>
    compareVersions(a.doc.runtime.version, b.doc.runtime.version) || a.doc.run.started_at.localeCompare(b.doc.run.started_at);
  return [...groupBy(measurements, gabName).values()]
    .map((group) => entryOf(group.reduce((best, m) => (newest(m, best) > 0 ? m : best))))
    .sort((a, b) => a.name.localeCompare(b.name));
}
