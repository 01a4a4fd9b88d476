import { createHash } from "node:crypto";
import { cellLabel } from "../compare/format.ts";
import { describeDocumented } from "../core/known-changes.ts";
import { releaseNotes, type ReleaseNotes } from "../runtimes/catalog.ts";
import { formatNumber, formatTable } from "../ui/table.ts";
import type { Finding } from "./detect.ts";
import { cellWithinGroup, factorRange, groupFindings, type FindingGroup } from "./group.ts";

const figureText = (f: Finding["figures"][number], unit: string) => `${f.runtime}@${f.version} ${formatNumber(f.median)} ${unit}`;

/** Whom a cell's subject is measured against: the release before (a step), or the other runtimes (an outlier). */
function against(finding: Finding): string {
  return finding.kind === "step" ? `${finding.runtime}@${finding.from_version}` : finding.figures.slice(1).map((f) => `${f.runtime}@${f.version}`).join(", ");
}

/** What a finding says in one line: who is how far off, against what. */
export function findingSummary(finding: Finding): string {
  return `${finding.runtime}@${finding.version} ${finding.factor.toFixed(1)}× ${finding.direction} than ${against(finding)} (${figureText(finding.figures[0]!, finding.unit)})`;
}

/** The cells of a group in a few words: `workers/throughput worker-threads payload=bytes`. */
export function groupLabel(group: FindingGroup): string {
  return cellLabel({ ...group, params: group.shared });
}

/** What a group says in one line: who is how far off on how many cells, against what. */
export function groupSummary(group: FindingGroup): string {
  const { representative } = group;
  const cells = group.cells.length === 1 ? "" : ` on ${group.cells.length} cells`;
  return `${representative.runtime}@${representative.version} ${factorRange(group)} ${group.direction} than ${against(representative)}${cells}`;
}

/** Findings grouped by cause as a terminal table, largest first: one line per cause, then one per cell where it has several. */
export function findingsTable(findings: readonly Finding[]): string {
  const rows = groupFindings(findings).flatMap((group) => {
    const head = [group.kind, groupLabel(group), `${group.metric} (${group.better})`, `${factorRange(group)} ${group.direction}`, group.cells.length === 1 ? group.representative.figures.map((figure) => figureText(figure, group.unit)).join("; ") : `${group.cells.length} cells, largest first`, group.representative.runner];
    const documented = (group.documented ?? []).map((known) => ["", `  documented: ${describeDocumented(known)}`, "", "", known.url, ""]);
    if (group.cells.length === 1) return [head, ...documented];
    return [head, ...documented, ...group.cells.map((cell) => ["", `  ${cellWithinGroup(group, cell)}`, "", `${cell.factor.toFixed(1)}× ${cell.direction}`, cell.figures.map((figure) => figureText(figure, group.unit)).join("; "), cell.runner])];
  });
  return formatTable(["kind", "cell", "headline", "gap", "figures (subject first)", "runner"], rows);
}

const anchorOf = (id: string) => createHash("sha256").update(id).digest("hex").slice(0, 16);

/** A cell's stable anchor: the name of its reproduction and profile folder. */
export function findingAnchor(finding: Finding): string {
  return anchorOf(finding.id);
}

/** A group's stable anchor on the Findings page and in the feed: the same cause keeps it, whichever cells it has. */
export function groupAnchor(group: FindingGroup): string {
  return anchorOf(group.id);
}

/** For a step between releases: where its release notes and the commits of its range are. */
export function findingReleaseNotes(finding: Finding): ReleaseNotes | null {
  return finding.kind === "step" && finding.from_version !== undefined ? releaseNotes(finding.runtime, finding.from_version, finding.version) : null;
}
