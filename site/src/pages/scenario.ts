import { CHAIN_INDEX_PATH, SITE_RUNTIMES, chainPath, machineLabel, scenarioTestbeds, testbedWithFigures, trendPath, type CatalogData, type ChainData, type ChainIndex, type ReducedResult, type TestbedRef, type TrendData } from "../../../src/site/model.ts";
import { MIN_ZOOM_SPAN, drawTrend, type TrendAxis, type TrendLine, type TrendModel, type TrendPoint, type TrendZoom } from "../charts/trend.ts";
import { DETECTABLE_HELP, detectableLabel } from "../../../src/site/detectable.ts";
import { chainCsv, trendCsv } from "../../../src/site/downloads.ts";
import { runCommand } from "../../../src/results/reproduce.ts";
import type { ChainLinkEstimate } from "../../../src/regressions/chains.ts";
import { MIN_HISTORY_RUNS } from "../../../src/compare/noise.ts";
import { segmented, select, type Option } from "../controls.ts";
import { fetchJson } from "../data.ts";
import { byId, h, present } from "../dom.ts";
import { betterText, formatDateTime, formatInterval, formatValue, metricLabel, metricTitle } from "../format.ts";
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
  /** Absolute figures, or each release against the first of its chain (paired steps multiplied along it). */
  figures: "absolute" | "chained";
  /** The share of the x axis shown, or null for all of it. */
  zoom: TrendZoom | null;
}

/** `0.25..0.5` in a permalink: the share of the x axis shown. */
function parseZoom(text: string | undefined): TrendZoom | null {
  const match = /^(\d*\.?\d+)\.\.(\d*\.?\d+)$/.exec(text ?? "");
  if (!match) return null;
  const [from, to] = [Number(match[1]), Number(match[2])];
  return from >= 0 && to <= 1 && to - from >= MIN_ZOOM_SPAN ? [from, to] : null;
}

function zoomText(zoom: TrendZoom | null): string {
  return zoom ? `${Number(zoom[0].toFixed(4))}..${Number(zoom[1].toFixed(4))}` : "";
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
  const preferred = (among: TestbedRef[]) => testbedWithFigures(scenario, among, query.app === undefined ? undefined : query.app || null, query.params);
  const arch = query.arch && testbeds.some((t) => t.arch === query.arch) ? query.arch : (asked ?? preferred(testbeds)).arch;
  const testbed = asked && asked.arch === arch ? asked : preferred(testbeds.filter((t) => t.arch === arch));
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
  const figures = query.figures === "chained" ? "chained" : "absolute";
  return { scenario, testbed, testbeds, app: app === "" ? null : app, params, metric, axis: query.x === "date" && figures === "absolute" ? "date" : "version", figures, zoom: parseZoom(query.zoom) };
}

function writeView(view: View): void {
  const preferredOfArch = testbedWithFigures(view.scenario, view.testbeds.filter((t) => t.arch === view.testbed.arch), view.app, view.params);
  writeState({
    scenario: scenarioId(view.scenario),
    arch: view.testbed.arch,
    runner: preferredOfArch.id === view.testbed.id ? "" : view.testbed.id,
    app: appValue(view.app),
    params: view.params,
    metric: view.metric,
    x: view.axis,
    figures: view.figures,
    zoom: zoomText(view.zoom),
  }, { x: "version", figures: "absolute" });
}

/** The chart's lines: per runtime, one point per version (its newest ok result) or every run by date. */
function trendModel(trend: TrendData, view: View): TrendModel {
  const info = trend.metrics[view.metric]!;
  const lines: TrendLine[] = [];
  for (const runtime of SITE_RUNTIMES) {
    const results = trend.runtimes[runtime];
    if (!results) continue;
    const versions = [...new Set(results.map((r) => r.version))];
    const markerFor = (m: ReducedResult) => trend.changes.find((c) => c.runtime === runtime && c.version === m.version && c.metric === view.metric) ?? null;
    const points: TrendPoint[] = [];
    const failures: TrendLine["failures"] = [];
    if (view.axis === "version") {
      versions.forEach((version, index) => {
        const ofVersion = results.filter((r) => r.version === version);
        const newestOk = ofVersion.filter((r) => r.values[view.metric]).pop();
        if (newestOk) points.push({ x: index, figure: newestOk.values[view.metric]!, result: newestOk, marker: markerFor(newestOk) });
        else failures.push({ x: index, result: ofVersion[ofVersion.length - 1]! });
      });
    } else {
      const marked = new Set<string>();
      for (const r of [...results].sort((a, b) => a.started_at.localeCompare(b.started_at))) {
        const figure = r.values[view.metric];
        const time = Date.parse(r.started_at);
        if (!figure) {
          failures.push({ x: time, result: r });
          continue;
        }
        // A change is marked once, at the first run of the version it came in.
        const marker = marked.has(r.version) ? null : markerFor(r);
        if (marker) marked.add(r.version);
        points.push({ x: time, figure, result: r, marker });
      }
    }
    const detectable = trend.detectable[runtime]?.[view.metric] ?? null;
    if (points.length > 0 || failures.length > 0) lines.push({ runtime, versions, points, failures, detectable });
  }
  return { axis: view.axis, metricLabel: metricLabel(view.metric), unit: info.unit, better: info.better, testbed: trend.testbed, lines };
}

