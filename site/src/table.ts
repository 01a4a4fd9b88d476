import { h } from "./dom.ts";

export interface Column<Row> {
  readonly title: string;
  readonly numeric?: boolean;
  cell(row: Row): Node | string;
}

/**
 * A plain data table; numeric columns align right with tabular figures. A `stacked` table shows
 * each row as a small card of labelled lines on a phone, instead of scrolling sideways.
 */
export function dataTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[], options: { stacked?: boolean } = {}): HTMLElement {
  const table = h(
    "table",
    { class: options.stacked ? "data stacked" : "data" },
    h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", { scope: "col", class: c.numeric ? "num" : null }, c.title)))),
    h("tbody", {}, ...rows.map((row) => h("tr", {}, ...columns.map((c) => h("td", { class: c.numeric ? "num" : null, "data-label": c.title }, c.cell(row)))))),
  );
  return h("div", { class: "table-scroll" }, table);
}

/** The table behind a chart, folded under it: the same numbers, readable without the picture. */
export function tableFallback(summary: string, table: HTMLElement): HTMLElement {
  return h("details", { class: "table-fallback" }, h("summary", {}, summary), table);
}

/** `JSON · CSV` links to a chart's data files. */
export function downloadLinks(jsonPath: string, csvPath: string | null): HTMLElement {
  return h(
    "span",
    { class: "downloads" },
    "Data:",
    h("a", { href: jsonPath, download: "" }, "JSON"),
    csvPath ? h("a", { href: csvPath, download: "" }, "CSV") : null,
  );
}
