import type { CompareRow } from "../../../src/compare/types.ts";
import { px, s } from "../dom.ts";

/**
 * The widest ratio the glyphs draw, ×1,000 either way: past it, and at 0 or infinity, which a log
 * scale has no place for (an interval from 0 is what a t quantile of 1 degree of freedom gives),
 * an interval runs to the edge and ends in an arrow, and the row says why.
 */
const LIMIT = Math.log(1000);

/** A ratio a log scale can place: finite and above 0. */
const placeable = (value: number | null | undefined): value is number => typeof value === "number" && Number.isFinite(value) && value > 0;

/** The log-ratio span shared by every glyph of one table, so their intervals line up; at most ×1,000 and a margin. */
export function ratioDomain(rows: readonly CompareRow[]): number {
  const extremes = rows.flatMap((r) => [r.ratio, ...(r.ci95 ?? [])].filter(placeable).map((v) => Math.abs(Math.log(v))));
  return Math.min(LIMIT, Math.max(Math.log(1.05), ...extremes)) * 1.1;
}

/** `×0.05`, `×1,310`, or `×3.1e-6` and `×1.0e+58` at the ends. */
const times = (value: number) => `×${value < 1e-3 || value >= 1e6 ? value.toExponential(1) : Number(value.toPrecision(3)).toLocaleString("en")}`;

/** Why a row's ratio or interval is not drawn whole on a scale of this span, or null when it is. */
export function offScale(row: CompareRow, span: number): string | null {
  if (row.ratio === null || row.ci95 === null) return null;
  const reasons: string[] = [];
  if (!placeable(row.ratio)) reasons.push(`the ratio ${row.ratio} has no place on a log scale`);
  const [low, high] = row.ci95;
  if (Number.isNaN(low) || Number.isNaN(high)) reasons.push("the interval is not a number");
  else {
    if (low <= 0) reasons.push("the interval starts at 0, which a log scale cannot draw");
    else if (Math.log(low) < -span) reasons.push(`the interval starts at ${times(low)}, past the scale`);
    if (!Number.isFinite(high)) reasons.push("the interval has no upper end");
    else if (Math.log(high) > span) reasons.push(`the interval reaches ${times(high)}, past the scale`);
  }
  return reasons.length === 0 ? null : `${reasons.join("; ")}: drawn to the edge`;
}

/**
 * One row's ratio as a dot on a log scale centred on ×1, with its 95 % interval as a bar: a
 * forest plot, one row per table line. Coloured by the verdict, which is in the metric's direction.
 * What lies past the scale runs to its edge and ends in an arrow; nothing is drawn at a
 * position that is not a number.
 */
export function ratioGlyph(row: CompareRow, span: number, width = 112): SVGSVGElement {
  const height = 18;
  const mid = height / 2;
  const edge = width / 2 - 4;
  const x = (logRatio: number) => width / 2 + (Math.max(-span, Math.min(span, logRatio)) / span) * edge;
  // 0 sits at the left edge, infinity at the right: where the interval runs to.
  const at = (ratio: number) => (ratio <= 0 ? x(-span) : x(Math.log(ratio)));
  const kind = row.verdict === "faster" ? "faster" : row.verdict === "slower" ? "slower" : "same";
  const svg = s("svg", { class: `ratio-glyph verdict-${kind}`, viewBox: `0 0 ${width} ${height}`, width, height, role: "img" });
  const why = offScale(row, span);
  if (why) svg.append(s("title", {}, why));
  svg.append(s("line", { class: "baseline", x1: width / 2, x2: width / 2, y1: 1, y2: height - 1 }));
  if (row.ci95 && !row.ci95.some(Number.isNaN)) {
    const [low, high] = [at(row.ci95[0]), at(row.ci95[1])];
    svg.append(s("line", { class: "interval", x1: px(low), x2: px(high), y1: mid, y2: mid }));
    const arrow = (tip: number, back: number) => s("path", { class: "off-scale", d: `M${px(tip)},${mid} L${px(back)},${mid - 4} L${px(back)},${mid + 4} Z` });
    if (low <= x(-span)) svg.append(arrow(low - 3, low + 3));
    if (high >= x(span)) svg.append(arrow(high + 3, high - 3));
  }
  if (placeable(row.ratio)) svg.append(s("circle", { class: "estimate", cx: px(x(Math.log(row.ratio))), cy: mid, r: 3.5 }));
  return svg;
}
