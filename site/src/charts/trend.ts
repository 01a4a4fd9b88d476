import type { Better } from "../../../src/results/types.ts";
import type { RuntimeName } from "../../../src/runtimes/catalog.ts";
import type { ChangeMarker, Figure, ReducedResult, TestbedRef } from "../../../src/site/model.ts";
import { h, px, s } from "../dom.ts";
import { betterText, formatDateTime, formatInterval, formatTick, formatValue } from "../format.ts";
import { linearScale, timeTicks, type LinearScale } from "./scale.ts";

export type TrendAxis = "version" | "date";

/** A zoom: the share of each panel's x range shown, from and to, each in [0, 1]. */
export type TrendZoom = readonly [from: number, to: number];

/** Narrower than this share of the range, a zoom shows too few points to read. */
export const MIN_ZOOM_SPAN = 0.01;

export interface TrendPoint {
  /** Index of the version in the line's `versions` (version axis), or a time in ms (date axis). */
  x: number;
  figure: Figure;
  result: ReducedResult;
  marker: ChangeMarker | null;
}

export interface TrendLine {
  runtime: RuntimeName;
  /** Versions in order: the version axis of this runtime's panel. */
  versions: string[];
  points: TrendPoint[];
  /** Results that are not numbers (failed, unsupported), drawn as crosses on the axis. */
  failures: { x: number; result: ReducedResult }[];
  /** The smallest change this runtime's series confirms at 95 % from its own runs; null while too few. */
  detectable: number | null;
}

export interface TrendModel {
  axis: TrendAxis;
  metricLabel: string;
  unit: string;
  better: Better;
  testbed: TestbedRef;
  lines: TrendLine[];
}

interface Panel {
  lines: TrendLine[];
  left: number;
  top: number;
  width: number;
  height: number;
  x: (value: number) => number;
  /** The x value at a horizontal position: `x` inverted. */
  invert: (position: number) => number;
  /** The x values shown (after the zoom): points outside are clipped. */
  domain: readonly [number, number];
  title: string | null;
}

interface Located {
  panel: Panel;
  line: TrendLine;
  index: number;
  cx: number;
  cy: number;
}

const MARGIN = { left: 50, right: 14, top: 26, bottom: 38 };
const PANEL_GAP = 18;
const DOTS_UP_TO = 80;

/** Up to `room` version labels: every version if they fit, else the first of each major, else evenly spread. */
function versionTicks(versions: readonly string[], room: number): number[] {
  if (versions.length <= room) return versions.map((_, i) => i);
  const majors: number[] = [];
  versions.forEach((v, i) => {
    if (i === 0 || v.split(".")[0] !== versions[i - 1]!.split(".")[0]) majors.push(i);
  });
  if (majors.length >= 2 && majors.length <= room) return majors;
  const step = Math.ceil(versions.length / Math.max(1, room));
  return versions.map((_, i) => i).filter((i) => i % step === 0);
}

/** The points inside a domain, with one neighbour on each side so that lines run to the edge. */
function withinDomain(points: readonly TrendPoint[], [low, high]: readonly [number, number]): TrendPoint[] {
  const first = points.findIndex((p) => p.x >= low);
  if (first === -1) return points.length > 0 ? [points[points.length - 1]!] : [];
  let last = first;
  while (last < points.length && points[last]!.x <= high) last += 1;
  return points.slice(Math.max(0, first - 1), Math.min(points.length, last + 1));
}

/**
 * Dragging across a panel selects a range of its x axis: on release, `onZoom` gets it as a share
 * of the range shown before (so it applies to every panel alike). Returns whether the last
 * pointer gesture was a drag, which the click that follows it must ignore.
 */
