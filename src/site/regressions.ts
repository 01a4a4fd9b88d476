import { existsSync } from "node:fs";
import { join } from "node:path";
import { readDerivedFile } from "../core/json-file.ts";
import { formatChange, formatPercent } from "../compare/format.ts";
import { formatInterval } from "../compare/verdict.ts";
import { changesByRelease, headlineChanges, kindCounts, ofKind, type ReleaseChanges } from "../regressions/by-release.ts";
import { FEED_ATOM_FILE, changeAnchor } from "../regressions/feed-atom.ts";
import { describeBetween, describeWhyNotNarrowed, describeNotNarrowed, notNarrowed } from "../regressions/format.ts";
import { FEED_JSON_FILE } from "../regressions/feed-json.ts";
import { REGRESSIONS_SCHEMA_ID, type RegressionReport, type SeriesChange } from "../regressions/types.ts";
import { paramsSlug } from "../core/params.ts";
import { releaseNotes, type ReleaseNotes } from "../runtimes/catalog.ts";
import { html, type SafeHtml } from "./html.ts";
import { metricLabel } from "./labels.ts";

export interface RegressionsFeed {
  readonly report: RegressionReport;
  readonly jsonPath: string;
  /** The Atom file beside the report, when there is one: the site links it. */
  readonly atomPath: string | null;
}

/**
 * The feed `scripts/bench regressions --feed-dir DIR` writes, or null when none has been computed
 * there yet. It is derived from the results, so it lives beside data/, never in it.
 */
export function readFeed(feedDir: string): RegressionsFeed | null {
  const jsonPath = join(feedDir, FEED_JSON_FILE);
  const report = readDerivedFile<RegressionReport>(jsonPath, { id: REGRESSIONS_SCHEMA_ID, file: "regressions.schema.json" }, "scripts/bench regressions --feed-dir");
  if (report === null) return null;
  const atomPath = join(feedDir, FEED_ATOM_FILE);
  return { report, jsonPath, atomPath: existsSync(atomPath) ? atomPath : null };
}

/** The trend page of a series: its scenario, metric, machine, and app and load point where it has them. */
export function trendLink(cell: Pick<SeriesChange, "suite" | "scenario" | "metric" | "runner" | "app" | "params">): string {
  const query = new URLSearchParams({ scenario: `${cell.suite}/${cell.scenario}`, metric: cell.metric, runner: cell.runner });
  if (cell.app) query.set("app", cell.app);
  const params = paramsSlug(cell.params);
  if (params) query.set("params", params);
  return `scenario.html?${query.toString()}`;
}

/** Links to what changed between two releases of a runtime, where its catalog knows its repository. */
export function releaseNotesLinks(notes: ReleaseNotes | null): SafeHtml {
  return notes ? html`<a href="${notes.changelog}">release notes</a> · <a href="${notes.compare}">commits</a>` : html``;
}

/** The columns of a change table: a title, and the cell (numeric cells align right). */
const COLUMNS: readonly { title: string; numeric?: boolean; cell: (change: SeriesChange) => SafeHtml }[] = [
  {
    title: "change",
    cell: (c) =>
      html`<span class="verdict verdict-${c.kind}">${c.kind}</span>${c.channel === "canary" ? html` <span class="badge">canary, not yet released</span>` : ""}${c.status === "unconfirmed" ? html` <span class="badge">unconfirmed</span>` : ""}`,
  },
  {
    title: "runtime",
    cell: (c) => {
      const between = describeBetween(c);
      return html`<span class="rt rt-${c.runtime}">${c.runtime}</span> ${c.from_version} → ${c.to_version}${between === null ? "" : html`<div class="muted not-narrowed">${between}</div>`}`;
    },
  },
  {
    title: "scenario",
    cell: (c) => {
      // Spaces after the commas let a long load point wrap.
      const where = [c.app, paramsSlug(c.params).replaceAll(",", ", ")].filter(Boolean).join(" · ");
      return html`<a href="${trendLink(c)}">${c.suite}/${c.scenario}</a>${where ? html`<div class="muted">${where}</div>` : ""}`;
    },
  },
  { title: "metric", cell: (c) => html`${metricLabel(c.metric)} <span class="muted">(${c.unit}, ${c.better} is better)</span>` },
  // The interval under its change, the source under the minimum effect, the date under the runner: the table fits 1,280 px.
  { title: "change, 95 % CI", numeric: true, cell: (c) => html`${formatChange(c.ratio)}<div class="muted">${formatInterval(c.ci95)}</div>` },
  { title: "min. effect", numeric: true, cell: (c) => html`${formatPercent(c.min_effect)}<div class="muted">${c.min_effect_source}</div>` },
  { title: "what changed", cell: (c) => releaseNotesLinks(releaseNotes(c.runtime, c.from_version, c.to_version)) },
  { title: "runner, date", cell: (c) => html`${c.runner}<div class="muted">${c.updated.slice(0, 10)}</div>` },
  {
    title: "why",
    cell: (c) => {
      const why = describeWhyNotNarrowed(c);
      return html`${c.reason}${c.environment_drift ? html` <span class="badge">machine drifted</span>` : ""}${why === null ? "" : html`<div class="muted halves">${why}</div>`}`;
    },
  },
];

