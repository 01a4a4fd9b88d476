import { createHash } from "node:crypto";
import { cellLabel } from "../compare/format.ts";
import { releaseNotes, type ReleaseNotes } from "../runtimes/catalog.ts";
import { formatNumber, formatTable } from "../ui/table.ts";
import type { Finding } from "./detect.ts";

const figureText = (f: Finding["figures"][number], unit: string) => `${f.runtime}@${f.version} ${formatNumber(f.median)} ${unit}`;

/** What a finding says in one line: who is how far off, against what. */
export function findingSummary(finding: Finding): string {
  const [subject, ...others] = finding.figures;
  const against = finding.kind === "step" ? `${finding.runtime}@${finding.from_version}` : others.map((f) => `${f.runtime}@${f.version}`).join(", ");
  return `${finding.runtime}@${finding.version} ${finding.factor.toFixed(1)}× ${finding.direction} than ${against} (${figureText(subject!, finding.unit)})`;
}

/** Findings as a terminal table, largest first. */
export function findingsTable(findings: readonly Finding[]): string {
  const rows = findings.map((f) => [
    f.kind,
    cellLabel(f),
    `${f.metric} (${f.better})`,
    `${f.factor.toFixed(1)}× ${f.direction}`,
    f.figures.map((figure) => figureText(figure, f.unit)).join("; "),
    f.runner,
  ]);
  return formatTable(["kind", "cell", "headline", "gap", "figures (subject first)", "runner"], rows);
}

/** A finding's stable anchor on the Findings page and in the feed. */
export function findingAnchor(finding: Finding): string {
  return createHash("sha256").update(finding.id).digest("hex").slice(0, 16);
}

/** For a step between releases: where its release notes and the commits of its range are. */
export function findingReleaseNotes(finding: Finding): ReleaseNotes | null {
  return finding.kind === "step" && finding.from_version !== undefined ? releaseNotes(finding.runtime, finding.from_version, finding.version) : null;
}