function listenForDrag(svg: SVGSVGElement, panels: readonly Panel[], width: number, height: number, zoom: TrendZoom | null, onZoom: (zoom: TrendZoom) => void): () => boolean {
  let start: { panel: Panel; x: number } | null = null;
  let wasDrag = false;
  const band = s("rect", { class: "zoom-band", y: 0, height: px(height), width: 0, visibility: "hidden" });
  svg.append(band);
  const svgX = (event: PointerEvent) => {
    const box = svg.getBoundingClientRect();
    return ((event.clientX - box.left) / box.width) * width;
  };
  // A share of the range shown, from a position: the same share on every panel.
  const share = (panel: Panel, x: number) => {
    const [d0, d1] = panel.domain;
    return d1 > d0 ? Math.max(0, Math.min(1, (panel.invert(x) - d0) / (d1 - d0))) : 0;
  };
  svg.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    const x = svgX(event);
    const panel = panels.find((p) => x >= p.left && x <= p.left + p.width);
    wasDrag = false;
    if (!panel) return;
    start = { panel, x };
    band.setAttribute("y", String(px(panel.top)));
    band.setAttribute("height", String(px(panel.height)));
  });
  svg.addEventListener("pointermove", (event) => {
    if (!start) return;
    const x = Math.max(start.panel.left, Math.min(start.panel.left + start.panel.width, svgX(event)));
    if (Math.abs(x - start.x) < DRAG_PX) return;
    wasDrag = true;
    band.setAttribute("x", String(px(Math.min(x, start.x))));
    band.setAttribute("width", String(px(Math.abs(x - start.x))));
    band.setAttribute("visibility", "visible");
  });
  const finish = (event: PointerEvent) => {
    if (!start) return;
    const { panel, x: from } = start;
    start = null;
    band.setAttribute("visibility", "hidden");
    if (!wasDrag) return;
    const [a, b] = [share(panel, from), share(panel, svgX(event))].sort((p, q) => p - q) as [number, number];
    const [low, high] = zoom ?? [0, 1];
    const next: TrendZoom = [low + a * (high - low), low + b * (high - low)];
    if (next[1] - next[0] >= MIN_ZOOM_SPAN) onZoom(next);
  };
  svg.addEventListener("pointerup", finish);
  svg.addEventListener("pointercancel", () => {
    start = null;
    band.setAttribute("visibility", "hidden");
  });
  return () => wasDrag;
}

/** A pointer that moves less than this is a click, not a drag. */
const DRAG_PX = 6;

function pathThrough(points: readonly (readonly [number, number])[]): string {
  return points.map(([x, y], i) => `${i === 0 ? "M" : "L"}${px(x)},${px(y)}`).join("");
}

/** Which way a change moved the line: up when the value grew. */
function markerPointsUp(marker: ChangeMarker, better: Better): boolean {
  return (marker.kind === "regression") === (better === "lower");
}

/** The part of [min, max] a zoom keeps. */
function zoomed(min: number, max: number, zoom: TrendZoom | null): [number, number] {
  if (!zoom) return [min, max];
  return [min + zoom[0] * (max - min), min + zoom[1] * (max - min)];
}

function layoutPanels(model: TrendModel, width: number, zoom: TrendZoom | null): { panels: Panel[]; height: number } {
  const plotWidth = width - MARGIN.left - MARGIN.right;
  if (model.axis === "date") {
    const times = model.lines.flatMap((l) => [...l.points.map((p) => p.x), ...l.failures.map((f) => f.x)]);
    const [min, max] = zoomed(Math.min(...times), Math.max(...times), zoom);
    const span = Math.max(max - min, 3_600_000);
    const height = width < 560 ? 260 : 340;
    const x = (t: number) => MARGIN.left + ((t - min + span * 0.02) / (span * 1.04)) * plotWidth;
    const invert = (position: number) => min - span * 0.02 + ((position - MARGIN.left) / plotWidth) * span * 1.04;
    return { panels: [{ lines: model.lines, left: MARGIN.left, top: MARGIN.top, width: plotWidth, height: height - MARGIN.top - MARGIN.bottom, x, invert, domain: [min, max], title: null }], height };
  }
  // One panel per runtime, sharing the value axis: each runtime has its own versions.
  const count = model.lines.length;
  const side = width >= 640 && count > 1;
  const panelWidth = side ? (plotWidth - PANEL_GAP * (count - 1)) / count : plotWidth;
  const panelHeight = side ? 260 : 170;
  const panels = model.lines.map((line, i): Panel => {
    const left = side ? MARGIN.left + i * (panelWidth + PANEL_GAP) : MARGIN.left;
    const top = side ? MARGIN.top : MARGIN.top + i * (panelHeight + MARGIN.top + MARGIN.bottom);
    const [first, last] = zoomed(0, Math.max(0, line.versions.length - 1), zoom);
    const n = Math.max(last - first, 1e-9);
    const inset = Math.min(12, panelWidth * 0.04);
    const x = (index: number) => left + inset + ((index - first) / n) * (panelWidth - 2 * inset);
    const invert = (position: number) => first + ((position - left - inset) / (panelWidth - 2 * inset)) * n;
    return { lines: [line], left, top, width: panelWidth, height: panelHeight, x, invert, domain: [first, last], title: line.runtime };
  });
  const height = side ? MARGIN.top + panelHeight + MARGIN.bottom : count * (panelHeight + MARGIN.top + MARGIN.bottom);
  return { panels, height };
}