/** The columns a release's own table leaves to its heading: every row of it has the same. */
const RELEASE_HEADING_COLUMNS = new Set(["runtime", "what changed"]);

/**
 * A table of changes, each row anchored: the Atom feed's entries link to regressions.html#<anchor>.
 * A cell's content is one block, a labelled line when stacked. Under a release's heading, the
 * release's runtime, versions and notes are the heading's.
 */
function changeRows(changes: readonly SeriesChange[], underRelease = false): SafeHtml {
  const columns = underRelease ? COLUMNS.filter((c) => !RELEASE_HEADING_COLUMNS.has(c.title)) : COLUMNS;
  const row = (change: SeriesChange) =>
    html`<tr class="change-${change.kind}" id="${changeAnchor(change)}">${columns.map((c) => html`<td${c.numeric ? html` class="num"` : ""} data-label="${c.title}"><div>${c.cell(change)}</div></td>`)}</tr>`;
  return html`<div class="table-scroll"><table class="data stacked changes">
  <thead><tr>${columns.map((c) => html`<th scope="col"${c.numeric ? html` class="num"` : ""}>${c.title}</th>`)}</tr></thead>
  <tbody>${changes.map(row)}</tbody>
</table></div>`;
}

function changesTable(caption: string, changes: readonly SeriesChange[]): SafeHtml {
  if (changes.length === 0) return html``;
  return html`<section class="changes-block"><h2>${caption} <span class="count">${changes.length}</span></h2>
${changeRows(changes)}</section>`;
}

/** A release's changes on its scenarios' headline metrics, one line per scenario and kind, or `none`. */
function headlineCell(release: ReleaseChanges): SafeHtml {
  const lines = headlineChanges(release);
  if (lines.length === 0) return html`<span class="muted">none</span>`;
  const metric = (label: string) => label.charAt(0).toLowerCase() + label.slice(1);
  return html`${lines.map(({ kind, first, range }) => html`<div class="verdict-${kind}">${first.suite}/${first.scenario}, ${metric(metricLabel(first.metric))}: ${range}</div>`)}`;
}

/** The release's name as its heading and index row show it: runtime, versions, a canary's badge. */
function releaseName(first: SeriesChange): SafeHtml {
  return html`<span class="rt rt-${first.runtime}">${first.runtime}</span> ${first.from_version} → ${first.to_version}${first.channel === "canary" ? html` <span class="badge">canary, not yet released</span>` : ""}`;
}

