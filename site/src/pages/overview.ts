import type { ReducedResult, OverviewData, OverviewGroup } from "../../../src/site/model.ts";
import { overviewCardPath, seriesLabel } from "../../../src/site/model.ts";
import { overviewCardCsv } from "../../../src/site/downloads.ts";
import { drawBars, type BarChartModel } from "../charts/bars.ts";
import { segmented, select } from "../controls.ts";
import { fetchJson } from "../data.ts";
import { byId, h, present } from "../dom.ts";
import { formatNumber } from "../../../src/ui/table.ts";
import { formatDate, formatDateTime, formatInterval, formatValue, metricLabel, metricTitle } from "../format.ts";
import { markChartDrawn, onWidthChange } from "../render.ts";
import { pageLink, readState, writeState, type PageState } from "../state.ts";
import { dataTable, downloadLinks, tableFallback } from "../table.ts";

type Card = OverviewData["scenarios"][number];

const DEFAULTS: PageState = { arch: "both", metric: "", suite: "" };

/** The app a figure was measured with, where its group joins apps that each run on one runtime. */
const appOf = (group: OverviewGroup, m: ReducedResult) => group.apps?.[m.runtime];

function describeFigure(m: ReducedResult, app: string | undefined, metric: string, unit: string, runner: string): string {
  const figure = m.values[metric];
  const value = figure ? `${formatValue(figure[0], unit)} (95 % CI ${formatInterval(figure[1], figure[2], unit)}, ${figure[3]} samples)` : m.status;
  return `${m.runtime} ${m.version}${app ? ` (${app})` : ""}: ${value}, ${runner}, ${formatDateTime(m.started_at)}`;
}

function chartModel(card: Card, metric: string, groups: readonly OverviewGroup[]): BarChartModel {
  const info = card.metrics[metric]!;
  return {
    metricLabel: metricLabel(metric),
    unit: info.unit,
    better: info.better,
    groups: groups.map((group) => ({
      title: group.testbed.arch,
      subtitle: `${group.testbed.runner} · ${group.testbed.kind === "local" ? "local machine" : group.testbed.kind}`,
      rows: group.figures.map((m) => ({
        runtime: m.runtime,
        version: m.version,
        detail: [appOf(group, m), formatDate(m.started_at), group.testbed.kind === "local" ? "local" : undefined].filter(Boolean).join(" · "),
        figure: m.values[metric] ?? null,
        status: m.status === "ok" && !m.values[metric] ? "failed" : m.status,
        local: group.testbed.kind === "local",
        description: describeFigure(m, appOf(group, m), metric, info.unit, group.testbed.runner),
      })),
    })),
  };
}

function fallbackTable(card: Card, metric: string, groups: readonly OverviewGroup[]): HTMLElement {
  const unit = card.metrics[metric]!.unit;
  const rows = groups.flatMap((group) => group.figures.map((m) => ({ group, m, figure: m.values[metric] })));
  // Stacked: in a card half the page wide, each row is a small card of labelled lines.
  return dataTable(
    [
      { title: "runtime", cell: (r) => h("span", {}, h("span", { class: `rt rt-${r.m.runtime}` }, r.m.runtime), ` ${r.m.version}${appOf(r.group, r.m) ? ` (${appOf(r.group, r.m)})` : ""}`) },
      { title: "machine", cell: (r) => `${r.group.testbed.arch}, ${r.group.testbed.runner} (${r.group.testbed.kind})` },
      { title: "date (UTC)", cell: (r) => formatDateTime(r.m.started_at).replace(" UTC", "") },
      { title: `median (${unit})`, numeric: true, cell: (r) => (r.figure ? formatNumber(r.figure[0]) : r.m.status) },
      { title: `95 % CI (${unit})`, numeric: true, cell: (r) => (r.figure ? `${formatNumber(r.figure[1])}–${formatNumber(r.figure[2])}` : "") },
      { title: "samples", numeric: true, cell: (r) => (r.figure ? String(r.figure[3]) : "") },
    ],
    rows,
    { stacked: true },
  );
}