/** A drawn trend chart: what its pointer and keyboard handlers read. */
interface Chart {
  readonly model: TrendModel;
  readonly panels: readonly Panel[];
  /** Each panel's value axis. */
  readonly scales: ReadonlyMap<Panel, LinearScale>;
  readonly svg: SVGSVGElement;
  readonly wrapper: HTMLElement;
  readonly tooltip: HTMLElement;
  /** Where the focused point's crosshair and ring are drawn. */
  readonly focusLayer: SVGGElement;
  readonly width: number;
  readonly height: number;
}

/**
 * A trend chart: median lines with 95 % confidence bands, one line per runtime, detected changes
 * as triangles, failed results as crosses on the axis. Against versions, each runtime gets its own
 * panel (their versions have nothing in common) on one shared value axis; against run dates, all
 * lines share one panel. Hovering, touching or arrow keys show a point's details; a click pins them.
 */
export function drawTrend(model: TrendModel, width: number, zoom: TrendZoom | null = null, onZoom: (zoom: TrendZoom) => void = () => {}): HTMLElement {
  const { panels, height } = layoutPanels(model, width, zoom);
  const makeY = valueAxis(model, panels);
  const svg = s("svg", {
    viewBox: `0 0 ${px(width)} ${px(height)}`,
    width: px(width),
    height: px(height),
    tabindex: 0,
    role: "img",
    "aria-label": `${model.metricLabel} (${model.unit}, ${betterText(model.better)}) by ${model.axis === "version" ? "version" : "run date"} on ${model.testbed.runner}: ${model.lines.map((l) => `${l.runtime}, ${l.points.length} points`).join("; ")}. Use the arrow keys to read points.`,
  });
  const tooltip = h("div", { class: "tooltip", hidden: true, role: "status" });
  const wrapper = h("div", { class: "trend" }, svg, tooltip);
  const focusLayer = s("g", {});
  const scales = new Map<Panel, LinearScale>();
  panels.forEach((panel, index) => {
    const y = makeY(panel.top, panel.height);
    scales.set(panel, y);
    svg.append(drawAxes(model, panel, y));
    // One trend chart per page: the panel's index is id enough, and the same drawing gives the same markup.
    const clipId = `trend-clip-${index}`;
    svg.append(s("clipPath", { id: clipId }, s("rect", { x: px(panel.left), y: px(panel.top - 12), width: px(panel.width), height: px(panel.height + 24) })));
    for (const line of panel.lines) svg.append(drawSeries(model, panel, line, y, clipId));
    svg.append(s("rect", { class: "hit", x: px(panel.left), y: px(panel.top), width: px(panel.width), height: px(panel.height), "data-panel": index }));
  });
  svg.append(focusLayer);
  const dragged = listenForDrag(svg, panels, width, height, zoom, onZoom);
  const chart: Chart = { model, panels, scales, svg, wrapper, tooltip, focusLayer, width, height };
  const focus = pointFocus(chart);
  listenForPointer(chart, focus, dragged);
  listenForKeys(chart, focus);
  listenForUnpin();
  return wrapper;
}

/** The value axis every panel shares, made for a panel's top and height: it fits what the zoom shows (the whole line when that is nothing). */
function valueAxis(model: TrendModel, panels: readonly Panel[]): (top: number, height: number) => LinearScale {
  const visible = panels.flatMap((panel) => panel.lines.flatMap((l) => l.points.filter((p) => p.x >= panel.domain[0] && p.x <= panel.domain[1]).map((p) => p.figure)));
  const figures = visible.length > 0 ? visible : model.lines.flatMap((l) => l.points.map((p) => p.figure));
  const low = Math.min(...figures.map((f) => Math.min(f[0], f[1])));
  const high = Math.max(...figures.map((f) => Math.max(f[0], f[2])));
  const pad = (high - low) * 0.06 || Math.abs(high) * 0.05 || 1;
  // Every metric here is a time, a rate, a size or a share: an axis never runs below zero unless a value does.
  const floor = low >= 0 ? Math.max(0, low - pad) : low - pad;
  return (top, height) => linearScale(floor, high + pad, top + height, top, Math.max(3, Math.floor(height / 46)));
}

