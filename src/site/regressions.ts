import { existsSync } from "node:fs";
import { join } from "node:path";
import { readDerivedFile } from "../core/json-file.ts";
import { formatChange, formatPercent } from "../compare/format.ts";
import { compareVersions, groupBy } from "../compare/series-key.ts";
import { formatInterval } from "../compare/verdict.ts";
import { FEED_ATOM_FILE, changeAnchor } from "../regressions/feed-atom.ts";
import { describeBetween, describeHalves, describeNotNarrowed, notNarrowed } from "../regressions/format.ts";
import { FEED_JSON_FILE } from "../regressions/feed-json.ts";
import { REGRESSIONS_SCHEMA_ID, type RegressionReport, type SeriesChange } from "../regressions/types.ts";
import { paramsSlug } from "../core/params.ts";
import { releaseNotes, type ReleaseNotes } from "../runtimes/catalog.ts";
import { count } from "../ui/words.ts";
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
      const halves = describeHalves(c);
      return html`${c.reason}${c.environment_drift ? html` <span class="badge">machine drifted</span>` : ""}${halves === null ? "" : html`<div class="muted halves">${halves}</div>`}`;
    },
  },
];

/** A table of changes, each row anchored: the Atom feed's entries link to regressions.html#<anchor>. A cell's content is one block, a labelled line when stacked. */
function changeRows(changes: readonly SeriesChange[]): SafeHtml {
  const row = (change: SeriesChange) =>
    html`<tr class="change-${change.kind}" id="${changeAnchor(change)}">${COLUMNS.map((c) => html`<td${c.numeric ? html` class="num"` : ""} data-label="${c.title}"><div>${c.cell(change)}</div></td>`)}</tr>`;
  return html`<div class="table-scroll"><table class="data stacked changes">
  <thead><tr>${COLUMNS.map((c) => html`<th scope="col"${c.numeric ? html` class="num"` : ""}>${c.title}</th>`)}</tr></thead>
  <tbody>${changes.map(row)}</tbody>
</table></div>`;
}

function changesTable(caption: string, changes: readonly SeriesChange[]): SafeHtml {
  if (changes.length === 0) return html``;
  return html`<section class="changes-block"><h2>${caption} <span class="count">${changes.length}</span></h2>
${changeRows(changes)}</section>`;
}

/** The confirmed changes of one release beside the one before it, on one runner: what a reader asks of a release, as Perfherder's alert summary groups a push's alerts. */
interface ReleaseChanges {
  readonly id: string;
  /** Its scenarios' headline metrics first, then the largest changes. */
  readonly changes: readonly SeriesChange[];
}

const releaseId = (c: SeriesChange) =>
  `release-${[c.runtime, c.from_version, c.to_version, c.runner, ...(c.channel ? [c.channel] : [])].join("-").replace(/[^A-Za-z0-9._-]/g, "-")}`;

/**
 * `changes` (newest first) by release: the runtimes in the order of their newest measurement, each
 * one's releases newest version first, so the release just measured leads and a history reads down
 * its versions.
 */
function byRelease(changes: readonly SeriesChange[]): ReleaseChanges[] {
  const runtimes = [...new Set(changes.map((c) => c.runtime))];
  const size = (c: SeriesChange) => Math.abs(Math.log(c.ratio));
  const releases = [...groupBy(changes, releaseId)].map(([id, held]) => ({ id, changes: [...held].sort((a, b) => Number(b.headline) - Number(a.headline) || size(b) - size(a)) }));
  return releases.sort((x, y) => {
    const [a, b] = [x.changes[0]!, y.changes[0]!];
    return runtimes.indexOf(a.runtime) - runtimes.indexOf(b.runtime) || compareVersions(b.to_version, a.to_version) || compareVersions(b.from_version, a.from_version) || x.id.localeCompare(y.id);
  });
}

