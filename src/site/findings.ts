import { formatInterval } from "../compare/verdict.ts";
import { formatSyscallDiff } from "../compare/syscall-diff.ts";
import { paramsSlug } from "../core/params.ts";
import type { Finding } from "../findings/detect.ts";
import { findingAnchor, findingReleaseNotes, groupAnchor } from "../findings/format.ts";
import { DEFAULT_THRESHOLDS } from "../findings/detect.ts";
import { FINDINGS_ATOM_FILE } from "../findings/feed-atom.ts";
import { cellWithinGroup, factorRange, type FindingGroup } from "../findings/group.ts";
import type { RuntimeProfile } from "../findings/profile/run.ts";
import { html, type SafeHtml } from "./html.ts";
import { metricLabel } from "./labels.ts";
import { releaseNotesLinks, trendLink } from "./regressions.ts";

/** Where a cell's reproduction is offered for download, relative to the site. */
export const reproductionPath = (finding: Finding) => `findings/${findingAnchor(finding)}-repro.tar.gz`;
/** Where a cell's CPU profiles are published, relative to the site. */
export const profilesPath = (finding: Finding) => `findings/${findingAnchor(finding)}-profiles`;

const COLUMNS = ["#", "runtime", "scenario", "gap", "cells, largest first", "first cell: each runtime (median, 95 % CI)", "reproduce"];

/** Each runtime's top functions by self time side by side, and its profile files (they open in Chrome DevTools and speedscope). */
function profileRow(finding: Finding, profiles: readonly RuntimeProfile[]): SafeHtml {
  const SHOWN = 8;
  const column = (p: RuntimeProfile) =>
    html`<div><h4><span class="rt rt-${p.runtime}">${p.runtime}</span> ${p.version}</h4>${
      p.unavailable
        ? html`<p class="muted">${p.unavailable}</p>`
        : html`<ol>${p.top.slice(0, SHOWN).map((f) => html`<li><code>${f.name}</code> <span class="muted">${(f.share * 100).toFixed(1)} %</span></li>`)}</ol><p class="muted">${p.files.map((file, i) => html`<a href="${profilesPath(finding)}/${file}" download>profile ${i + 1}</a> `)}</p>`
    }</div>`;
  return html`<tr class="profile-row"><td colspan="${COLUMNS.length}"><details class="profiles"><summary>Where the time went in the first cell: the top functions by self time under <code>--cpu-prof</code></summary><div class="profile-grid">${profiles.map(column)}</div></details></td></tr>`;
}

const number = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3));

function figures(finding: Finding): SafeHtml {
  return html`<ul class="figures">${finding.figures.map(
    (f, i) => html`<li${i === 0 ? html` class="subject"` : ""}><span class="rt rt-${f.runtime}">${f.runtime}</span> ${f.version}: <strong>${number(f.median)}</strong> ${finding.unit} <span class="muted">[${number(f.ci95[0])}–${number(f.ci95[1])}]</span></li>`,
  )}</ul>`;
}

/** A load point (`batch=1,size=1024`) may wrap after each comma. */
const breakable = (text: string) => html`${text.split(",").map((part, i, parts) => (i < parts.length - 1 ? html`${part},<wbr>` : part))}`;

/** The group's cells, each with its gap, a link to its trend and its own reproduction: the others are one click away. */
function cellList(group: FindingGroup, reproductions: Reproductions): SafeHtml {
  const item = (cell: Finding, i: number) => {
    const repro = i > 0 && reproductions.written.has(findingAnchor(cell)) ? html` · <a href="${reproductionPath(cell)}" download title="the reproduction of this cell">repro</a>` : "";
    const interval = `ratio ${cell.kind === "outlier" ? "to the nearest other " : ""}${formatInterval(cell.ci95)} at 95 %`;
    return html`<li><a href="${trendLink(cell)}">${breakable(cellWithinGroup(group, cell))}</a> <span class="factor" title="${interval}">${cell.factor.toFixed(1)}×</span>${i === 0 ? html` <span class="muted">(first cell)</span>` : ""}${repro}</li>`;
  };
  return html`<ol class="cells">${group.cells.map(item)}</ol>`;
}

