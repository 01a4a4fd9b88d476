import type { CompareRow } from "../../../src/compare/types.ts";
import { px, s } from "../dom.ts";

/** The log-ratio span shared by every glyph of one table, so their intervals line up. */
export function ratioDomain(rows: readonly CompareRow[]): number {
  const extremes = rows.flatMap((r) => (r.ci95 ? [Math.abs(Math.log(r.ci95[0])), Math.abs(Math.log(r.ci95[1]))] : []));
  return Math.max(Math.log(1.05), ...extremes) * 1.1;
}

/**
 * One row's ratio as a dot on a log scale centred on ×1, with its 95 % interval as a bar: a
 * forest plot, one row per table line. Coloured by the verdict, which is in the metric's direction.
 */
export function ratioGlyph(row: CompareRow, span: number, width = 112): SVGSVGElement {
  const height = 18;
  const x = (ratio: number) => width / 2 + (Math.log(ratio) / span) * (width / 2 - 4);
  const kind = row.verdict === "faster" ? "faster" : row.verdict === "slower" ? "slower" : "same";
  const svg = s("svg", { class: `ratio-glyph verdict-${kind}`, viewBox: `0 0 ${width} ${height}`, width, height, "aria-hidden": "true" });
  svg.append(s("line", { class: "baseline", x1: width / 2, x2: width / 2, y1: 1, y2: height - 1 }));
  if (row.ratio !== null && row.ci95) {
    svg.append(
      s("line", { class: "interval", x1: px(x(row.ci95[0])), x2: px(x(row.ci95[1])), y1: height / 2, y2: height / 2 }),
      s("circle", { class: "estimate", cx: px(x(row.ratio)), cy: height / 2, r: 3.5 }),
    );
  }
  return svg;
}
