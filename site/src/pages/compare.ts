import { cellLabel, formatChange, formatConfidence, formatInterval, formatPercent } from "../../../src/compare/format.ts";
import { DETECTABLE_HELP, detectableLabel } from "../../../src/site/detectable.ts";
import { formatSyscallDiff, type ExplainedRow } from "../../../src/compare/syscall-diff.ts";
import type { CompareRow } from "../../../src/compare/types.ts";
import type { RuntimeName } from "../../../src/runtimes/catalog.ts";
import { compareBundlePath, compareHistoryPath } from "../../../src/site/compare-data.ts";
import { SITE_RUNTIMES, machineLabel, type CatalogData, type TestbedRef } from "../../../src/site/model.ts";
import { formatNumber } from "../../../src/ui/table.ts";
import { ratioDomain, ratioGlyph } from "../charts/ratios.ts";
import { segmented, select, type Option } from "../controls.ts";
import type { CompareReply, CompareRequest } from "../compare-worker.ts";
import { fetchJson } from "../data.ts";
import { byId, h, present } from "../dom.ts";
import { metricLabel } from "../format.ts";
import { markChartDrawn } from "../render.ts";
import { pageLink, readState, writeState } from "../state.ts";
import { dataTable } from "../table.ts";

interface Side {
  runtime: RuntimeName;
  version: string;
}

interface Choice {
  testbed: TestbedRef;
  base: Side;
  head: Side;
  /** Every comparison, or only those with a verdict of faster or slower. */
  show: "all" | "changes";
}

const label = (side: Side) => `${side.runtime}@${side.version}`;

function parseSide(text: string | undefined): Side | null {
  const match = /^(node|deno|bun)@(.+)$/.exec(text ?? "");
  return match ? { runtime: match[1] as RuntimeName, version: match[2]! } : null;
}

/**
 * The pair a reader most wants first: the newest Bun against the newest Node (or the two runtimes
 * measured, in that order of preference), or, with one runtime measured, its two newest versions.
 */
function defaultPair(versions: CatalogData["versions"][string]): { base: Side; head: Side } {
  const measured = DEFAULT_PAIR_ORDER.filter((r) => (versions[r] ?? []).length > 0);
  const newest = (runtime: RuntimeName, back = 0): Side => {
    const list = versions[runtime]!;
    return { runtime, version: list[Math.max(0, list.length - 1 - back)]! };
  };
  if (measured.length >= 2) return { base: newest(measured[0]!), head: newest(measured[1]!) };
  return { base: newest(measured[0]!, 1), head: newest(measured[0]!) };
}

/** Node is the usual baseline, Bun the usual challenger: base first. */
const DEFAULT_PAIR_ORDER: readonly RuntimeName[] = ["node", "bun", "deno"];

/** The reader's choice from the query string, side by side; by default, `defaultPair`. */
function resolveChoice(query: Record<string, string>, catalog: CatalogData): Choice | null {
  const testbeds = catalog.testbeds.filter((t) => Object.keys(catalog.versions[t.id] ?? {}).length > 0);
  const testbed = testbeds.find((t) => t.id === query.testbed) ?? testbeds.find((t) => t.runner === query.testbed) ?? testbeds[0];
  if (!testbed) return null;
  const versions = catalog.versions[testbed.id]!;
  const valid = (side: Side | null): side is Side => side !== null && (versions[side.runtime] ?? []).includes(side.version);
  const wantedBase = parseSide(query.base);
  const wantedHead = parseSide(query.head);
  const fallback = defaultPair(versions);
  const head: Side = valid(wantedHead) ? wantedHead : fallback.head;
  const base: Side = valid(wantedBase) ? wantedBase : fallback.base;
  return { testbed, base, head, show: query.show === "changes" ? "changes" : "all" };
}