/** What the link into a release measured, as a command that measures it again: its load point, in its run's profile. */
function linkCommand(series: ChainData["series"], runtime: string, link: ChainLinkEstimate): string {
  return runCommand({ suite: series.suite, scenario: series.scenario, app: series.app, runtimes: [`${runtime}@${link.from}`, `${runtime}@${link.to}`], profile: link.profile, loadPoint: series.params });
}

/**
 * The chained trend: per runtime, its longest chain of the metric, each release against the
 * chain's first as the product of the paired steps between (1 for the first), with its interval.
 */
function chainedModel(chain: ChainData, trend: TrendData, view: View): TrendModel {
  const info = trend.metrics[view.metric]!;
  const lines: TrendLine[] = [];
  for (const runtime of SITE_RUNTIMES) {
    const chains = chain.runtimes[runtime]?.[view.metric] ?? [];
    const longest = chains.reduce<(typeof chains)[number]>((best, c) => (c.length > best.length ? c : best), []);
    if (longest.length === 0) continue;
    const points = longest.map((p, index): TrendPoint => {
      const link = p.link;
      // The first release has no link into it: its date and profile are its link out's, the run that measured it.
      const measuredBy = (link ?? longest[1]!.link)!;
      const result: ReducedResult = {
        runtime,
        version: p.version,
        started_at: measuredBy.started_at,
        run: link?.run_id ?? "the chain's first release",
        profile: measuredBy.profile,
        status: "ok",
        reproduce: link ? linkCommand(chain.series, runtime, link) : `the first release of the chain: ${runtime} ${p.version}`,
        values: {},
      };
      const marker = p.machine_changed && link
        ? { runtime, version: p.version, metric: view.metric, kind: "machine" as const, summary: `machine changed: ${link.from} → ${link.to} ran on ${link.machine.cpu_model} (${link.machine.fingerprint.slice(0, 8)})` }
        : null;
      return { x: index, figure: [p.ratio, p.ci95[0], p.ci95[1], link?.pairs ?? 0], result, marker };
    });
    lines.push({ runtime, versions: longest.map((p) => p.version), points, failures: [], detectable: null });
  }
  return { axis: "version", metricLabel: `${metricLabel(view.metric)} against the chain's first release`, unit: "×", better: info.better, testbed: trend.testbed, lines };
}

/** The chart's keys; a chained trend's steps are paired, so what its series detects does not apply. */
function legend(model: TrendModel, chained: boolean): HTMLElement {
  const keys: (HTMLElement | null)[] = model.lines.map((l) =>
    h("span", { class: `key rt-${l.runtime}` }, h("span", { class: "swatch" }), chained ? `${l.runtime} from ${l.versions[0]}` : l.runtime, " ", chained ? null : h("span", { class: "muted detectable", title: `${l.runtime}: ${DETECTABLE_HELP}` }, `detects ${detectableLabel(l.detectable)}`)),
  );
  const anyMarker = (kind: string) => model.lines.some((l) => l.points.some((p) => p.marker?.kind === kind));
  keys.push(
    h("span", { class: "key" }, h("span", { class: "band" }), "95 % confidence band"),
    anyMarker("regression") ? h("span", { class: "key" }, h("span", { class: "verdict-regression" }, "▲"), "regression detected") : null,
    anyMarker("improvement") ? h("span", { class: "key" }, h("span", { class: "verdict-improvement" }, "△"), "improvement detected") : null,
    anyMarker("machine") ? h("span", { class: "key" }, h("span", { class: "verdict-machine" }, "▲"), "machine changed") : null,
    model.lines.some((l) => l.failures.length > 0) ? h("span", { class: "key" }, "×", " failed or unsupported") : null,
  );
  return h("div", { class: "legend" }, ...keys);
}