/** Where a runtime's newest version of the series was measured on another machine of a group's runner: named, since its bar is an older version. */
function newerElsewhere(groups: readonly OverviewGroup[]): HTMLElement | null {
  const lines = groups
    .filter((g) => g.newer_elsewhere.length > 0)
    // A testbed's id is its runner and its fingerprint's first digits, as the trend page's picker names the machine.
    .map((g) => `Newer on other machines of ${g.testbed.runner}: ${g.newer_elsewhere.map((n) => `${n.runtime} ${n.version} (machine ${n.testbed.slice(g.testbed.runner.length + 1)})`).join(", ")}.`);
  if (lines.length === 0) return null;
  return h("p", { class: "newer-elsewhere" }, `${lines.join(" ")} Two machines' figures are never drawn side by side: the trend page has each machine's.`);
}

/** How many series a card's groups draw: one, or each joined app's. */
const seriesDrawn = (groups: readonly OverviewGroup[]) => Math.max(1, new Set(groups.flatMap((g) => Object.values(g.apps ?? {}))).size);

/** The series a card draws: its headline's, or, where a group joins each runtime's own app, those apps at its load point. */
function seriesCaption(card: Card, groups: readonly OverviewGroup[]): string {
  const apps = [...new Set(groups.flatMap((g) => Object.entries(g.apps ?? {}).map(([runtime, app]) => `${app} on ${runtime}`)))];
  return apps.length === 0 ? seriesLabel(card.headline) : [apps.join(", "), seriesLabel({ ...card.headline, app: null })].filter(Boolean).join(" · ");
}

/** The card's way to its trend page: one link, or, where the card joins each runtime's own app, one per app (a trend page draws one app's series). */
function trendLinks(groups: readonly OverviewGroup[], link: (app: string | null) => string, headlineApp: string | null): HTMLElement {
  const apps = [...new Set(groups.flatMap((g) => Object.values(g.apps ?? {})))];
  if (apps.length === 0) return h("a", { href: link(headlineApp) }, "Trend →");
  return h("span", { class: "trend-links" }, "Trends: ", ...apps.flatMap((app, i) => [i > 0 ? " · " : null, h("a", { href: link(app) }, app)]), " →");
}

function renderCard(card: Card, state: PageState): HTMLElement | null {
  const metric = state.metric && card.metrics[state.metric] ? state.metric : state.metric ? null : card.primary;
  if (!metric) return null;
  const groups = card.groups.filter((g) => state.arch === "both" || g.testbed.arch === state.arch);
  if (groups.length === 0) return null;
  const trendLink = (app: string | null) =>
    pageLink("scenario.html", {
      scenario: `${card.suite}/${card.scenario}`,
      app: app ?? "",
      params: card.headline.params,
      metric,
      arch: state.arch === "both" ? "" : state.arch!,
    });
  const series = seriesCaption(card, groups);
  const chartHolder = h("div", { class: "chart-body" });
  const figure = h(
    "figure",
    { class: "chart", "data-chart": "bars", "data-scenario": `${card.suite}/${card.scenario}`, "data-metric": metric },
    h("figcaption", {}, `${metricLabel(metric)} of the newest version of each runtime: median, and 95 % CI as a whisker${series ? ` · ${series}` : ""}${card.series_count > 1 ? ` (${seriesDrawn(groups)} of ${card.series_count} series on its trend page)` : ""}`),
    chartHolder,
  );
  const element = h(
    "section",
    { class: "card", id: `card-${card.suite}-${card.scenario}` },
    h("div", { class: "card-head" }, h("h3", {}, h("span", { class: "suite" }, `${card.suite} / `), card.scenario), trendLinks(groups, trendLink, card.headline.app)),
    card.description ? h("p", { class: "description" }, card.description) : null,
    figure,
    newerElsewhere(groups),
    h("div", { class: "chart-foot" }, downloadLinks(overviewCardPath(card.suite, card.scenario), () => overviewCardCsv(card))),
    tableFallback("Show as table", fallbackTable(card, metric, groups)),
  );
  onWidthChange(chartHolder, (width) => {
    chartHolder.replaceChildren(drawBars(chartModel(card, metric, groups), width));
    markChartDrawn(figure);
  });
  return element;
}