/** A panel's axes: value gridlines, the baseline with its version or date ticks, the titles. */
function drawAxes(model: TrendModel, panel: Panel, y: LinearScale): SVGGElement {
  const bottom = panel.top + panel.height;
  const axis = s("g", { class: "axis" });
  for (const tick of y.ticks) {
    axis.append(s("line", { class: "gridline", x1: px(panel.left), x2: px(panel.left + panel.width), y1: px(y(tick)), y2: px(y(tick)) }));
    if (panel.left === MARGIN.left) axis.append(s("text", { x: MARGIN.left - 6, y: px(y(tick) + 4), "text-anchor": "end" }, formatTick(tick)));
  }
  axis.append(s("line", { class: "baseline", x1: px(panel.left), x2: px(panel.left + panel.width), y1: px(bottom), y2: px(bottom) }));
  if (panel.left === MARGIN.left) axis.append(s("text", { class: "axis-title", x: 4, y: px(panel.top - 10) }, `${model.unit} · ${betterText(model.better)}`));
  const xTick = (tx: number, text: string) => [
    s("line", { class: "baseline", x1: px(tx), x2: px(tx), y1: px(bottom), y2: px(bottom + 4) }),
    s("text", { x: px(tx), y: px(bottom + 16), "text-anchor": "middle" }, text),
  ];
  const xTitle = (text: string) => s("text", { class: "axis-title", x: px(panel.left + panel.width / 2), y: px(bottom + 32), "text-anchor": "middle" }, text);
  if (model.axis === "version") {
    const line = panel.lines[0]!;
    const first = Math.ceil(panel.domain[0]);
    const shown = line.versions.slice(first, Math.floor(panel.domain[1]) + 1);
    for (const i of versionTicks(shown, Math.max(2, Math.floor(panel.width / 64))).map((i) => i + first)) axis.append(...xTick(panel.x(i), line.versions[i]!));
    axis.append(xTitle(`${line.runtime} version`));
  } else {
    const [first, last] = [panel.left, panel.left + panel.width];
    for (const tick of timeTicks(panel.domain[0], panel.domain[1], Math.max(2, Math.floor(panel.width / 80)))) {
      const tx = panel.x(tick.time);
      if (tx < first || tx > last) continue;
      axis.append(...xTick(tx, tick.label));
    }
    axis.append(xTitle("run date (UTC)"));
  }
  if (panel.title) axis.append(s("text", { class: `facet-title rt-${panel.title}`, x: px(panel.left + panel.width), y: px(panel.top - 10), "text-anchor": "end" }, panel.title));
  return axis;
}

/** One runtime's series in a panel, clipped to it: the band, the median line, its dots, failures and change markers. */
function drawSeries(model: TrendModel, panel: Panel, whole: TrendLine, y: LinearScale, clipId: string): SVGGElement {
  const bottom = panel.top + panel.height;
  const line = { ...whole, points: withinDomain(whole.points, panel.domain), failures: whole.failures.filter((f) => f.x >= panel.domain[0] && f.x <= panel.domain[1]) };
  const g = s("g", { class: `rt-${line.runtime}`, "data-runtime": line.runtime, "clip-path": `url(#${clipId})` });
  const upper = line.points.map((p): [number, number] => [panel.x(p.x), y(p.figure[2])]);
  const lower = line.points.map((p): [number, number] => [panel.x(p.x), y(p.figure[1])]).reverse();
  if (line.points.length > 0) {
    g.append(
      s("path", { class: "band-area", d: `${pathThrough([...upper, ...lower])}Z` }),
      s("path", { class: "line", d: pathThrough(line.points.map((p) => [panel.x(p.x), y(p.figure[0])])) }),
    );
  }
  if (line.points.length <= DOTS_UP_TO) {
    for (const p of line.points) g.append(s("circle", { class: "dot", cx: px(panel.x(p.x)), cy: px(y(p.figure[0])), r: 2.6 }));
  }
  for (const f of line.failures) {
    const fx = panel.x(f.x);
    g.append(s("path", { class: "failed-mark", d: `M${px(fx - 3)},${px(bottom - 9)}l6,6m0,-6l-6,6` }, s("title", {}, `${line.runtime} ${f.result.version}: ${f.result.status}${f.result.error ? ` (${f.result.error})` : ""}`)));
  }
  g.append(...drawMarkers(model, panel, line, y));
  return g;
}