/**
 * Where no runtime has two versions in the series (a first run): what the chart shows instead of
 * a trend, and the three ways to get one.
 */
function fewVersionsNote(model: TrendModel): HTMLElement | null {
  if (model.lines.some((l) => l.versions.length >= 2)) return null;
  const runtimes = model.lines.map((l) => `${l.runtime} ${l.versions[0] ?? ""}`.trim()).join(", ");
  return h(
    "div",
    { class: "note", id: "trend-note" },
    h("p", {}, h("strong", {}, "Not a trend yet. "), `This series has one version of each runtime on ${model.testbed.runner} (${runtimes}): each dot is that version's median with its 95 % interval, so the runtimes stand side by side, as on the overview. A trend needs several versions of a runtime measured on one machine:`),
    h(
      "ul",
      {},
      h("li", {}, "measure several versions here: ", h("code", {}, "scripts/bench run --runtime node@22 --runtime node@24 --runtime node@latest"), " (each version adds a point; one version measured in several runs draws a line by run date);"),
      h("li", {}, "or sweep the last release lines of every runtime on a benchmark machine: ", h("code", {}, "benchmark.yml"), " with backfill on (docs/ci.md);"),
      h("li", {}, "or read the published site, where the dedicated machines add each release as it comes out."),
    ),
    h("p", { class: "muted" }, `Telling a change from noise (the “detects” figure, and the regressions feed) needs ${MIN_HISTORY_RUNS} runs of a series.`),
  );
}

function pointsTable(model: TrendModel): HTMLElement {
  const rows = model.lines.flatMap((line) => [
    ...line.points.map((p) => ({ runtime: line.runtime, m: p.result, figure: p.figure as TrendPoint["figure"] | null, marker: p.marker?.summary ?? "" })),
    ...line.failures.map((f) => ({ runtime: line.runtime, m: f.result, figure: null, marker: "" })),
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
      const reasons = [...new Set(l.failures.map((f) => `${f.result.status}${f.result.error ? `: ${f.result.error}` : ""}`))];
      return `${l.runtime}: ${l.failures.length} result${l.failures.length === 1 ? "" : "s"} not drawn (${reasons.slice(0, 2).join("; ")}${reasons.length > 2 ? "; …" : ""})`;
    });
  return parts.length > 0 ? h("p", { class: "summary-line" }, parts.join(" · ")) : null;
}

/** What a share of the x axis stands for: a version of the first line, or a date. */
function zoomEndLabel(model: TrendModel, share: number): string {
  if (model.axis === "date") {
    const times = model.lines.flatMap((l) => l.points.map((p) => p.x));
    const [min, max] = [Math.min(...times), Math.max(...times)];
    return new Date(min + share * (max - min)).toISOString().slice(0, 10);
  }
  const line = model.lines.find((l) => l.versions.length > 0);
  return line ? `${line.runtime} ${line.versions[Math.round(share * (line.versions.length - 1))]!}` : "";
}

const ZOOM_STEPS = 1000;

/**
 * The zoom as a control: two sliders (from, to) over the x axis, usable with the arrow keys, and
 * a reset. Dragging across the chart sets the same zoom.
 */
function zoomControls(model: TrendModel, zoom: TrendZoom | null, onZoom: (zoom: TrendZoom | null) => void): { element: HTMLElement; update: (zoom: TrendZoom | null) => void } {
  const slider = (name: string, label: string) => h("input", { type: "range", name, min: 0, max: ZOOM_STEPS, step: 1, "aria-label": label });
  const from = slider("zoom-from", "Zoom: start of the range shown");
  const to = slider("zoom-to", "Zoom: end of the range shown");
  const text = h("span", { class: "zoom-range", "aria-live": "polite" });
  const reset = h("button", { type: "button", class: "zoom-reset" }, "Reset zoom");
  const update = (next: TrendZoom | null) => {
    const [a, b] = next ?? [0, 1];
    from.value = String(Math.round(a * ZOOM_STEPS));
    to.value = String(Math.round(b * ZOOM_STEPS));
    text.textContent = next ? `${zoomEndLabel(model, a)} – ${zoomEndLabel(model, b)}` : "all of it";
    reset.disabled = next === null;
  };
  const changed = (moved: "from" | "to") => {
    let [a, b] = [Number(from.value) / ZOOM_STEPS, Number(to.value) / ZOOM_STEPS];
    // The other end gives way, so the range never closes up.
    if (b - a < MIN_ZOOM_SPAN) {
      if (moved === "from") b = Math.min(1, a + MIN_ZOOM_SPAN);
      else a = Math.max(0, b - MIN_ZOOM_SPAN);
    }
    onZoom(a <= 0 && b >= 1 ? null : [a, b]);
  };
  from.addEventListener("input", () => changed("from"));
  to.addEventListener("input", () => changed("to"));
  reset.addEventListener("click", () => onZoom(null));
  update(zoom);
  const element = h(
    "div",
    { class: "zoom", "data-control": "zoom" },
    h("span", { class: "label" }, "Zoom"),
    h("label", {}, "from ", from),
    h("label", {}, "to ", to),
    text,
    reset,
    h("span", { class: "hint" }, "or drag across the chart"),
  );
  return { element, update };
}

