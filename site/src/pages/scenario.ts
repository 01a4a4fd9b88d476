import { SITE_RUNTIMES, machineLabel, scenarioTestbeds, trendPath, type CatalogData, type Measurement, type TestbedRef, type TrendData } from "../../../src/site/model.ts";
import { DETECTABLE_HELP, detectableLabel } from "../../../src/site/detectable.ts";
import { drawTrend, type TrendAxis, type TrendLine, type TrendModel, type TrendPoint } from "../charts/trend.ts";
import { segmented, select, type Option } from "../controls.ts";
import { fetchJson } from "../data.ts";
import { byId, h, present } from "../dom.ts";
import { betterText, formatDateTime, formatInterval, formatValue, metricLabel } from "../format.ts";
import { markChartDrawn, onWidthChange } from "../render.ts";
import { readState, writeState } from "../state.ts";
import { dataTable, downloadLinks, tableFallback } from "../table.ts";

type ScenarioEntry = CatalogData["scenarios"][number];

/** Everything a view of this page is: each field is a query parameter of its permalink. */
interface View {
  scenario: ScenarioEntry;
  testbed: TestbedRef;
  /** Testbeds with figures for the scenario, benchmark machines first. */
  testbeds: TestbedRef[];
  app: string | null;
  params: string;
  metric: string;
  axis: TrendAxis;
}

const scenarioId = (s: ScenarioEntry) => `${s.suite}/${s.scenario}`;
const appValue = (app: string | null) => app ?? "";

/** Reads a view from the query string, falling back field by field to what exists. */
function resolveView(query: Record<string, string>, catalog: CatalogData): View | null {
  const scenario = catalog.scenarios.find((s) => scenarioId(s) === query.scenario) ?? catalog.scenarios[0];
  if (!scenario) return null;
  const testbeds = scenarioTestbeds(catalog, scenario);
  // `runner` is a testbed id, or a runner's name (as the regressions feed links it).
  const asked = testbeds.find((t) => t.id === query.runner) ?? testbeds.find((t) => t.runner === query.runner);
  const arch = query.arch && testbeds.some((t) => t.arch === query.arch) ? query.arch : (asked ?? testbeds[0]!).arch;
  const testbed = asked && asked.arch === arch ? asked : testbeds.find((t) => t.arch === arch)!;
  const series = scenario.series.filter((s) => s.testbeds.includes(testbed.id));
  // Unless asked for, a view opens on a series with figures, not one where every result failed or is unsupported.
  const withFigures = series.filter((s) => s.measured.includes(testbed.id));
  const apps = [...new Set(series.map((s) => appValue(s.app)))];
  const app = query.app !== undefined && apps.includes(query.app) ? query.app : appValue((withFigures[0] ?? series[0]!).app);
  const loads = series.filter((s) => appValue(s.app) === app);
  const params =
    query.params !== undefined && loads.some((s) => s.params === query.params)
      ? query.params
      : (loads.find((s) => s.measured.includes(testbed.id)) ?? loads[0]!).params;
  const metric = query.metric && scenario.metrics[query.metric] ? query.metric : scenario.primary;
  return { scenario, testbed, testbeds, app: app === "" ? null : app, params, metric, axis: query.x === "date" ? "date" : "version" };
}

function writeView(view: View): void {
  const preferredOfArch = view.testbeds.find((t) => t.arch === view.testbed.arch);
  writeState({
    scenario: scenarioId(view.scenario),
    arch: view.testbed.arch,
    runner: preferredOfArch?.id === view.testbed.id ? "" : view.testbed.id,
    app: appValue(view.app),
    params: view.params,
    metric: view.metric,
    x: view.axis,
  }, { x: "version" });
}

/** The chart's lines: per runtime, one point per version (its newest ok result) or every run by date. */
function trendModel(trend: TrendData, view: View): TrendModel {
  const info = trend.metrics[view.metric]!;
  const lines: TrendLine[] = [];
  for (const runtime of SITE_RUNTIMES) {
    const results = trend.runtimes[runtime];
    if (!results) continue;
    const versions = [...new Set(results.map((r) => r.version))];
    const markerFor = (m: Measurement) => trend.changes.find((c) => c.runtime === runtime && c.version === m.version && c.metric === view.metric) ?? null;
    const points: TrendPoint[] = [];
    const failures: TrendLine["failures"] = [];
    if (view.axis === "version") {
      versions.forEach((version, index) => {
        const ofVersion = results.filter((r) => r.version === version);
        const newestOk = ofVersion.filter((r) => r.values[view.metric]).pop();
        if (newestOk) points.push({ x: index, figure: newestOk.values[view.metric]!, measurement: newestOk, marker: markerFor(newestOk) });
        else failures.push({ x: index, measurement: ofVersion[ofVersion.length - 1]! });
      });
    } else {
      const marked = new Set<string>();
      for (const r of [...results].sort((a, b) => a.started_at.localeCompare(b.started_at))) {
        const figure = r.values[view.metric];
        const time = Date.parse(r.started_at);
        if (!figure) {
          failures.push({ x: time, measurement: r });
          continue;
        }
        // A change is marked once, at the first run of the version it came in.
        const marker = marked.has(r.version) ? null : markerFor(r);
        if (marker) marked.add(r.version);
        points.push({ x: time, figure, measurement: r, marker });
      }
    }
    const detectable = trend.detectable[runtime]?.[view.metric] ?? null;
    if (points.length > 0 || failures.length > 0) lines.push({ runtime, versions, points, failures, detectable });
  }
  return { axis: view.axis, metricLabel: metricLabel(view.metric), unit: info.unit, better: info.better, testbed: trend.testbed, lines };
}