/**
 * What one run can say, where the site holds one version of each runtime (a first `scripts/bench`):
 * the runtimes side by side on one machine, which gaps its own spread backs, and where the rest is.
 */
function oneRunLead(data: OverviewData): HTMLElement | null {
  const figures = data.scenarios.flatMap((c) => c.groups.flatMap((g) => g.figures.map((f) => ({ testbed: g.testbed, figure: f }))));
  if (figures.length === 0 || data.most_versions > 1) return null;
  const versions = new Map<string, Set<string>>();
  for (const { figure } of figures) versions.set(figure.runtime, (versions.get(figure.runtime) ?? new Set()).add(figure.version));
  const machines = [...new Set(figures.map((f) => f.testbed.runner))].join(", ");
  const dates = figures.map((f) => f.figure.started_at).sort();
  const measured = [...versions].map(([runtime, v]) => `${runtime} ${[...v][0]}`).join(", ");
  return h(
    "div",
    { class: "note", id: "one-run" },
    h("p", {}, h("strong", {}, `One version of each runtime: ${measured}, on ${machines}, ${formatDate(dates[0]!)}${formatDate(dates[0]!) === formatDate(dates.at(-1)!) ? "" : ` to ${formatDate(dates.at(-1)!)}`}. `), "What one run can say: how the runtimes compare here, scenario by scenario. Each bar is a median and its whisker the 95 % interval; where two whiskers lie apart, the gap is larger than this run's own spread."),
    h("p", {}, h("a", { href: "findings.html" }, "Findings"), " lists the largest gaps, one per cause, each with a reproduction; ", h("a", { href: "compare.html" }, "Compare"), " judges every metric of two runtimes; a trend over releases needs several versions (", h("a", { href: "scenario.html" }, "Trends"), " says how)."),
  );
}

export async function overviewPage(): Promise<void> {
  const data = await fetchJson<OverviewData>("data/overview.json");
  const state = { ...DEFAULTS, ...readState() };
  const root = byId("overview");
  const controls = byId("overview-controls");
  const suites = [...new Set(data.scenarios.map((c) => c.suite))];
  const units = new Map(data.scenarios.flatMap((c) => Object.entries(c.metrics).map(([name, info]) => [name, info.unit] as const)));
  const metrics = [...units.keys()];
  const arches = [...new Set(data.scenarios.flatMap((c) => c.groups.map((g) => g.testbed.arch)))];

  const lead = oneRunLead(data);
  const render = () => {
    writeState(state, DEFAULTS);
    controls.replaceChildren(
      ...present(
      arches.length > 1 ? segmented("Architecture", "arch", [["both", "Both"], ...arches.map((a): [string, string] => [a, a])], state.arch!, (value) => update({ arch: value })) : null,
      select("Metric", "metric", [["", "Headline metric of each scenario"], ...metrics.map((m): [string, string] => [m, metricTitle(m, units.get(m)!)])], state.metric!, (value) => update({ metric: value })),
      suites.length > 1 ? select("Suite", "suite", [["", "All suites"], ...suites.map((s): [string, string] => [s, s])], state.suite!, (value) => update({ suite: value })) : null,
      ),
    );
    const cards: HTMLElement[] = [];
    for (const suite of suites) {
      if (state.suite && state.suite !== suite) continue;
      const rendered = data.scenarios.filter((c) => c.suite === suite).map((c) => renderCard(c, state)).filter((c): c is HTMLElement => c !== null);
      if (rendered.length > 0) cards.push(h("h2", { class: "suite-heading" }, suite), ...rendered);
    }
    root.replaceChildren(...present(lead), ...(cards.length > 0 ? cards : [h("p", { class: "empty" }, data.scenarios.length === 0 ? "No results yet: run scripts/bench, then build the site again." : "No scenario matches these filters.")]));
  };
  const update = (change: PageState) => {
    Object.assign(state, change);
    render();
  };
  render();
}