/** A few comparisons readers ask for, one click away. */
function presets(choice: Choice, catalog: CatalogData): HTMLElement {
  const versions = catalog.versions[choice.testbed.id]!;
  const available = SITE_RUNTIMES.filter((r) => (versions[r] ?? []).length > 0);
  const newest = (r: RuntimeName) => versions[r]!.at(-1)!;
  const links: [string, Choice][] = [];
  for (const r of available) {
    const list = versions[r]!;
    if (list.length > 1) links.push([`${r} newest vs previous`, { ...choice, base: { runtime: r, version: list[list.length - 2]! }, head: { runtime: r, version: newest(r) } }]);
  }
  for (const [i, a] of available.entries()) {
    for (const b of available.slice(i + 1)) links.push([`${b} vs ${a}, newest`, { ...choice, base: { runtime: a, version: newest(a) }, head: { runtime: b, version: newest(b) } }]);
  }
  return h(
    "div",
    { class: "control" },
    h("span", { class: "label" }, "Quick picks"),
    h("div", { class: "presets" }, ...links.map(([text, c]) => h("a", { class: "preset", href: pageLink("compare.html", stateOf(c)) }, text))),
  );
}

function stateOf(choice: Choice): Record<string, string> {
  return { testbed: choice.testbed.id, base: label(choice.base), head: label(choice.head), show: choice.show === "all" ? "" : choice.show };
}

function sidePicker(title: string, name: string, side: Side, versions: CatalogData["versions"][string], onChange: (side: Side) => void): HTMLElement[] {
  const runtimes = SITE_RUNTIMES.filter((r) => (versions[r] ?? []).length > 0);
  return [
    select(`${title} runtime`, `${name}-runtime`, runtimes.map((r): Option => [r, r]), side.runtime, (value) => {
      const runtime = value as RuntimeName;
      onChange({ runtime, version: versions[runtime]!.at(-1)! });
    }),
    select(`${title} version`, `${name}-version`, [...(versions[side.runtime] ?? [])].reverse().map((v): Option => [v, v]), side.version, (version) => onChange({ runtime: side.runtime, version })),
  ];
}

function verdictCell(row: CompareRow): HTMLElement {
  const kind = row.verdict === "faster" ? "faster" : row.verdict === "slower" ? "slower" : "same";
  return h("span", { class: `verdict verdict-${kind}` }, row.verdict);
}

/** A pooled median; how many runs it pools shows on hover, to keep the table narrow enough for its verdicts. */
function pooled(median: number, unit: string, runs: number): HTMLElement {
  return h("span", { title: `median of ${runs} run${runs === 1 ? "" : "s"}, samples pooled` }, `${formatNumber(median)} ${unit}`);
}

function minEffectText(row: CompareRow): string {
  const source = row.min_effect_source === "noise floor" ? "noise" : row.min_effect_source === "run-to-run shift" ? "shift" : row.min_effect_source;
  return `${formatPercent(row.min_effect)} ${source}`;
}

/** A load point (`connections=10,keepalive=true,…`) is one long word: it may wrap after each comma. */
function breakable(text: string): HTMLElement {
  const parts = text.split(",");
  return h("span", {}, ...parts.flatMap((part, i) => (i < parts.length - 1 ? [`${part},`, h("wbr")] : [part])));
}