/** Every release that made a confirmed change: an index (what each changed on its headline metrics), then each release's changes. */
function releasesSection(releases: readonly ReleaseChanges[]): SafeHtml {
  if (releases.length === 0) return html``;
  const changes = releases.reduce((sum, release) => sum + release.changes.length, 0);
  const indexRow = (release: ReleaseChanges) => {
    const first = release.changes[0]!;
    return html`<tr><td data-label="release"><div><a href="#${release.id}">${releaseName(first)}</a></div></td><td data-label="runner"><div>${first.runner}</div></td><td class="num" data-label="regressions"><div>${ofKind(release.changes, "regression")}</div></td><td class="num" data-label="improvements"><div>${ofKind(release.changes, "improvement")}</div></td><td data-label="on a headline metric"><div>${headlineCell(release)}</div></td><td data-label="what changed"><div>${releaseNotesLinks(releaseNotes(first.runtime, first.from_version, first.to_version))}</div></td></tr>`;
  };
  const section = (release: ReleaseChanges) => {
    const first = release.changes[0]!;
    const notes = releaseNotes(first.runtime, first.from_version, first.to_version);
    return html`<section class="release" id="${release.id}"><h3>${releaseName(first)} <span class="muted">on ${first.runner}</span> <span class="count">${kindCounts(release.changes)}</span></h3>
${notes ? html`<p class="muted">${releaseNotesLinks(notes)}</p>` : ""}
${changeRows(release.changes, true)}</section>`;
  };
  return html`<h2>Confirmed changes, release by release <span class="count">${changes}</span></h2>
<p>Each release beside the one before it, newest first, runtime by runtime: what it changed on its scenarios' headline metrics (the metric each scenario is judged on first) and how many changes it made in all. Under the table, each release's changes, its headline metrics first, then the largest.</p>
<div class="table-scroll"><table class="data stacked releases" id="releases">
  <thead><tr><th scope="col">release</th><th scope="col">runner</th><th scope="col" class="num">regressions</th><th scope="col" class="num">improvements</th><th scope="col">on a headline metric</th><th scope="col">what changed</th></tr></thead>
  <tbody>${releases.map(indexRow)}</tbody>
</table></div>
${releases.map(section)}`;
}

/** The regressions page's body: the feed's changes, newest first, or a note that there is no feed yet. */
export function regressionsBody(feed: RegressionsFeed | null): SafeHtml {
  if (!feed) {
    return html`<h1>Regressions</h1>
<p class="empty" id="no-feed">No regressions feed has been computed yet. <code>scripts/bench regressions</code> computes it from the results in <code>data/</code>; the next site build shows it here and links it as Atom.</p>`;
  }
  const { report } = feed;
  const newestFirst = [...report.changes].sort((a, b) => b.updated.localeCompare(a.updated));
  const confirmed = newestFirst.filter((c) => c.status === "confirmed");
  // A change no release shows alone is no release's step: the reader looking for the release to blame reads the releases.
  const wide = confirmed.filter(notNarrowed);
  const placed = confirmed.filter((c) => !notNarrowed(c));
  return html`<h1>Regressions</h1>
<p class="lede">Significant changes between consecutive versions of each series, as found by <code>scripts/bench regressions</code> on ${report.generated_at.slice(0, 10)}: the 95 % interval of the ratio excludes 1 and the change exceeds its minimum effect (the series' own noise floor; for a release measured beside the one before it in one run, the paired rule's; each row names its own). ${feed.atomPath ? html`<a class="feed" href="${FEED_ATOM_FILE}">Subscribe (Atom)</a>` : ""} <a href="${FEED_JSON_FILE}">JSON</a></p>
${wide.length > 0 ? html`<p id="not-narrowed">${wide.length} of the ${confirmed.length} confirmed changes lie between releases with others published between them, ${describeNotNarrowed(wide)}. A change no half shows alone may be spread over several releases, or one run's figure; docs/history.md in the repository says why each stands. They are listed apart, below the changes of one release; each row names the releases between, and says why the change stands there: what its halves gave, or that none was measured, and whether its scenario has changed since.</p>` : ""}
${report.changes.length === 0 ? html`<p class="empty">No significant change in ${report.series.length} series.</p>` : ""}
${releasesSection(changesByRelease(placed))}
${changesTable("Confirmed across several releases, not placed in one", wide)}
${changesTable("Unconfirmed changes", newestFirst.filter((c) => c.status === "unconfirmed"))}
${report.drifted_runs.length > 0 ? html`<h2>Runs measured while the machine drifted</h2><ul>${report.drifted_runs.map((run) => html`<li>${run.runner} run ${run.run_id} (${run.started_at.slice(0, 10)}): sentinel ${run.sentinel} moved in ${run.moved.length} series</li>`)}</ul>` : ""}`;
}
