import type { Better, ResultStatus } from "../../../src/results/types.ts";
import type { RuntimeName } from "../../../src/runtimes/catalog.ts";
import type { Figure } from "../../../src/site/model.ts";
import { px, s } from "../dom.ts";
import { betterText, formatTick, formatValue } from "../format.ts";
import { linearScale } from "./scale.ts";

export interface BarRow {
  runtime: RuntimeName;
  version: string;
  /** The small line under the label: the figure's date. */
  detail: string;
  /** Null unless the result is ok: a failed result has no bar. */
  figure: Figure | null;
  status: ResultStatus;
  /** Figures from a developer's machine are drawn paler. */
  local: boolean;
  /** Full text for the native tooltip and for screen readers. */
  description: string;
}

export interface BarGroup {
  title: string;
  subtitle: string;
  rows: BarRow[];
}

export interface BarChartModel {
  metricLabel: string;
  unit: string;
  better: Better;
  groups: BarGroup[];
}

const ROW = 36;
const BAR = 14;
const GROUP_HEAD = 28;
const GROUP_GAP = 10;
const AXIS = 42;

/**
 * Horizontal bars from zero, one per runtime, grouped by architecture, with the 95 % interval as
 * a whisker and the median written at its end. Horizontal, so labels stay readable on a phone.
 */
export function drawBars(model: BarChartModel, width: number): SVGSVGElement {
  const labelWidth = Math.max(100, Math.min(150, width * 0.3));
  const valueWidth = 76;
  const rows = model.groups.reduce((n, g) => n + g.rows.length, 0);
  const height = model.groups.length * (GROUP_HEAD + GROUP_GAP) + rows * ROW + AXIS;
  const plotEnd = width - valueWidth;
  const highest = Math.max(0, ...model.groups.flatMap((g) => g.rows.map((r) => (r.figure ? Math.max(r.figure[0], r.figure[2]) : 0))));
  const x = linearScale(0, highest, labelWidth, plotEnd, Math.max(2, Math.floor((plotEnd - labelWidth) / 70)));
  const plotBottom = height - AXIS + 4;

  const svg = s("svg", {
    viewBox: `0 0 ${px(width)} ${height}`,
    width: px(width),
    height,
    role: "img",
    "aria-label": `${model.metricLabel} in ${model.unit}, ${betterText(model.better)}: ${model.groups.map((g) => `${g.title}: ${g.rows.map((r) => r.description).join("; ")}`).join(". ")}`,
  });
  const axis = s("g", { class: "axis" });
  for (const tick of x.ticks) {
    axis.append(
      s("line", { class: "baseline", x1: px(x(tick)), x2: px(x(tick)), y1: plotBottom, y2: plotBottom + 4 }),
      s("text", { x: px(x(tick)), y: plotBottom + 16, "text-anchor": "middle" }, formatTick(tick)),
    );
  }
  axis.append(
    s("line", { class: "baseline", x1: px(x(0)), x2: px(plotEnd), y1: plotBottom, y2: plotBottom }),
    s("text", { class: "axis-title", x: px((labelWidth + plotEnd) / 2), y: height - 4, "text-anchor": "middle" }, `${model.metricLabel} (${model.unit}) · ${betterText(model.better)}`),
  );
  svg.append(axis);
  /** Grid lines behind one group's bars, leaving its heading clear. */
  const gridFor = (top: number, bottom: number) =>
    s("g", { class: "axis" }, ...x.ticks.map((tick) => s("line", { class: tick === 0 ? "baseline" : "gridline", x1: px(x(tick)), x2: px(x(tick)), y1: top, y2: bottom })));

  let y = 0;
  for (const group of model.groups) {
    svg.append(
      s("text", { class: "group-title", x: 0, y: y + 17 }, group.title, s("tspan", { class: "group-sub", dx: 8 }, group.subtitle)),
    );
    y += GROUP_HEAD;
    const last = group === model.groups[model.groups.length - 1];
    svg.append(gridFor(y, y + group.rows.length * ROW + (last ? GROUP_GAP + 4 : 0)));
    for (const row of group.rows) {
      const mid = y + ROW / 2;
      const g = s("g", { class: `rt-${row.runtime}`, "data-runtime": row.runtime }, s("title", {}, row.description));
      g.append(
        s("text", { class: "bar-label", x: 0, y: mid - 2 }, s("tspan", { class: "rt-name", "font-weight": 700 }, row.runtime), s("tspan", { class: "version", dx: 5 }, row.version)),
        s("text", { class: "bar-sub", x: 0, y: mid + 11 }, row.detail),
      );
      if (row.figure) {
        const [median, low, high] = row.figure;
        g.append(
          s("rect", { class: `bar${row.local ? " local" : ""}`, x: px(x(0)), y: px(mid - BAR / 2), width: px(Math.max(1, x(median) - x(0))), height: BAR, rx: 3 }),
          s("line", { class: "whisker", x1: px(x(low)), x2: px(x(high)), y1: mid, y2: mid }),
          s("line", { class: "whisker", x1: px(x(low)), x2: px(x(low)), y1: mid - 5, y2: mid + 5 }),
          s("line", { class: "whisker", x1: px(x(high)), x2: px(x(high)), y1: mid - 5, y2: mid + 5 }),
          s("text", { class: "bar-value", x: px(Math.max(x(high), x(median)) + 6), y: mid + 4 }, formatValue(median, model.unit)),
        );
      } else {
        g.append(s("text", { class: "status-text", x: px(labelWidth + 4), y: mid + 4 }, row.status));
      }
      svg.append(g);
      y += ROW;
    }
    y += GROUP_GAP;
  }
  return svg;
}