function legend(model: TrendModel): HTMLElement {
  const keys: (HTMLElement | null)[] = model.lines.map((l) =>
    h("span", { class: `key rt-${l.runtime}` }, h("span", { class: "swatch" }), l.runtime, " ", h("span", { class: "muted detectable", title: `${l.runtime}: ${DETECTABLE_HELP}` }, `detects ${detectableLabel(l.detectable)}`)),
  );
  const anyMarker = (kind: string) => model.lines.some((l) => l.points.some((p) => p.marker?.kind === kind));
  keys.push(
    h("span", { class: "key" }, h("span", { class: "band" }), "95 % confidence band"),
    anyMarker("regression") ? h("span", { class: "key" }, h("span", { class: "verdict-regression" }, "▲"), "regression detected") : null,
    anyMarker("improvement") ? h("span", { class: "key" }, h("span", { class: "verdict-improvement" }, "△"), "improvement detected") : null,
    model.lines.some((l) => l.failures.length > 0) ? h("span", { class: "key" }, "×", " failed or unsupported") : null,
  );
  return h("div", { class: "legend" }, ...keys);
}

function pointsTable(model: TrendModel): HTMLElement {
  const rows = model.lines.flatMap((line) => [
    ...line.points.map((p) => ({ runtime: line.runtime, m: p.measurement, figure: p.figure as TrendPoint["figure"] | null, marker: p.marker?.summary ?? "" })),
    ...line.failures.map((f) => ({ runtime: line.runtime, m: f.measurement, figure: null, marker: "" })),
  ]);
  return dataTable(
    [
      { title: "runtime", cell: (r) => h("span", { class: `rt rt-${r.runtime}` }, r.runtime) },
      { title: "version", cell: (r) => r.m.version },
      { title: "date", cell: (r) => formatDateTime(r.m.started_at) },
      { title: `median (${model.unit})`, numeric: true, cell: (r) => (r.figure ? formatValue(r.figure[0], model.unit) : r.m.status) },
      { title: "95 % CI", numeric: true, cell: (r) => (r.figure ? formatInterval(r.figure[1], r.figure[2], model.unit) : "") },
      { title: "samples", numeric: true, cell: (r) => (r.figure ? String(r.figure[3]) : "") },
      { title: "detected", cell: (r) => r.marker },
      { title: "reproduce", cell: (r) => h("code", {}, r.m.reproduce) },
    ],
    rows,
  );
}

function failureSummary(model: TrendModel): HTMLElement | null {
  const parts = model.lines
    .filter((l) => l.failures.length > 0)
    .map((l) => {
      const reasons = [...new Set(l.failures.map((f) => `${f.measurement.status}${f.measurement.error ? `: ${f.measurement.error}` : ""}`))];
      return `${l.runtime}: ${l.failures.length} result${l.failures.length === 1 ? "" : "s"} not drawn (${reasons.slice(0, 2).join("; ")}${reasons.length > 2 ? "; …" : ""})`;
    });
  return parts.length > 0 ? h("p", { class: "summary-line" }, parts.join(" · ")) : null;
}

function options<T extends string>(values: readonly T[], label: (value: T) => string): Option[] {
  return values.map((v) => [v, label(v)]);
}