/** `workers/throughput, throughput: +10.8 % to +17.3 % in 3 cells`: a release's changes of one kind on one scenario's headline metric. */
function headlineText(changes: readonly SeriesChange[]): string {
  const ratios = changes.map((c) => c.ratio).sort((a, b) => a - b);
  const range = ratios.length === 1 ? formatChange(ratios[0]!) : `${formatChange(ratios[0]!)} to ${formatChange(ratios.at(-1)!)} in ${ratios.length} cells`;
  const { suite, scenario, metric } = changes[0]!;
  const label = metricLabel(metric);
  return `${suite}/${scenario}, ${label.charAt(0).toLowerCase()}${label.slice(1)}: ${range}`;
}

/** A release's changes on its scenarios' headline metrics, one line per scenario and kind, or a dash where it changed none. */
function headlineChanges(release: ReleaseChanges): SafeHtml {
  const groups = new Map<string, SeriesChange[]>();
  for (const change of release.changes.filter((c) => c.headline)) {
    const key = `${change.suite}/${change.scenario} ${change.kind}`;
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  if (groups.size === 0) return html`<span class="muted">none</span>`;
  return html`${[...groups.values()].map((held) => html`<div class="verdict-${held[0]!.kind}">${headlineText(held)}</div>`)}`;
}

const kindCounts = (changes: readonly SeriesChange[]) =>
  (["regression", "improvement"] as const).map((kind) => count(changes.filter((c) => c.kind === kind).length, kind)).join(", ");

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
    return html`<tr><td data-label="release"><div><a href="#${release.id}">${releaseName(first)}</a></div></td><td data-label="runner"><div>${first.runner}</div></td><td class="num" data-label="regressions"><div>${release.changes.filter((c) => c.kind === "regression").length}</div></td><td class="num" data-label="improvements"><div>${release.changes.filter((c) => c.kind === "improvement").length}</div></td><td data-label="on a headline metric"><div>${headlineChanges(release)}</div></td><td data-label="what changed"><div>${releaseNotesLinks(releaseNotes(first.runtime, first.from_version, first.to_version))}</div></td></tr>`;
  };
  const section = (release: ReleaseChanges) => {
    const first = release.changes[0]!;
    return html`<section class="release" id="${release.id}"><h3>${releaseName(first)} <span class="muted">on ${first.runner}</span> <span class="count">${kindCounts(release.changes)}</span></h3>
${changeRows(release.changes)}</section>`;
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
  // A change no release shows alone is no release's step: the reader looking for the release to blame reads the first two tables.
  const wide = confirmed.filter(notNarrowed);
  const placed = confirmed.filter((c) => !notNarrowed(c));
  return html`<h1>Regressions</h1>
<p class="lede">Significant changes between consecutive versions of each series, as found by <code>scripts/bench regressions</code> on ${report.generated_at.slice(0, 10)}: the 95 % interval of the ratio excludes 1 and the change exceeds the series' own noise floor. ${feed.atomPath ? html`<a class="feed" href="${FEED_ATOM_FILE}">Subscribe (Atom)</a>` : ""} <a href="${FEED_JSON_FILE}">JSON</a></p>
${wide.length > 0 ? html`<p id="not-narrowed">${wide.length} of the ${confirmed.length} confirmed changes lie between releases with others published between them, ${describeNotNarrowed(wide)}. A change no half shows alone may be spread over several releases, or one run's figure; docs/history.md in the repository says why each stands. They are listed apart, below the changes of one release; each row names the releases between, and says why the change stands there: what its halves gave, or that none was measured.</p>` : ""}
${report.changes.length === 0 ? html`<p class="empty">No significant change in ${report.series.length} series.</p>` : ""}
${releasesSection(byRelease(placed))}
${changesTable("Confirmed across several releases, not placed in one", wide)}
${changesTable("Unconfirmed changes", newestFirst.filter((c) => c.status === "unconfirmed"))}
${report.drifted_runs.length > 0 ? html`<h2>Runs measured while the machine drifted</h2><ul>${report.drifted_runs.map((run) => html`<li>${run.runner} run ${run.run_id} (${run.started_at.slice(0, 10)}): sentinel ${run.sentinel} moved in ${run.moved.length} series</li>`)}</ul>` : ""}`;
}
