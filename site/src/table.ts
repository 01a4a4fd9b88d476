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

/** A link that makes its file when clicked, from what the page holds. */
export function fileLink(text: string, file: string, type: string, contents: () => string): HTMLElement {
  const link = h("a", { href: "#", download: file }, text);
  link.addEventListener("click", () => {
    URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([contents()], { type }));
  });
  return link;
}

/**
 * `JSON · CSV` links to a chart's data: its JSON file, and the same figures as CSV, one line per
 * result and metric, made here from that file (src/site/downloads.ts) rather than published twice.
 */
export function downloadLinks(jsonPath: string, csv: () => string): HTMLElement {
  const csvFile = jsonPath.split("/").pop()!.replace(/\.json$/, ".csv");
  return h("span", { class: "downloads" }, "Data:", h("a", { href: jsonPath, download: "" }, "JSON"), fileLink("CSV", csvFile, "text/csv", csv));
}