/** Every comparison as a table row, with its interval drawn on a log scale shared by all rows. */
function rowsTable(rows: readonly ExplainedRow[]): HTMLElement {
  const span = ratioDomain(rows);
  return dataTable(
    [
      { title: "scenario", cell: (r) => breakable(cellLabel(r)) },
      { title: "metric", cell: (r) => metricLabel(r.metric) },
      { title: "base", numeric: true, cell: (r) => pooled(r.base_median, r.unit, r.base_runs) },
      { title: "head", numeric: true, cell: (r) => pooled(r.head_median, r.unit, r.head_runs) },
      // The interval under its ratio, in one column: the verdict stays in view at 1,280 px.
      {
        title: "head / base, 95 % CI",
        numeric: true,
        cell: (r) =>
          h(
            "span",
            {},
            r.ratio === null ? "" : `×${r.ratio.toFixed(3)} (${formatChange(r.ratio)})`,
            r.ci95 ? h("div", { class: "muted" }, `${formatInterval(r.ci95)}${r.alpha === undefined ? "" : ` paired: ${formatConfidence(r.alpha)}, ${r.pairs} pairs`}`) : null,
          ),
      },
      { title: "×1", cell: (r) => ratioGlyph(r, span) },
      { title: "series detects", numeric: true, cell: (r) => h("span", { class: "detectable", title: DETECTABLE_HELP.replace("this series", "these series") }, detectableLabel(r.noise_floor)) },
      // The minimum effect sits under the verdict it decides, not in a column of its own: the verdict stays in view at 1,280 px.
      // A calls total names the calls that changed most under its verdict: the explanation of the change.
      {
        title: "verdict, min. effect",
        cell: (r) =>
          h(
            "span",
            {},
            verdictCell(r),
            h("div", { class: "muted" }, `min. effect ${minEffectText(r)}`),
            r.reason ? h("div", { class: "muted" }, r.reason) : null,
            r.syscall_changes ? h("div", { class: "muted" }, `calls: ${formatSyscallDiff(r.syscall_changes)}`) : null,
          ),
      },
    ],
    rows,
    { stacked: true },
  );
}

const CSV_COLUMNS = ["suite", "scenario", "scenario_version", "app", "params", "metric", "unit", "better", "base_runtime", "base_version", "head_runtime", "head_version", "base_runner", "base_runs", "head_runs", "base_median", "head_median", "ratio", "ci95_low", "ci95_high", "noise_floor", "min_effect", "min_effect_source", "verdict", "reason"] as const;

function rowsCsv(rows: readonly CompareRow[]): string {
  const field = (value: unknown) => {
    const text = value === null || value === undefined ? "" : typeof value === "object" ? Object.entries(value).map(([k, v]) => `${k}=${String(v)}`).join(",") : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = rows.map((r) => {
    const flat: Record<string, unknown> = { ...r, ci95_low: r.ci95?.[0] ?? null, ci95_high: r.ci95?.[1] ?? null };
    return CSV_COLUMNS.map((c) => field(flat[c])).join(",");
  });
  return `${[CSV_COLUMNS.join(","), ...lines].join("\r\n")}\r\n`;
}

function blobLink(text: string, type: string, file: string, title: string): HTMLElement {
  return h("a", { href: URL.createObjectURL(new Blob([text], { type })), download: file }, title);
}

/** Runs the comparison in a worker (assets/compare-worker.js, of the same build as this script). */
function computeRows(choice: Choice): Promise<ExplainedRow[]> {
  const { testbed, base, head } = choice;
  const absolute = (path: string) => new URL(path, document.baseURI).href;
  const request: CompareRequest = {
    base: absolute(compareBundlePath(testbed.id, base.runtime, base.version)),
    head: absolute(compareBundlePath(testbed.id, head.runtime, head.version)),
    histories: [...new Set([base.runtime, head.runtime])].map((r) => absolute(compareHistoryPath(testbed.id, r))),
  };
  const script = new URL(import.meta.url);
  const worker = new Worker(new URL(`compare-worker.js${script.search}`, script), { type: "module" });
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<CompareReply>) => {
      worker.terminate();
      if ("rows" in event.data) resolve(event.data.rows);
      else reject(new Error(event.data.error));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message || "the comparison worker failed to start"));
    };
    worker.postMessage(request);
  });
}

