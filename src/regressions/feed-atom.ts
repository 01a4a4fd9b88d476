import { createHash } from "node:crypto";
import { describeDocumented } from "../core/known-changes.ts";
import { escapeMarkup } from "../core/markup.ts";
import { formatPercent } from "../compare/format.ts";
import { formatInterval } from "../compare/verdict.ts";
import { releaseNotes, type ReleaseNotes } from "../runtimes/catalog.ts";
import { describeBetween, describeChange, describeHalves, seriesLabel } from "./format.ts";
import type { RegressionReport, SeriesChange } from "./types.ts";

/** The feed's file name for feed readers. */
export const FEED_ATOM_FILE = "regressions.atom";

/** Where entries link to: the page listing the changes, relative to the feed unless absolute. */
export const DEFAULT_FEED_PAGE = "regressions.html";

export const ID_PREFIX = "tag:runtime-bench,2026:";

/** A change's stable anchor: the same series and versions give the same entry, run after run. */
export function changeAnchor(change: SeriesChange): string {
  return createHash("sha256").update(`${change.series} ${change.from_version} ${change.to_version}`).digest("hex").slice(0, 16);
}

/** An entry's links to the release notes and the commits of its range. */
export const releaseNotesAtomLinks = (notes: ReleaseNotes | null) =>
  notes
    ? [`    <link rel="related" title="release notes" href="${escapeMarkup(notes.changelog)}"/>`, `    <link rel="related" title="commits in the range" href="${escapeMarkup(notes.compare)}"/>`]
    : [];

function entry(change: SeriesChange, page: string): string {
  const anchor = changeAnchor(change);
  const kind = change.kind === "regression" ? "Regression" : "Improvement";
  const title = `${change.channel === "canary" ? `Canary ${kind.toLowerCase()}` : kind}: ${seriesLabel(change)} ${change.from_version} → ${change.to_version} ${describeChange(change)}`;
  const floor = change.noise_floor === null ? "too little history for a noise floor" : `noise floor ${formatPercent(change.noise_floor)}`;
  const documented = (change.documented ?? []).map((known) => ` Documented by the runtime's team: ${describeDocumented(known)} (${known.url}).`).join("");
  const between = [describeBetween(change), describeHalves(change)].filter((text) => text !== null);
  const summary = `${change.to_version} against ${change.from_version}: ratio ${change.ratio.toFixed(3)}, interval ${formatInterval(change.ci95)}, ${floor}. ${[change.reason, ...between].join("; ")}.${documented}`;
  return [
    "  <entry>",
    `    <id>${ID_PREFIX}change/${anchor}</id>`,
    `    <title>${escapeMarkup(title)}</title>`,
    `    <updated>${escapeMarkup(change.updated)}</updated>`,
    `    <link rel="alternate" href="${escapeMarkup(`${page}#${anchor}`)}"/>`,
    ...releaseNotesAtomLinks(releaseNotes(change.runtime, change.from_version, change.to_version)),
    ...(change.documented ?? []).map((known) => `    <link rel="related" title="${escapeMarkup(`documented: ${known.source}`)}" href="${escapeMarkup(known.url)}"/>`),
    `    <category term="${change.kind}"/>`,
    `    <summary>${escapeMarkup(summary)}</summary>`,
    "  </entry>",
  ].join("\n");
}

/**
 * Atom 1.0 for feed readers: one entry per confirmed change, newest first. Unconfirmed changes
 * (newest measurements, drifting runs) are not alerts, so they stay in the JSON feed only.
 */
export function regressionsAtom(report: RegressionReport, page: string = DEFAULT_FEED_PAGE): string {
  const confirmed = report.changes.filter((c) => c.status === "confirmed");
  // The newest entry dates the feed, so regenerating an unchanged feed does not look like news.
  const updated = confirmed.length > 0 ? confirmed.map((c) => c.updated).reduce((a, b) => (a > b ? a : b)) : report.generated_at;
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${ID_PREFIX}regressions</id>`,
    "  <title>runtime-bench: confirmed regressions and improvements</title>",
    `  <updated>${escapeMarkup(updated)}</updated>`,
    "  <author><name>runtime-bench</name></author>",
    `  <link rel="self" href="${FEED_ATOM_FILE}"/>`,
    `  <link rel="alternate" href="${escapeMarkup(page)}"/>`,
    ...confirmed.map((change) => entry(change, page)),
    "</feed>",
    "",
  ].join("\n");
}
