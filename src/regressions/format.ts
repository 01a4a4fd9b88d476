import { cellLabel, formatChange, formatPercent } from "../compare/format.ts";
import { formatInterval } from "../compare/verdict.ts";
import { describeDocumented } from "../core/known-changes.ts";
import { formatTable } from "../ui/table.ts";
import { count } from "../ui/words.ts";
import type { ChainedTrends } from "./chains.ts";
import { changesByRelease, headlineChanges, headlineText, ofKind, type ReleaseChanges } from "./by-release.ts";
import type { DriftedRun, MeasuredHalf, RegressionReport, SeriesChange, SeriesIdentity } from "./types.ts";

/** `bun startup/hello wall_ms on bench-x64-1` */
export function seriesLabel(series: SeriesIdentity): string {
  return `${series.runtime} ${cellLabel(series)} ${series.metric} on ${series.runner}`;
}

/** `+12.3 % (noise floor 2.8 %)`: a change and the minimum effect it beat. */
export function describeChange(change: SeriesChange): string {
  return `${formatChange(change.ratio)} (${change.min_effect_source} ${formatPercent(change.min_effect)})`;
}

export function describeDrift(run: DriftedRun): string {
  const moves = run.moved.map((m) => `${cellLabel(m)} ${m.metric} ${formatChange(m.ratio)}`).join(", ");
  return `run ${run.run_id} on ${run.runner}: sentinel ${run.sentinel} moved (${moves})`;
}

/** Whether other releases were published between a change's two versions: a step a sweep has not narrowed to one release. */
export function notNarrowed(change: SeriesChange): boolean {
  return (change.between?.releases ?? 0) > 0;
}

/** `20.10.0 → 20.15.1 +4.1 % [0.981, 1.104], inconclusive`: a measured half of a change's releases. */
function describeHalf(half: MeasuredHalf): string {
  const estimate = half.ratio === null ? "no estimate" : `${formatChange(half.ratio)}${half.ci95 === null ? "" : ` ${formatInterval(half.ci95)}`}`;
  return `${half.from_version} → ${half.to_version} ${estimate}, ${half.verdict}`;
}

/** `not narrowed to one release: 25 releases between (20.11.0 … 20.20.1)`, or null for adjacent or unknown releases. */
export function describeBetween(change: SeriesChange): string | null {
  const between = change.between;
  if (between === undefined || !notNarrowed(change)) return null;
  const span = between.releases === 1 ? between.first : `${between.first} … ${between.last}`;
  return `not narrowed to one release: ${count(between.releases, "release")} between (${span})`;
}

/** `version 1 of its scenario, since replaced by version 2: …`, or null for a change on its scenario's newest version. */
function describeReplaced(change: SeriesChange): string | null {
  if (change.replaced_by === undefined) return null;
  return `version ${change.scenario_version} of its scenario, since replaced by version ${change.replaced_by}: its series ends there, and a sweep narrows the newer version's steps`;
}

/**
 * Why a change not narrowed to one release stands on its wider pair: what its halves gave, where a
 * release between was measured beside both ends, or that none was, and whether its scenario has
 * changed since; null where it is narrowed or the releases between are unknown.
 */
export function describeWhyNotNarrowed(change: SeriesChange): string | null {
  if (describeBetween(change) === null) return null;
  const halves = change.halves === undefined ? "no release between measured beside both ends" : `neither half showed it alone (${change.halves.map(describeHalf).join("; ")})`;
  return [halves, describeReplaced(change)].filter((text) => text !== null).join("; ");
}

/**
 * `3 of them on a scenario's headline metric: 1 on a scenario version since replaced …; 2 on its
 * current version (…): 1 split at a release between …; 1 with no release between …`: what the
 * unnarrowed changes' count is made of.
 */
export function describeNotNarrowed(wide: readonly SeriesChange[]): string {
  const headline = wide.filter((c) => c.headline);
  const current = headline.filter((c) => c.replaced_by === undefined);
  const split = current.filter((c) => c.halves !== undefined).length;
  return `${headline.length} of them on a scenario's headline metric: ${headline.length - current.length} on a version of its scenario since replaced, whose steps no sweep narrows any more; ${current.length} on its current version (the steps a history sweep narrows): ${split} split at a release between measured beside both ends, neither half showing the change alone; ${current.length - split} with no release between measured beside both ends`;
}