/** A line's detected changes: a triangle beside the point, pointing the way the value moved. */
function drawMarkers(model: TrendModel, panel: Panel, line: TrendLine, y: LinearScale): SVGPathElement[] {
  return line.points.flatMap((p) => {
    if (!p.marker) return [];
    const up = markerPointsUp(p.marker, model.better);
    const mx = panel.x(p.x);
    const my = y(p.figure[0]) + (up ? -11 : 11);
    const d = up ? `M${px(mx)},${px(my - 5)}l5,8h-10z` : `M${px(mx)},${px(my + 5)}l5,-8h-10z`;
    return [s("path", { class: `marker-${p.marker.kind}`, d, "data-marker": p.marker.kind }, s("title", {}, `${line.runtime} ${p.marker.version}: ${p.marker.summary}`))];
  });
}

function locate(panel: Panel, line: TrendLine, index: number, y: LinearScale): Located {
  const point = line.points[index]!;
  return { panel, line, index, cx: panel.x(point.x), cy: y(point.figure[0]) };
}

/** The point shown in the tooltip, and whether it is pinned there. */
interface PointFocus {
  current(): Located | null;
  pinned(): boolean;
  show(target: Located): void;
  hide(): void;
  setPinned(value: boolean): void;
}

function pointFocus(chart: Chart): PointFocus {
  const { model, tooltip, focusLayer, width, height } = chart;
  let current: Located | null = null;
  let pinned = false;
  const setPinned = (value: boolean) => {
    if (value && pinnedChart?.wrapper !== chart.wrapper) {
      pinnedChart?.unpin();
      pinnedChart = { wrapper: chart.wrapper, unpin: () => setPinned(false) };
    }
    if (!value && pinnedChart?.wrapper === chart.wrapper) pinnedChart = null;
    pinned = value;
    if (!value) hide();
  };
  const show = (target: Located) => {
    current = target;
    const point = target.line.points[target.index]!;
    const y = chart.scales.get(target.panel)!;
    focusLayer.replaceChildren(
      s("line", { class: "crosshair", x1: px(target.cx), x2: px(target.cx), y1: px(target.panel.top), y2: px(target.panel.top + target.panel.height) }),
      s("circle", { class: `focus-ring rt-${target.line.runtime}`, cx: px(target.cx), cy: px(y(point.figure[0])), r: 5 }),
    );
    fillTooltip(tooltip, model, target.line.runtime, point, pinned);
    tooltip.hidden = false;
    const room = width - target.cx;
    const tipWidth = tooltip.offsetWidth;
    const left = room > tipWidth + 16 ? target.cx + 12 : Math.max(0, target.cx - tipWidth - 12);
    const top = Math.max(0, Math.min(target.cy - 20, height - tooltip.offsetHeight));
    tooltip.style.left = `${px(left)}px`;
    tooltip.style.top = `${px(top)}px`;
  };
  const hide = () => {
    if (pinned) return;
    current = null;
    focusLayer.replaceChildren();
    tooltip.hidden = true;
  };
  return { current: () => current, pinned: () => pinned, show, hide, setPinned };
}

/** The shown point nearest a pointer, in the panel under it. */
function nearestPoint(chart: Chart, event: PointerEvent): Located | null {
  const box = chart.svg.getBoundingClientRect();
  const mx = ((event.clientX - box.left) / box.width) * chart.width;
  const my = ((event.clientY - box.top) / box.height) * chart.height;
  const panel = chart.panels.find((p) => mx >= p.left - PANEL_GAP / 2 && mx <= p.left + p.width + PANEL_GAP / 2 && my >= p.top - 10 && my <= p.top + p.height + 10);
  if (!panel) return null;
  const y = chart.scales.get(panel)!;
  let best: Located | null = null;
  let bestDistance = Infinity;
  for (const line of panel.lines) {
    line.points.forEach((point, index) => {
      if (point.x < panel.domain[0] || point.x > panel.domain[1]) return;
      const candidate = locate(panel, line, index, y);
      // Against versions one line fills a panel, so only x matters; against dates, both do.
      const distance = Math.abs(candidate.cx - mx) + (chart.model.axis === "date" ? Math.abs(candidate.cy - my) * 0.5 : 0);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = candidate;
      }
    });
  }
  return best;
}