function row(group: FindingGroup, rank: number, reproductions: Reproductions, profiles: ReadonlyMap<string, readonly RuntimeProfile[]>): SafeHtml {
  const first = group.representative;
  const profiled = profiles.get(findingAnchor(first));
  const where = [group.app ?? "", paramsSlug(group.shared)].filter(Boolean);
  const runners = [...new Set(group.cells.map((c) => c.runner))].join(", ");
  const notes = findingReleaseNotes(first);
  const repro = reproductions.written.has(findingAnchor(first))
    ? html`<a href="${reproductionPath(first)}" download>reproduction</a>`
    : html`<span class="muted">${reproductions.missing.get(findingAnchor(first)) ?? "no reproduction for this suite yet"}</span>`;
  const cells = group.cells.length === 1 ? "one cell" : `${group.cells.length} cells`;
  // Each cell's content in one block: stacked on a phone, a row is a card of labelled lines.
  return html`<tr id="${groupAnchor(group)}">
  <td class="num" data-label="rank">${rank}</td>
  <td data-label="runtime"><div><span class="rt rt-${group.runtime}">${group.runtime}</span> ${group.kind === "step" ? `${first.from_version} → ` : ""}${first.version}<div class="muted">${group.kind === "outlier" ? "far off the others" : "step between releases"}</div></div></td>
  <td data-label="scenario"><div><a href="${trendLink(first)}">${group.suite}/${group.scenario}</a>${where.map((w) => html`<div class="muted">${breakable(w)}</div>`)}<div class="muted">on ${runners}</div></div></td>
  <td data-label="gap"><div><span class="verdict verdict-${group.direction}">${factorRange(group)} ${group.direction}</span><div class="muted">${metricLabel(group.metric)}, ${group.better} is better; ${cells}</div></div></td>
  <td data-label="cells">${cellList(group, reproductions)}</td>
  <td data-label="first cell"><div>${figures(first)}<div class="muted">ratio ${first.kind === "outlier" ? "to the nearest other " : ""}${formatInterval(first.ci95)}</div>${first.syscall_changes ? html`<div class="muted">calls: ${formatSyscallDiff(first.syscall_changes)}</div>` : ""}</div></td>
  <td data-label="reproduce"><div>${repro}${notes ? html`<div>${releaseNotesLinks(notes)}</div>` : ""}${(group.documented ?? []).map((known) => html`<div class="muted">documented: <a href="${known.url}" rel="noopener">${known.source}</a> ${known.direction}${known.factor === null ? "" : ` ×${known.factor}`}</div>`)}</div></td>
</tr>${profiled ? profileRow(first, profiled) : ""}`;
}

/** The reproductions a site build wrote, by cell anchor, and why each other cell has none. */
export interface Reproductions {
  readonly written: ReadonlySet<string>;
  readonly missing: ReadonlyMap<string, string>;
}

/** The Findings page: one row per cause, largest first; `profiles` holds the profiles published by cell anchor. */
export function findingsBody(groups: readonly FindingGroup[], reproductions: Reproductions, profiles: ReadonlyMap<string, readonly RuntimeProfile[]>): SafeHtml {
  return html`<h1>Findings</h1>
<p class="lede">Where one runtime is far off the others on the same scenario, app, load and machine (the best or the worst, ${DEFAULT_THRESHOLDS.outlierFactor}× or more from the geometric mean of the others on the scenario's headline metric, each runtime's newest version; the 95 % interval of its ratio to the nearest other excludes 1), and where a release is ${DEFAULT_THRESHOLDS.stepFactor}× or more off the one before it, the interval of their ratio excluding 1. One row per cause: the cells of one runtime on one scenario and app that are off the same way for the same reason (far off the others, or the same release) are listed together, largest first. The first cell comes with a standalone reproduction that runs with the plain runtime binary (<code>scripts/bench repro</code>) and, where profiled, where the time goes (<code>scripts/bench profile</code>); every other cell's reproduction is beside it. New findings are in the <a class="feed" href="${FINDINGS_ATOM_FILE}">Atom feed</a>.</p>
${
  groups.length === 0
    ? html`<p class="empty">No finding in the results published here.</p>`
    : html`<div class="table-scroll"><table class="data stacked findings">
  <thead><tr>${COLUMNS.map((t) => html`<th scope="col">${t}</th>`)}</tr></thead>
  <tbody>${groups.map((g, i) => row(g, i + 1, reproductions, profiles))}</tbody>
</table></div>`
}`;
}
