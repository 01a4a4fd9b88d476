import { createHash } from "node:crypto";
import { describeDocumented } from "../core/known-changes.ts";
import { escapeMarkup } from "../core/markup.ts";
import { cellLabel } from "../compare/format.ts";
import { formatInterval } from "../compare/verdict.ts";
import { releaseNotes, type ReleaseNotes } from "../runtimes/catalog.ts";
import { changesByRelease, headlineChanges, headlineText, kindCounts, type ReleaseChanges } from "./by-release.ts";
import { describeBetween, describeChange, describeWhyNotNarrowed, notNarrowed } from "./format.ts";
import type { RegressionReport, SeriesChange } from "./types.ts";

/** The feed's file name for feed readers. */
export const FEED_ATOM_FILE = "regressions.atom";

/** Where entries link to: the page listing the changes, relative to the feed unless absolute. */
export const DEFAULT_FEED_PAGE = "regressions.html";

export const ID_PREFIX = "tag:runtime-bench,2026:";

/** A change's stable anchor on the page: the same series and versions give the same row, run after run. */
export function changeAnchor(change: SeriesChange): string {
  return createHash("sha256").update(`${change.series} ${change.from_version} ${change.to_version}`).digest("hex").slice(0, 16);
}

/** An entry's links to the release notes and the commits of its range. */
export const releaseNotesAtomLinks = (notes: ReleaseNotes | null) =>
  notes
    ? [`    <link rel="related" title="release notes" href="${escapeMarkup(notes.changelog)}"/>`, `    <link rel="related" title="commits in the range" href="${escapeMarkup(notes.compare)}"/>`]
    : [];

/** How many of a release's changes its entry names, largest first (its headline metrics' before them): the page lists every one. */
const ENTRY_CHANGES = 5;

/** `node 22.5.0 → 22.6.0 on bench-x64-1: 1 regression, 0 improvements`; a canary's says so first. */
function releaseTitle(release: ReleaseChanges): string {
  const first = release.changes[0]!;
  return `${first.channel === "canary" ? "Canary " : ""}${first.runtime} ${first.from_version} → ${first.to_version} on ${first.runner}: ${kindCounts(release.changes)}`;
}

const newest = (changes: readonly SeriesChange[]) => changes.map((c) => c.updated).reduce((a, b) => (a > b ? a : b));

function entry(release: ReleaseChanges, page: string): string {
  const first = release.changes[0]!;
  // A release's changes have a section of the page; a wide link's are rows of one table, the first of them leading.
  const anchor = notNarrowed(first) ? changeAnchor(first) : release.id;
  const headline = headlineChanges(release).map(headlineText);
  const named = release.changes.slice(0, ENTRY_CHANGES).map((c) => `${cellLabel(c)} ${c.metric} ${c.kind} ${describeChange(c)} ${formatInterval(c.ci95)}: ${[c.reason, describeWhyNotNarrowed(c)].filter((text) => text !== null).join("; ")}`);
  const rest = release.changes.length - named.length;
  const documented = [...new Map(release.changes.flatMap((c) => c.documented ?? []).map((known) => [known.url, known])).values()];
  const summary = [
    `${kindCounts(release.changes)}${describeBetween(first) === null ? "" : `, ${describeBetween(first)}`}.`,
    headline.length > 0 ? `On a headline metric: ${headline.join("; ")}.` : "None on a scenario's headline metric.",
    `${rest > 0 ? `The largest ${named.length}` : "Each"}: ${named.join("; ")}${rest > 0 ? `; and ${rest} more on the page` : ""}.`,
    ...documented.map((known) => `Documented by the runtime's team: ${describeDocumented(known)} (${known.url}).`),
  ].join(" ");
  return [
    "  <entry>",
    `    <id>${ID_PREFIX}${release.id}</id>`,
    `    <title>${escapeMarkup(releaseTitle(release))}</title>`,
    `    <updated>${escapeMarkup(newest(release.changes))}</updated>`,
    `    <link rel="alternate" href="${escapeMarkup(`${page}#${anchor}`)}"/>`,
    ...releaseNotesAtomLinks(releaseNotes(first.runtime, first.from_version, first.to_version)),
    ...documented.map((known) => `    <link rel="related" title="${escapeMarkup(`documented: ${known.source}`)}" href="${escapeMarkup(known.url)}"/>`),
    ...[...new Set(release.changes.map((c) => c.kind))].map((kind) => `    <category term="${kind}"/>`),
    `    <summary>${escapeMarkup(summary)}</summary>`,
    "  </entry>",
  ].join("\n");
}

/**
 * Atom 1.0 for feed readers: one entry per release (or sweep link, or canary) with confirmed
 * changes, the most recently measured first, as the page groups them. Unconfirmed changes (newest
 * measurements, drifting runs) are not alerts, so they stay in the JSON feed only.
 */
export function regressionsAtom(report: RegressionReport, page: string = DEFAULT_FEED_PAGE): string {
  const confirmed = report.changes.filter((c) => c.status === "confirmed");
  // The newest entry dates the feed, so regenerating an unchanged feed does not look like news.
  const updated = confirmed.length > 0 ? newest(confirmed) : report.generated_at;
  const releases = changesByRelease(confirmed).sort((a, b) => newest(b.changes).localeCompare(newest(a.changes)));
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${ID_PREFIX}regressions</id>`,
    "  <title>runtime-bench: confirmed regressions and improvements</title>",
    `  <updated>${escapeMarkup(updated)}</updated>`,
    "  <author><name>runtime-bench</name></author>",
    `  <link rel="self" href="${FEED_ATOM_FILE}"/>`,
    `  <link rel="alternate" href="${escapeMarkup(page)}"/>`,
    ...releases.map((release) => entry(release, page)),
    "</feed>",
    "",
  ].join("\n");
}