function options<T extends string>(values: readonly T[], label: (value: T) => string): Option[] {
  return values.map((v) => [v, label(v)]);
}

/** The page's title, heading, description and breadcrumbs for a scenario. */
function showHeading(scenario: View["scenario"]): void {
  document.title = `${scenario.suite}/${scenario.scenario} · runtime-bench`;
  byId("scenario-title").textContent = `${scenario.suite} / ${scenario.scenario}`;
  byId("scenario-description").textContent = scenario.description ?? "How each runtime moved, release by release.";
  byId("crumbs").replaceChildren(h("a", { href: "index.html" }, "Overview"), h("span", {}, scenario.suite), h("span", {}, scenario.scenario));
}

/** The view's selectors, each shown only when it offers a choice; `change` applies one (as query fields). */
function viewControls(catalog: CatalogData, current: View, chained: boolean, change: (query: Record<string, string>) => void): HTMLElement[] {
  const { scenario, testbed } = current;
  const series = scenario.series.filter((s) => s.testbeds.includes(testbed.id));
  const apps = [...new Set(series.map((s) => appValue(s.app)))];
  const loads = series.filter((s) => appValue(s.app) === appValue(current.app)).map((s) => s.params);
  const archTestbeds = current.testbeds.filter((t) => t.arch === testbed.arch);
  const metricNames = Object.keys(scenario.metrics);
  const metricOptions = options(metricNames, (m) => metricTitle(m, scenario.metrics[m]!.unit));
  const arches = [...new Set(current.testbeds.map((t) => t.arch))];
  return present(
    select("Scenario", "scenario", options(catalog.scenarios.map(scenarioId), (id) => id.replace("/", " / ")), scenarioId(scenario), (value) => change({ scenario: value, app: "", params: "", metric: "", zoom: "" })),
    arches.length > 1 ? segmented("Architecture", "arch", options(arches, (a) => a), testbed.arch, (value) => change({ arch: value, runner: "" })) : null,
    archTestbeds.length > 1 ? select("Runner", "runner", archTestbeds.map((t): Option => [t.id, machineLabel(t)]), testbed.id, (value) => change({ runner: value })) : null,
    apps.length > 1 || apps[0] !== "" ? select("App", "app", options(apps, (a) => a || "none"), appValue(current.app), (value) => change({ app: value, params: "" })) : null,
    loads.length > 1 || loads[0] !== "" ? select("Load", "params", options(loads, (p) => p.replace(/,/g, ", ") || "default"), current.params, (value) => change({ params: value })) : null,
    metricNames.length > 4
      ? select("Metric", "metric", metricOptions, current.metric, (value) => change({ metric: value }))
      : segmented("Metric", "metric", metricOptions, current.metric, (value) => change({ metric: value })),
    chained ? segmented("Figures", "figures", [["absolute", "Absolute"], ["chained", "Chained steps"]], current.figures, (value) => change({ figures: value, zoom: "" })) : null,
    current.figures === "absolute" ? segmented("X axis", "x", [["version", "By version"], ["date", "By run date"]], current.axis, (value) => change({ x: value, zoom: "" })) : null,
  );
}

function caption(view: View, chained: boolean): string {
  const { testbed } = view;
  const info = view.scenario.metrics[view.metric]!;
  return chained
    ? `${metricLabel(view.metric)}: each release against the first of its chain, the product of the steps each measured beside its predecessor · ${betterText(info.better)} · on ${testbed.runner}, across its machines`
    : `${metricLabel(view.metric)} (${info.unit}) · ${betterText(info.better)} · on ${machineLabel(testbed)}`;
}

/** Fetches each file once, however often the reader comes back to its view. */
function filesOnce(): <T>(path: string) => Promise<T> {
  const files = new Map<string, Promise<unknown>>();
  return <T>(path: string) => {
    if (!files.has(path)) files.set(path, fetchJson<T>(path));
    return files.get(path) as Promise<T>;
  };
}