export async function scenarioPage(): Promise<void> {
  const catalog = await fetchJson<CatalogData>("data/catalog.json");
  const root = byId("scenario");
  const controls = byId("scenario-controls");
  const trends = new Map<string, Promise<TrendData>>();
  let view = resolveView(readState(), catalog);
  if (!view) {
    root.replaceChildren(h("p", { class: "empty" }, "No results yet: run scripts/bench, then build the site again."));
    return;
  }

  const render = async (current: View) => {
    writeView(current);
    const { scenario, testbed } = current;
    document.title = `${scenario.suite}/${scenario.scenario} · runtime-bench`;
    byId("scenario-title").textContent = `${scenario.suite} / ${scenario.scenario}`;
    byId("scenario-description").textContent = scenario.description ?? "How each runtime moved, release by release.";
    byId("crumbs").replaceChildren(h("a", { href: "index.html" }, "Overview"), h("span", {}, scenario.suite), h("span", {}, scenario.scenario));

    const series = scenario.series.filter((s) => s.testbeds.includes(testbed.id));
    const apps = [...new Set(series.map((s) => appValue(s.app)))];
    const loads = series.filter((s) => appValue(s.app) === appValue(current.app)).map((s) => s.params);
    const archTestbeds = current.testbeds.filter((t) => t.arch === testbed.arch);
    const change = (query: Record<string, string>) => {
      const next = resolveView({
        scenario: scenarioId(current.scenario),
        arch: testbed.arch,
        runner: testbed.id,
        app: appValue(current.app),
        params: current.params,
        metric: current.metric,
        x: current.axis,
        ...query,
      }, catalog)!;
      view = next;
      void render(next).catch(showError);
    };
    const metricNames = Object.keys(scenario.metrics);
    controls.replaceChildren(
      ...present(
      select("Scenario", "scenario", options(catalog.scenarios.map(scenarioId), (id) => id.replace("/", " / ")), scenarioId(scenario), (value) => change({ scenario: value, app: "", params: "", metric: "" })),
      segmented("Architecture", "arch", options([...new Set(current.testbeds.map((t) => t.arch))], (a) => a), testbed.arch, (value) => change({ arch: value, runner: "" })),
      archTestbeds.length > 1 ? select("Runner", "runner", archTestbeds.map((t): Option => [t.id, machineLabel(t)]), testbed.id, (value) => change({ runner: value })) : null,
      apps.length > 1 || apps[0] !== "" ? select("App", "app", options(apps, (a) => a || "none"), appValue(current.app), (value) => change({ app: value, params: "" })) : null,
      loads.length > 1 || loads[0] !== "" ? select("Load", "params", options(loads, (p) => p.replace(/,/g, ", ") || "default"), current.params, (value) => change({ params: value })) : null,
      metricNames.length > 4
        ? select("Metric", "metric", options(metricNames, metricLabel), current.metric, (value) => change({ metric: value }))
        : segmented("Metric", "metric", options(metricNames, metricLabel), current.metric, (value) => change({ metric: value })),
      segmented("X axis", "x", [["version", "By version"], ["date", "By run date"]], current.axis, (value) => change({ x: value })),
      ),
    );

    const key = { suite: scenario.suite, scenario: scenario.scenario, app: current.app, params: current.params };
    const path = trendPath(testbed.id, key, "json");
    if (!trends.has(path)) trends.set(path, fetchJson<TrendData>(path));
    const trend = await trends.get(path)!;
    if (view !== current) return; // the reader moved on while this loaded
    const model = trendModel(trend, current);
    const info = scenario.metrics[current.metric]!;
    const chartHolder = h("div", { class: "chart-body" });
    const figure = h(
      "figure",
      { class: "chart", "data-chart": "trend", "data-metric": current.metric, "data-arch": testbed.arch, "data-axis": current.axis },
      h("figcaption", {}, `${metricLabel(current.metric)} (${info.unit}) · ${betterText(info.better)} · on ${testbed.runner} (${testbed.kind === "local" ? "local machine" : testbed.kind}, ${testbed.arch}, ${testbed.cpu_model})`),
      legend(model),
      chartHolder,
    );
    const table = h("div", {});
    const fallback = tableFallback("Show as table", table);
    // Built when opened: a five-year history is a long table that most readers never unfold.
    fallback.addEventListener("toggle", () => {
      if (!table.hasChildNodes()) table.append(pointsTable(model));
    });
    const hasNumbers = model.lines.some((l) => l.points.length > 0);
    root.replaceChildren(
      h(
        "section",
        { class: "card" },
        ...present(figure, failureSummary(model)),
        h(
          "div",
          { class: "chart-foot" },
          h("span", {}, h("a", { href: `methodology.html#testbed-${testbed.id}` }, `About ${testbed.runner}`), " · ", h("a", { href: `compare.html?testbed=${encodeURIComponent(testbed.id)}` }, "Compare versions")),
          downloadLinks(path, trendPath(testbed.id, key, "csv")),
        ),
        fallback,
      ),
    );
    if (!hasNumbers) {
      chartHolder.append(h("p", { class: "empty" }, `No ${metricLabel(current.metric).toLowerCase()} figures for this series on ${testbed.runner}: every result failed or is unsupported.`));
      return;
    }
    onWidthChange(chartHolder, (width) => {
      chartHolder.replaceChildren(drawTrend(model, width));
      markChartDrawn(figure);
    });
  };
  const showError = (error: unknown) => {
    root.replaceChildren(h("p", { class: "error", role: "alert" }, `This trend could not be drawn: ${error instanceof Error ? error.message : String(error)}`));
    console.error(error);
  };
  await render(view);
}
