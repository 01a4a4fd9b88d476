import { formatInterval } from "../compare/format.ts";
import { formatSyscallDiff } from "../compare/syscall-diff.ts";
import { paramsSlug } from "../core/params.ts";
import type { Finding } from "../findings/detect.ts";
import { findingAnchor, findingReleaseNotes } from "../findings/format.ts";
import { DEFAULT_THRESHOLDS } from "../findings/detect.ts";
import { FINDINGS_ATOM_FILE } from "../findings/feed-atom.ts";
import type { RuntimeProfile } from "../findings/profile/run.ts";
import { html, type SafeHtml } from "./html.ts";
import { metricLabel } from "./labels.ts";
import { releaseNotesLinks, trendLink } from "./regressions.ts";

/** Where a finding's reproduction is offered for download, relative to the site. */
export const reproductionPath = (finding: Finding) => `findings/${findingAnchor(finding)}-repro.tar.gz`;
/** Where a finding's CPU profiles are published, relative to the site. */
export const profilesPath = (finding: Finding) => `findings/${findingAnchor(finding)}-profiles`;

/** Each runtime's top functions by self time side by side, and its profile files (they open in Chrome DevTools and speedscope). */
function profileRow(finding: Finding, profiles: readonly RuntimeProfile[]): SafeHtml {
  const SHOWN = 8;
  const column = (p: RuntimeProfile) =>
    html`<div><h4><span class="rt rt-${p.runtime}">${p.runtime}</span> ${p.version}</h4>${
      p.unavailable
        ? html`<p class="muted">${p.unavailable}</p>`
        : html`<ol>${p.top.slice(0, SHOWN).map((f) => html`<li><code>${f.name}</code> <span class="muted">${(f.share * 100).toFixed(1)} %</span></li>`)}</ol><p class="muted">${p.files.map((file, i) => html`<a href="${profilesPath(finding)}/${file}" download>profile ${i + 1}</a> `)}</p>`
    }</div>`;
  return html`<tr class="profile-row"><td colspan="6"><details class="profiles"><summary>Where the time went: the top functions by self time under <code>--cpu-prof</code></summary><div class="profile-grid">${profiles.map(column)}</div></details></td></tr>`;
}

const number = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3));

function figures(finding: Finding): SafeHtml {
  return html`<ul class="figures">${finding.figures.map(
    (f, i) => html`<li${i === 0 ? html` class="subject"` : ""}><span class="rt rt-${f.runtime}">${f.runtime}</span> ${f.version}: <strong>${number(f.median)}</strong> ${finding.unit} <span class="muted">[${number(f.ci95[0])}–${number(f.ci95[1])}]</span></li>`,
  )}</ul>`;
}

function row(finding: Finding, rank: number, downloads: ReadonlySet<string>, profiles: ReadonlyMap<string, readonly RuntimeProfile[]>): SafeHtml {
  const profiled = profiles.get(findingAnchor(finding));
  // Spaces after the commas let a long load point wrap.
  const where = [finding.app, paramsSlug(finding.params).replaceAll(",", ", ")].filter(Boolean).join(" · ");
  const notes = findingReleaseNotes(finding);
  const repro = downloads.has(findingAnchor(finding)) ? html`<a href="${reproductionPath(finding)}" download>reproduction</a>` : html`<span class="muted">no reproduction for this suite yet</span>`;
  return html`<tr id="${findingAnchor(finding)}">
  <td class="num" data-label="rank">${rank}</td>
  <td data-label="runtime"><span class="rt rt-${finding.runtime}">${finding.runtime}</span> ${finding.kind === "step" ? `${finding.from_version} → ` : ""}${finding.version}<div class="muted">${finding.kind === "outlier" ? "far off the others" : "step between releases"}</div></td>
  <td data-label="scenario"><a href="${trendLink(finding)}">${finding.suite}/${finding.scenario}</a>${where ? html`<div class="muted">${where}</div>` : ""}<div class="muted">on ${finding.runner}</div></td>
  <td class="num" data-label="gap"><span class="verdict verdict-${finding.direction}">${finding.factor.toFixed(1)}× ${finding.direction}</span><div class="muted">${metricLabel(finding.metric)}, ${finding.better} is better; ratio ${finding.kind === "outlier" ? "to the nearest other " : ""}${formatInterval(finding.ci95)}</div></td>
  <td data-label="figures">${figures(finding)}${finding.syscall_changes ? html`<div class="muted">calls: ${formatSyscallDiff(finding.syscall_changes)}</div>` : ""}</td>
  <td data-label="reproduce">${repro}${notes ? html`<div>${releaseNotesLinks(notes)}</div>` : ""}</td>
</tr>${profiled ? profileRow(finding, profiled) : ""}`;
}

/**
 * The Findings page: what a runtime team would want to know, largest first. `downloads` holds the
 * anchors of the findings whose reproduction the build wrote, `profiles` the profiles published by anchor.
 */
export function findingsBody(findings: readonly Finding[], downloads: ReadonlySet<string>, profiles: ReadonlyMap<string, readonly RuntimeProfile[]>): SafeHtml {
  const titles = ["#", "runtime", "scenario", "gap", "each runtime (median, 95 % CI)", "reproduce"];
  return html`<h1>Findings</h1>
<p class="lede">Where one runtime is far off the others on the same scenario, app, load and machine (the best or the worst, ${DEFAULT_THRESHOLDS.outlierFactor}× or more from the geometric mean of the others on the scenario's headline metric, each runtime's newest version; the 95 % interval of its ratio to the nearest other excludes 1), and where a release is ${DEFAULT_THRESHOLDS.stepFactor}× or more off the one before it, the interval of their ratio excluding 1. Each comes with a standalone reproduction that runs with the plain runtime binary (<code>scripts/bench repro</code>), and <code>scripts/bench profile</code> shows where the time goes. New findings are in the <a class="feed" href="${FINDINGS_ATOM_FILE}">Atom feed</a>.</p>
${
  findings.length === 0
    ? html`<p class="empty">No finding in the results published here.</p>`
    : html`<div class="table-scroll"><table class="data stacked findings">
  <thead><tr>${titles.map((t) => html`<th scope="col">${t}</th>`)}</tr></thead>
  <tbody>${findings.map((f, i) => row(f, i + 1, downloads, profiles))}</tbody>
</table></div>`
}`;
}
