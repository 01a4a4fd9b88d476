import { formatInterval } from "../compare/verdict.ts";
import { describeDocumented } from "../core/known-changes.ts";
import { escapeMarkup } from "../core/markup.ts";
import { ID_PREFIX, releaseNotesAtomLinks } from "../regressions/feed-atom.ts";
import type { Finding } from "./detect.ts";
import { findingReleaseNotes, groupAnchor, groupLabel, groupSummary } from "./format.ts";
import { cellWithinGroup, type FindingGroup } from "./group.ts";
import { formatSyscallDiff } from "../compare/syscall-diff.ts";

/** The findings feed's file name, beside the Findings page. */
export const FINDINGS_ATOM_FILE = "findings.atom";
export const FINDINGS_PAGE = "findings.html";

/** What the site published beside a finding's cell: links its entry carries. */
export interface FindingAttachments {
  /** The reproduction archive, relative to the site. */
  readonly reproduction?: string;
  /** The folder of its CPU profiles, relative to the site. */
  readonly profiles?: string;
}

const value = (v: number) => String(Number(v.toPrecision(4)));

/** A cell's figures and ratio in a sentence, named by what tells it from the group's other cells. */
function cellText(group: FindingGroup, cell: Finding): string {
  const figures = cell.figures.map((f) => `${f.runtime} ${f.version}: ${value(f.median)} ${cell.unit} (95 % CI ${value(f.ci95[0])}–${value(f.ci95[1])})`).join("; ");
  const name = group.cells.length === 1 ? "" : `${cellWithinGroup(group, cell)}: ${cell.factor.toFixed(1)}× ${cell.direction}, `;
  return `${name}${figures}; ratio${cell.kind === "outlier" ? " to the nearest other" : ""} ${formatInterval(cell.ci95)} at 95 %.`;
}

/** The changes the runtime's team documented on a step's cell, as a sentence. */
const documentedText = (group: FindingGroup) => (group.documented ?? []).map((known) => ` Documented by the runtime's team: ${describeDocumented(known)} (${known.url}).`).join("");

/** One entry per cause: its id is the group's, so a cell joining or leaving the group updates the entry, never replaces it. */
function entry(group: FindingGroup, attached: FindingAttachments): string {
  const anchor = groupAnchor(group);
  const representative = group.cells.length === 1 ? "" : " The reproduction and profiles are of the first cell.";
  return [
    "  <entry>",
    `    <id>${ID_PREFIX}finding/${anchor}</id>`,
    `    <title>${escapeMarkup(`${groupLabel(group)}: ${groupSummary(group)}`)}</title>`,
    `    <updated>${escapeMarkup(group.updated)}</updated>`,
    `    <link rel="alternate" href="${escapeMarkup(`${FINDINGS_PAGE}#${anchor}`)}"/>`,
    ...(attached.reproduction ? [`    <link rel="related" title="reproduction" href="${escapeMarkup(attached.reproduction)}"/>`] : []),
    ...(attached.profiles ? [`    <link rel="related" title="CPU profiles" href="${escapeMarkup(attached.profiles)}"/>`] : []),
    ...releaseNotesAtomLinks(findingReleaseNotes(group.representative)),
    ...(group.documented ?? []).map((known) => `    <link rel="related" title="${escapeMarkup(`documented: ${known.source}`)}" href="${escapeMarkup(known.url)}"/>`),
    `    <category term="${group.kind}"/>`,
    `    <summary>${escapeMarkup(`${group.metric}, ${group.better} is better. ${group.cells.map((cell) => cellText(group, cell)).join(" ")}${representative}${group.representative.syscall_changes ? ` Calls of the first cell: ${formatSyscallDiff(group.representative.syscall_changes)}.` : ""}${documentedText(group)}`)}</summary>`,
    "  </entry>",
  ].join("\n");
}

/** Atom 1.0 of the findings, one entry per cause, newest first; an unchanged set keeps the feed's date. `attachments` are of a group's representative cell. */
export function findingsAtom(groups: readonly FindingGroup[], attachments: (cell: Finding) => FindingAttachments, generatedAt: string): string {
  const newestFirst = [...groups].sort((a, b) => b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id));
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${ID_PREFIX}findings</id>`,
    "  <title>runtime-bench: findings (a runtime far off the others, a release far off the one before), one per cause</title>",
    `  <updated>${newestFirst[0]?.updated ?? generatedAt}</updated>`,
    "  <author><name>runtime-bench</name></author>",
    `  <link rel="self" href="${FINDINGS_ATOM_FILE}"/>`,
    `  <link rel="alternate" href="${FINDINGS_PAGE}"/>`,
    ...newestFirst.map((group) => entry(group, attachments(group.representative))),
    "</feed>",
    "",
  ].join("\n");
}