export async function comparePage(): Promise<void> {
  const catalog = await fetchJson<CatalogData>("data/catalog.json");
  const root = byId("compare");
  const controls = byId("compare-controls");
  let current = resolveChoice(readState(), catalog);
  if (!current) {
    root.replaceChildren(h("p", { class: "empty" }, "No results yet: run scripts/bench, then build the site again."));
    return;
  }

  const render = async (choice: Choice) => {
    current = choice;
    writeState(stateOf(choice));
    const versions = catalog.versions[choice.testbed.id]!;
    const change = (next: Partial<Choice>) => void render({ ...choice, ...next }).catch(showError);
    const machines = catalog.testbeds.filter((t) => Object.keys(catalog.versions[t.id] ?? {}).length > 0);
    const swap = h("button", { type: "button", class: "swap", title: "Swap base and head" }, "⇄ Swap");
    swap.addEventListener("click", () => change({ base: choice.head, head: choice.base }));
    controls.replaceChildren(
      ...present(
        select("Machine", "testbed", machines.map((t): Option => [t.id, machineLabel(t)]), choice.testbed.id, (id) => {
          const next = resolveChoice({ ...stateOf(choice), testbed: id }, catalog)!;
          void render(next).catch(showError);
        }),
        ...sidePicker("Base", "base", choice.base, versions, (base) => change({ base })),
        h("div", { class: "control" }, h("span", { class: "label" }, "\u00a0"), swap),
        ...sidePicker("Head", "head", choice.head, versions, (head) => change({ head })),
        segmented("Rows", "show", [["all", "All"], ["changes", "Changes only"]], choice.show, (show) => change({ show: show === "changes" ? "changes" : "all" })),
        presets(choice, catalog),
      ),
    );
    root.replaceChildren(h("p", { class: "loading" }, `Comparing ${label(choice.head)} with ${label(choice.base)} on ${choice.testbed.runner}…`));
    const computed = await computeRows(choice);
    if (current !== choice) return; // the reader chose again meanwhile
    const rows = computed
      .filter((r) => choice.show === "all" || r.verdict === "faster" || r.verdict === "slower")
      .sort((a, b) => cellLabel(a).localeCompare(cellLabel(b), "en", { numeric: true }) || a.metric.localeCompare(b.metric));
    const counts = (verdict: CompareRow["verdict"]) => computed.filter((r) => r.verdict === verdict).length;
    const title = `${label(choice.head)} against ${label(choice.base)} on ${choice.testbed.runner}`;
    const figure = h(
      "figure",
      { class: "chart", "data-chart": "ratios", "data-base": label(choice.base), "data-head": label(choice.head) },
      h("figcaption", {}, `Head / base: ratio of medians and its 95 % interval; the ×1 column draws it on a log scale (left of the line: head is smaller). A verdict needs the interval to exclude 1 and the change to beat the minimum effect, in each metric's own direction.`),
      rowsTable(rows),
    );
    const file = `compare-${label(choice.base)}-vs-${label(choice.head)}-${choice.testbed.id}`.replace(/[^A-Za-z0-9._=,@+-]/g, "_");
    root.replaceChildren(
      h(
        "section",
        { class: "card" },
        h("div", { class: "card-head" }, h("h2", {}, title)),
        h("p", { class: "summary-line", id: "compare-summary" }, `${computed.length} comparisons: ${counts("faster")} faster, ${counts("slower")} slower, ${counts("inconclusive")} inconclusive, ${counts("no significant change")} with no significant change${counts("not comparable") ? `, ${counts("not comparable")} not comparable` : ""}. ${choice.testbed.kind === "local" ? "Measured on a local machine." : ""}`),
        rows.length > 0 ? figure : h("p", { class: "empty" }, computed.length > 0 ? "No significant change: every comparison is within its noise." : "These two versions have no scenario in common on this machine."),
        h(
          "div",
          { class: "chart-foot" },
          h("span", {}, "Same function as ", h("code", {}, "scripts/bench compare"), ", with every result of this machine as history for the noise floors."),
          h("span", { class: "downloads" }, "Data:", blobLink(JSON.stringify(rows, null, 1), "application/json", `${file}.json`, "JSON"), blobLink(rowsCsv(rows), "text/csv", `${file}.csv`, "CSV")),
        ),
      ),
    );
    if (rows.length > 0) markChartDrawn(figure);
  };
  const showError = (error: unknown) => {
    root.replaceChildren(h("p", { class: "error", role: "alert" }, `This comparison could not be computed: ${error instanceof Error ? error.message : String(error)}`));
    console.error(error);
  };
  await render(current);
}
