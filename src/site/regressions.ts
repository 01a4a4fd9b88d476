import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import { formatChange, formatInterval, formatPercent } from "../compare/format.ts";
import { FEED_ATOM_FILE, changeAnchor } from "../regressions/feed-atom.ts";
import { FEED_JSON_FILE } from "../regressions/feed-json.ts";
import { REGRESSIONS_SCHEMA_ID, type RegressionReport, type SeriesChange } from "../regressions/types.ts";
import { paramsSlug } from "../results/write.ts";
import { html, type SafeHtml } from "./html.ts";
import { metricLabel } from "./labels.ts";

export interface RegressionsFeed {
  readonly report: RegressionReport;
  /** The Atom file beside the report, when there is one: the site links it. */
  readonly atomPath: string | null;
}

/**
 * The feed `scripts/bench regressions --feed-dir DIR` writes, at the top of the data folder
 * (`--feed-dir data`), or null when none has been computed yet.
 */
export function readFeed(dataDir: string): RegressionsFeed | null {
  const jsonPath = join(dataDir, FEED_JSON_FILE);
  if (!existsSync(jsonPath)) return null;
  let report: RegressionReport;
  try {
    report = JSON.parse(readFileSync(jsonPath, "utf8")) as RegressionReport;
  } catch {
    throw new UserError(`${jsonPath}: not valid JSON (run scripts/bench regressions again)`);
  }
  if (report.schema !== REGRESSIONS_SCHEMA_ID) throw new UserError(`${jsonPath}: not a ${REGRESSIONS_SCHEMA_ID} feed`);
  const atomPath = join(dataDir, FEED_ATOM_FILE);
  return { report, atomPath: existsSync(atomPath) ? atomPath : null };
}

function scenarioLink(change: SeriesChange): string {
  const query = new URLSearchParams({ scenario: `${change.suite}/${change.scenario}`, metric: change.metric, runner: change.runner });
  if (change.app) query.set("app", change.app);
  const params = paramsSlug(change.params);
  if (params) query.set("params", params);
  return `scenario.html?${query.toString()}`;
}

function changeRow(change: SeriesChange): SafeHtml {
  const where = [change.app, paramsSlug(change.params)].filter(Boolean).join(" · ");
  // The Atom feed's entries link to regressions.html#<anchor>.
  return html`<tr class="change-${change.kind}" id="${changeAnchor(change)}">
  <td><span class="verdict verdict-${change.kind}">${change.kind}</span>${change.status === "unconfirmed" ? html` <span class="badge">unconfirmed</span>` : ""}</td>
  <td><span class="rt rt-${change.runtime}">${change.runtime}</span> ${change.from_version} → ${change.to_version}</td>
  <td><a href="${scenarioLink(change)}">${change.suite}/${change.scenario}</a>${where ? html`<div class="muted">${where}</div>` : ""}</td>
  <td>${metricLabel(change.metric)} <span class="muted">(${change.unit}, ${change.better} is better)</span></td>
  <td class="num">${formatChange(change.ratio)}</td>
  <td class="num">${formatInterval(change.ci95)}</td>
  <td class="num">${formatPercent(change.min_effect)} <span class="muted">${change.min_effect_source}</span></td>
  <td>${change.runner}</td>
  <td>${change.updated.slice(0, 10)}</td>
  <td class="reason">${change.reason}${change.environment_drift ? html` <span class="badge">machine drifted</span>` : ""}</td>
</tr>`;
}

function changesTable(caption: string, changes: readonly SeriesChange[]): SafeHtml {
  if (changes.length === 0) return html``;
  return html`<h2>${caption} <span class="count">${changes.length}</span></h2>
<div class="table-scroll"><table class="data changes">
  <thead><tr><th scope="col">change</th><th scope="col">runtime</th><th scope="col">scenario</th><th scope="col">metric</th><th scope="col">ratio</th><th scope="col">95 % CI</th><th scope="col">min. effect</th><th scope="col">runner</th><th scope="col">date</th><th scope="col">why</th></tr></thead>
  <tbody>${changes.map(changeRow)}</tbody>
</table></div>`;
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
  return html`<h1>Regressions</h1>
<p class="lede">Significant changes between consecutive versions of each series, as found by <code>scripts/bench regressions</code> on ${report.generated_at.slice(0, 10)}: the 95 % interval of the ratio excludes 1 and the change exceeds the series' own noise floor. ${feed.atomPath ? html`<a class="feed" href="${FEED_ATOM_FILE}">Subscribe (Atom)</a>` : ""} <a href="${FEED_JSON_FILE}">JSON</a></p>
${report.changes.length === 0 ? html`<p class="empty">No significant change in ${report.series.length} series.</p>` : ""}
${changesTable("Confirmed regressions", confirmed.filter((c) => c.kind === "regression"))}
${changesTable("Confirmed improvements", confirmed.filter((c) => c.kind === "improvement"))}
${changesTable("Unconfirmed changes", newestFirst.filter((c) => c.status === "unconfirmed"))}
${report.drifted_runs.length > 0 ? html`<h2>Runs measured while the machine drifted</h2><ul>${report.drifted_runs.map((run) => html`<li>${run.runner} run ${run.run_id} (${run.started_at.slice(0, 10)}): sentinel ${run.sentinel} moved in ${run.moved.length} series</li>`)}</ul>` : ""}`;
}