export async function scenarioPage(): Promise<void> {
  const catalog = await fetchJson<CatalogData>("data/catalog.json");
  const root = byId("scenario");
  const controls = byId("scenario-controls");
  const fetchOnce = filesOnce();
  const chainIndex = new Set((await fetchJson<ChainIndex>(CHAIN_INDEX_PATH)).files);
  let view = resolveView(readState(), catalog);
  if (!view) {
    root.replaceChildren(h("p", { class: "empty" }, "No results yet: run scripts/bench, then build the site again."));
    return;
  }

  const render = async (current: View) => {
    const { scenario, testbed } = current;
    const key = { suite: scenario.suite, scenario: scenario.scenario, app: current.app, params: current.params };
    const chainFile = chainPath(testbed.runner, key);
    const chained = chainIndex.has(chainFile);
    if (!chained) current.figures = "absolute";
    writeView(current);
    showHeading(scenario);
    const change = (query: Record<string, string>) => {
      const next = resolveView({
        scenario: scenarioId(current.scenario),
        arch: testbed.arch,
        runner: testbed.id,
        app: appValue(current.app),
        params: current.params,
        metric: current.metric,
        x: current.axis,
        figures: current.figures,
        zoom: zoomText(current.zoom),
        ...query,
      }, catalog)!;
      view = next;
      void render(next).catch(showError);
    };
    controls.replaceChildren(...viewControls(catalog, current, chained, change));

    const path = trendPath(testbed.id, key);
    const [trend, chain] = await Promise.all([fetchOnce<TrendData>(path), current.figures === "chained" ? fetchOnce<ChainData>(chainFile) : null]);
    if (view !== current) return; // the reader moved on while this loaded
    const model = chain ? chainedModel(chain, trend, current) : trendModel(trend, current);
    const chartHolder = h("div", { class: "chart-body" });
    const figure = h(
      "figure",
      { class: "chart", "data-chart": "trend", "data-metric": current.metric, "data-arch": testbed.arch, "data-axis": current.axis, "data-figures": current.figures },
      h("figcaption", {}, caption(current, chain !== null)),
      legend(model, chain !== null),
      chartHolder,
    );
    const table = h("div", {});
    const fallback = tableFallback("Show as table", table);
    // Built when opened: a five-year history is a long table that most readers never unfold.
    fallback.addEventListener("toggle", () => {
      if (!table.hasChildNodes()) table.append(pointsTable(model));
    });
    const hasNumbers = model.lines.some((l) => l.points.length > 0);
    let drawnWidth = 0;
    const draw = () => {
      chartHolder.replaceChildren(drawTrend(model, drawnWidth, current.zoom, setZoom));
      markChartDrawn(figure);
    };
    // A zoom redraws the chart alone (once per frame while a slider moves) and rewrites the permalink.
    let frame = 0;
    const setZoom = (zoom: TrendZoom | null) => {
      // As the permalink holds it, so that a reload draws exactly this chart.
      current.zoom = parseZoom(zoomText(zoom));
      writeView(current);
      zoomControl.update(zoom);
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => drawnWidth > 0 && draw());
    };
    const zoomControl = zoomControls(model, current.zoom, setZoom);
    root.replaceChildren(
      h(
        "section",
        { class: "card" },
        ...present(fewVersionsNote(model), figure, model.lines.some((l) => l.points.length > 1) ? zoomControl.element : null, failureSummary(model)),
        h(
          "div",
          { class: "chart-foot" },
          h("span", {}, h("a", { href: `methodology.html#testbed-${testbed.id}` }, `About ${testbed.runner}`), " · ", h("a", { href: `compare.html?testbed=${encodeURIComponent(testbed.id)}` }, "Compare versions")),
          chain ? downloadLinks(chainFile, () => chainCsv(chain)) : downloadLinks(path, () => trendCsv(trend)),
        ),
        fallback,
      ),
    );
    if (!hasNumbers) {
      chartHolder.append(h("p", { class: "empty" }, `No ${metricLabel(current.metric).toLowerCase()} figures for this series on ${testbed.runner}: every result failed or is unsupported.`));
      return;
    }
    onWidthChange(chartHolder, (width) => {
      drawnWidth = width;
      draw();
    });
  };
  const showError = (error: unknown) => {
    root.replaceChildren(h("p", { class: "error", role: "alert" }, `This trend could not be drawn: ${error instanceof Error ? error.message : String(error)}`));
    console.error(error);
  };
  await render(view);
}