function changeRow(change: SeriesChange): string[] {
  const between = [describeBetween(change), describeWhyNotNarrowed(change)].filter((text) => text !== null);
  return [
    change.status,
    change.kind,
    seriesLabel(change),
    `${change.from_version} → ${change.to_version}`,
    describeChange(change),
    formatInterval(change.ci95),
    [change.reason, ...between, ...(change.narrowed_from === undefined ? [] : [`narrowed from ${change.narrowed_from.join(", ")}`]), ...(change.documented ?? []).map((known) => `documented: ${describeDocumented(known)} ${known.url}`)].join("; "),
    change.release_notes?.changelog ?? "",
  ];
}

/** What `scripts/bench regressions` prints: the changes, the drifting runs, and optionally every series' noise floor. */
export function regressionsText(report: RegressionReport, withSeries: boolean): string {
  const confirmed = report.changes.filter((c) => c.status === "confirmed");
  const parts = [
    `${count(report.series.length, "series", "series")}, ${count(report.changes.length, "change")} (${confirmed.length} confirmed, ${report.changes.length - confirmed.length} unconfirmed), ${count(report.drifted_runs.length, "run")} with environment drift`,
  ];
  const adjacent = confirmed.filter((c) => c.between?.releases === 0).length;
  const wide = confirmed.filter(notNarrowed);
  if (adjacent + wide.length > 0) {
    parts[0] += `\nconfirmed: ${adjacent} between adjacent releases, ${wide.length} not narrowed to one release (others published between), ${describeNotNarrowed(wide)}`;
  }
  const releases = changesByRelease(confirmed.filter((c) => !notNarrowed(c)));
  if (releases.length > 0) {
    const releaseRow = (release: ReleaseChanges) => {
      const first = release.changes[0]!;
      const headline = headlineChanges(release).map(headlineText);
      return [`${first.channel === "canary" ? "canary " : ""}${first.runtime} ${first.from_version} → ${first.to_version}`, first.runner, String(ofKind(release.changes, "regression")), String(ofKind(release.changes, "improvement")), headline.length > 0 ? headline.join("; ") : "none"];
    };
    parts.push(`confirmed changes of one release, release by release (each change is in the table below):\n${formatTable(["release", "runner", "regressions", "improvements", "on a headline metric"], releases.map(releaseRow))}`);
  }
  if (report.changes.length > 0) {
    parts.push(formatTable(["status", "kind", "series", "versions", "change (min effect)", "interval", "why", "release notes"], report.changes.map(changeRow)));
  }
  if (report.drifted_runs.length > 0) parts.push(["environment drift:", ...report.drifted_runs.map((run) => `  ${describeDrift(run)}`)].join("\n"));
  if (withSeries) {
    const rows = report.series.map((s) => [
      seriesLabel(s),
      s.versions.length === 1 ? s.versions[0]! : `${s.versions.length}: ${s.versions[0]} … ${s.versions.at(-1)}`,
      String(s.runs),
      s.noise_floor === null ? "too little history" : formatPercent(s.noise_floor),
      s.outliers.join(" "),
    ]);
    parts.push(formatTable(["series", "versions", "runs", "noise floor", "outliers"], rows));
  }
  return parts.join("\n\n");
}

/** What `regressions --chains` prints: each chain's releases against its first, marking where the machine changed. */
export function chainsText(trends: ChainedTrends): string {
  if (trends.chains.length === 0) return "no chains: no two releases of a runtime were measured beside each other in one run";
  const rows = trends.chains.flatMap((chain) =>
    chain.points.map((point, i) => [
      i === 0 ? `${chain.runtime} ${cellLabel(chain)} ${chain.metric} on ${chain.runner}` : "",
      point.version,
      point.link === null ? "first" : formatChange(point.ratio),
      point.link === null ? "" : formatInterval(point.ci95),
      point.link === null ? "" : `${formatChange(point.link.ratio)} from ${point.link.from}`,
      point.link === null ? "" : `${point.link.machine.cpu_model} (${point.link.machine.fingerprint.slice(0, 8)})${point.machine_changed ? ": machine changed" : ""}`,
    ]),
  );
  return [
    `${count(trends.chains.length, "chain")}: each release against the first of its chain, the product of the paired ratios along it (95 % interval: the links' log half-widths combined as √Σh²)`,
    formatTable(["chain", "release", "vs first", "95 % CI", "its link", "link's machine"], rows),
  ].join("\n");
}
