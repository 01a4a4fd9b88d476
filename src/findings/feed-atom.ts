import { cellLabel, formatInterval } from "../compare/format.ts";
import { escapeMarkup } from "../core/markup.ts";
import { ID_PREFIX, releaseNotesAtomLinks } from "../regressions/feed-atom.ts";
import type { Finding } from "./detect.ts";
import { formatSyscallDiff } from "../compare/syscall-diff.ts";
import { findingAnchor, findingReleaseNotes, findingSummary } from "./format.ts";

/** The findings feed's file name, beside the Findings page. */
export const FINDINGS_ATOM_FILE = "findings.atom";
export const FINDINGS_PAGE = "findings.html";

/** What the site published beside a finding: links its entry carries. */
export interface FindingAttachments {
  /** The reproduction archive, relative to the site. */
  readonly reproduction?: string;
  /** The folder of its CPU profiles, relative to the site. */
  readonly profiles?: string;
}

function entry(finding: Finding, attached: FindingAttachments): string {
  const anchor = findingAnchor(finding);
  const value = (v: number) => String(Number(v.toPrecision(4)));
  const figures = finding.figures.map((f) => `${f.runtime} ${f.version}: ${value(f.median)} ${finding.unit} (95 % CI ${value(f.ci95[0])}–${value(f.ci95[1])})`).join("; ");
  return [
    "  <entry>",
    `    <id>${ID_PREFIX}finding/${anchor}</id>`,
    `    <title>${escapeMarkup(`${cellLabel(finding)}: ${findingSummary(finding)}`)}</title>`,
    `    <updated>${escapeMarkup(finding.updated)}</updated>`,
    `    <link rel="alternate" href="${escapeMarkup(`${FINDINGS_PAGE}#${anchor}`)}"/>`,
    ...(attached.reproduction ? [`    <link rel="related" title="reproduction" href="${escapeMarkup(attached.reproduction)}"/>`] : []),
    ...(attached.profiles ? [`    <link rel="related" title="CPU profiles" href="${escapeMarkup(attached.profiles)}"/>`] : []),
    ...releaseNotesAtomLinks(findingReleaseNotes(finding)),
    `    <category term="${finding.kind}"/>`,
    `    <summary>${escapeMarkup(`${finding.metric}, ${finding.better} is better: ${figures}. Ratio${finding.kind === "outlier" ? " to the nearest other" : ""} ${formatInterval(finding.ci95)} at 95 %.${finding.syscall_changes ? ` Calls: ${formatSyscallDiff(finding.syscall_changes)}.` : ""}`)}</summary>`,
    "  </entry>",
  ].join("\n");
}

/** Atom 1.0 of the findings, newest first; an unchanged set keeps the feed's date. */
export function findingsAtom(findings: readonly Finding[], attachments: (finding: Finding) => FindingAttachments, generatedAt: string): string {
  const newestFirst = [...findings].sort((a, b) => b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id));
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${ID_PREFIX}findings</id>`,
    "  <title>runtime-bench: findings (a runtime far off the others, a release far off the one before)</title>",
    `  <updated>${newestFirst[0]?.updated ?? generatedAt}</updated>`,
    "  <author><name>runtime-bench</name></author>",
    `  <link rel="self" href="${FINDINGS_ATOM_FILE}"/>`,
    `  <link rel="alternate" href="${FINDINGS_PAGE}"/>`,
    ...newestFirst.map((finding) => entry(finding, attachments(finding))),
    "</feed>",
    "",
  ].join("\n");
}