/** Hovering shows the nearest point; a click (not the end of a drag) pins it, or unpins it. */
function listenForPointer(chart: Chart, focus: PointFocus, dragged: () => boolean): void {
  chart.svg.addEventListener("pointermove", (event) => {
    if (focus.pinned()) return;
    const target = nearestPoint(chart, event);
    if (target) focus.show(target);
    else focus.hide();
  });
  chart.svg.addEventListener("pointerleave", focus.hide);
  chart.svg.addEventListener("click", (event) => {
    if (dragged()) return;
    const target = nearestPoint(chart, event as PointerEvent);
    if (!target) return;
    const current = focus.current();
    focus.setPinned(!focus.pinned() || current?.line !== target.line || current.index !== target.index);
    focus.show(target);
  });
}

/** Left and right walk a line's points, up and down switch lines, Enter pins, Escape unpins. */
function listenForKeys(chart: Chart, focus: PointFocus): void {
  chart.svg.addEventListener("keydown", (event) => {
    const withPoints = chart.panels.flatMap((panel) => panel.lines.filter((l) => l.points.length > 0).map((line) => ({ panel, line })));
    if (withPoints.length === 0) return;
    const current = focus.current();
    let lineIndex = current ? withPoints.findIndex((w) => w.line === current.line) : 0;
    let index = current ? current.index : withPoints[0]!.line.points.length - 1;
    if (event.key === "ArrowLeft") index -= 1;
    else if (event.key === "ArrowRight") index += 1;
    else if (event.key === "ArrowUp") lineIndex -= 1;
    else if (event.key === "ArrowDown") lineIndex += 1;
    else if (event.key === "Escape") return focus.setPinned(false);
    else if (event.key === "Enter") {
      focus.setPinned(!focus.pinned());
      const shown = focus.current();
      if (shown) focus.show(shown);
      return;
    } else return;
    event.preventDefault();
    lineIndex = (lineIndex + withPoints.length) % withPoints.length;
    const { panel, line } = withPoints[lineIndex]!;
    // Within the zoom: the keys walk the points shown.
    const shown = line.points.flatMap((p, i) => (p.x >= panel.domain[0] && p.x <= panel.domain[1] ? [i] : []));
    if (shown.length === 0) return;
    index = Math.max(shown[0]!, Math.min(shown[shown.length - 1]!, index));
    focus.show(locate(panel, line, index, chart.scales.get(panel)!));
  });
}

/** The one chart whose tooltip is pinned, if any: Escape, or a click anywhere else, unpins it. */
let pinnedChart: { wrapper: HTMLElement; unpin: () => void } | null = null;
let listeningForUnpin = false;

/** Installed once for the page, not once per drawing: charts are redrawn on every resize. */
function listenForUnpin(): void {
  if (listeningForUnpin) return;
  listeningForUnpin = true;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") pinnedChart?.unpin();
  });
  document.addEventListener("click", (event) => {
    if (pinnedChart && !pinnedChart.wrapper.contains(event.target as Node)) pinnedChart.unpin();
  });
}

function fillTooltip(tooltip: HTMLElement, model: TrendModel, runtime: RuntimeName, point: TrendPoint, pinned: boolean): void {
  const m = point.result;
  const [median, low, high, samples] = point.figure;
  const copy = h("button", { type: "button" }, "Copy command");
  copy.addEventListener("click", () => {
    void navigator.clipboard?.writeText(m.reproduce).then(() => (copy.textContent = "Copied"));
  });
  tooltip.classList.toggle("pinned", pinned);
  tooltip.replaceChildren(
    h("div", { class: "tt-head" }, h("span", { class: `rt rt-${runtime}` }, runtime), ` ${m.version}`),
    h(
      "dl",
      {},
      h("dt", {}, model.metricLabel),
      h("dd", {}, h("strong", {}, formatValue(median, model.unit))),
      h("dt", {}, "95 % CI"),
      h("dd", {}, formatInterval(low, high, model.unit)),
      h("dt", {}, "samples"),
      h("dd", {}, String(samples)),
      h("dt", {}, "runner"),
      h("dd", {}, `${model.testbed.runner} (${model.testbed.kind}, ${model.testbed.arch})`),
      h("dt", {}, "date"),
      h("dd", {}, formatDateTime(m.started_at)),
      h("dt", {}, "run"),
      h("dd", {}, m.run),
      point.marker ? h("dt", {}, point.marker.kind === "machine" ? "machine" : "detected") : null,
      point.marker ? h("dd", { class: `verdict-${point.marker.kind}` }, point.marker.summary) : null,
    ),
    h("div", {}, "Reproduce locally:"),
    h("code", {}, m.reproduce),
    pinned ? copy : h("div", { class: "hint" }, "Click to pin, then copy the command."),
  );
}
