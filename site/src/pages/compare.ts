import type { ExplainedRow } from "../../../src/compare/syscall-diff.ts";
import { verdictCounts } from "../../../src/compare/format.ts";
import { compareVersions } from "../../../src/compare/series-key.ts";
import type { RuntimeName } from "../../../src/runtimes/catalog.ts";
import { compareBundlePath, compareHistoryPath, compareSuites } from "../../../src/site/compare-data.ts";
import { SITE_RUNTIMES, defaultPair, machineLabel, type CatalogData, type Side, type TestbedRef } from "../../../src/site/model.ts";
import { segmented, select, type Option } from "../controls.ts";
import type { CompareReply, CompareRequest } from "../compare-worker.ts";
import { fetchJson } from "../data.ts";
import { byId, h, present } from "../dom.ts";
import { markChartDrawn } from "../render.ts";
import { pageLink, readState, writeState } from "../state.ts";
import { fileLink } from "../table.ts";
import { inReadingOrder, rowsCsv, rowsTable } from "./compare-table.ts";

interface Choice {
  testbed: TestbedRef;
  base: Side;
  head: Side;
  /** Every comparison, or only the changes (faster or slower, or a memory or count lower or higher). */
  show: "all" | "changes";
  /** One suite, or "" for every suite the machine has. */
  suite: string;
}

const label = (side: Side) => `${side.runtime}@${side.version}`;

function parseSide(text: string | undefined): Side | null {
  const match = /^(node|deno|bun)@(.+)$/.exec(text ?? "");
  return match ? { runtime: match[1] as RuntimeName, version: match[2]! } : null;
}

/** The reader's choice from the query string, side by side; by default, `defaultPair`. */
function resolveChoice(query: Record<string, string>, catalog: CatalogData): Choice | null {
  const testbeds = catalog.testbeds.filter((t) => Object.keys(catalog.versions[t.id] ?? {}).length > 0);
  const opening = catalog.compare_default;
  const testbed = testbeds.find((t) => t.id === query.testbed) ?? testbeds.find((t) => t.runner === query.testbed) ?? testbeds.find((t) => t.id === opening?.testbed) ?? testbeds[0];
  if (!testbed) return null;
  const versions = catalog.versions[testbed.id]!;
  const valid = (side: Side | null): side is Side => side !== null && (versions[side.runtime] ?? []).includes(side.version);
  const wantedBase = parseSide(query.base);
  const wantedHead = parseSide(query.head);
  const fallback = opening?.testbed === testbed.id ? opening : defaultPair(versions);
  const head: Side = valid(wantedHead) ? wantedHead : fallback.head;
  const base: Side = valid(wantedBase) ? wantedBase : fallback.base;
  const suite = compareSuites(catalog, testbed.id).includes(query.suite ?? "") ? query.suite! : "";
  return { testbed, base, head, show: query.show === "changes" ? "changes" : "all", suite };
}

function stateOf(choice: Choice): Record<string, string> {
  return { testbed: choice.testbed.id, base: label(choice.base), head: label(choice.head), show: choice.show === "all" ? "" : choice.show, suite: choice.suite };
}

/**
 * Two runtimes' newest releases on the chosen machine's runner and architecture, on the first of its
 * machines (the chosen one first) that measured both: a reference testbed's hosts each hold a part
 * of its history, and the newest releases side by side are on one of them. Null where none did.
 */
function newestTogether(choice: Choice, catalog: CatalogData, a: RuntimeName, b: RuntimeName): Choice | null {
  const machines = catalog.testbeds.filter((t) => t.runner === choice.testbed.runner && t.arch === choice.testbed.arch);
  const ordered = [choice.testbed, ...machines.filter((t) => t.id !== choice.testbed.id)];
  const newestOf = (r: RuntimeName) => machines.flatMap((t) => catalog.versions[t.id]?.[r] ?? []).sort(compareVersions).at(-1);
  const [base, head] = [{ runtime: a, version: newestOf(a) }, { runtime: b, version: newestOf(b) }];
  const holds = (t: TestbedRef, side: { runtime: RuntimeName; version: string | undefined }) => side.version !== undefined && (catalog.versions[t.id]?.[side.runtime] ?? []).includes(side.version);
  const testbed = ordered.find((t) => holds(t, base) && holds(t, head));
  return testbed === undefined ? null : { ...choice, testbed, base: { runtime: a, version: base.version! }, head: { runtime: b, version: head.version! } };
}

/** A few comparisons readers ask for, one click away. */
function presets(choice: Choice, catalog: CatalogData): HTMLElement {
  const versions = catalog.versions[choice.testbed.id]!;
  const available = SITE_RUNTIMES.filter((r) => (versions[r] ?? []).length > 0);
  const newest = (r: RuntimeName) => versions[r]!.at(-1)!;
  const links: [string, Choice][] = [];
  // A runtime's newest release beside the one it was measured with may be on another machine of the runner.
  for (const r of SITE_RUNTIMES) {
    const list = versions[r] ?? [];
    const released = catalog.release_pairs[choice.testbed.runner]?.[r];
    const testbed = catalog.testbeds.find((t) => t.id === released?.testbed);
    if (released && testbed) links.push([`${r} newest vs previous`, { ...choice, testbed, base: released.base, head: released.head }]);
    else if (list.length > 1) links.push([`${r} newest vs previous`, { ...choice, base: { runtime: r, version: list[list.length - 2]! }, head: { runtime: r, version: newest(r) } }]);
  }
  for (const [i, a] of SITE_RUNTIMES.entries()) {
    for (const b of SITE_RUNTIMES.slice(i + 1)) {
      const here = available.includes(a) && available.includes(b) ? { ...choice, base: { runtime: a, version: newest(a) }, head: { runtime: b, version: newest(b) } } : null;
      const pick = newestTogether(choice, catalog, a, b) ?? here;
      if (pick) links.push([`${b} vs ${a}, newest`, pick]);
    }
  }
  return h(
    "div",
    { class: "control" },
    h("span", { class: "label" }, "Quick picks"),
    h("div", { class: "presets" }, ...links.map(([text, c]) => h("a", { class: "preset", href: pageLink("compare.html", stateOf(c)) }, text))),
  );
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

/**
 * The page's one comparison worker (assets/compare-worker.js, of the same build as this script):
 * it answers one suite at a time, so the first table needs only the first suite's files.
 */
class Comparer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (rows: ExplainedRow[]) => void; reject: (error: Error) => void }>();
  private next = 0;

  constructor() {
    const script = new URL(import.meta.url);
    this.worker = new Worker(new URL(`compare-worker.js${script.search}`, script), { type: "module" });
    this.worker.onmessage = (event: MessageEvent<CompareReply>) => {
      const reply = event.data;
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ("rows" in reply) waiter?.resolve(reply.rows);
      else waiter?.reject(new Error(reply.error));
    };
    this.worker.onerror = (event) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(event.message || "the comparison worker failed to start"));
      this.waiting.clear();
    };
  }

  /** The rows of one suite for the choice. */
  rows(choice: Choice, suite: string): Promise<ExplainedRow[]> {
    const { testbed, base, head } = choice;
    const absolute = (path: string) => new URL(path, document.baseURI).href;
    const request: CompareRequest = {
      id: this.next++,
      base: absolute(compareBundlePath(testbed.id, base.runtime, base.version, suite)),
      head: absolute(compareBundlePath(testbed.id, head.runtime, head.version, suite)),
      histories: [...new Set([base.runtime, head.runtime])].map((r) => absolute(compareHistoryPath(testbed.id, r, suite))),
    };
    return new Promise((resolve, reject) => {
      this.waiting.set(request.id, { resolve, reject });
      this.worker.postMessage(request);
    });
  }
}

export async function comparePage(): Promise<void> {
  const catalog = await fetchJson<CatalogData>("data/catalog.json");
  const choice = resolveChoice(readState(), catalog);
  if (!choice) {
    byId("compare").replaceChildren(h("p", { class: "empty" }, "No results yet: run scripts/bench, then build the site again."));
    return;
  }
  new ComparisonView(catalog, new Comparer()).show(choice);
}

/**
 * One comparison on the page: its controls, then its rows, suite by suite. The first suite's rows
 * are drawn as soon as they are computed; the next suite is fetched when the end of the table
 * comes near the screen, or at once when a filter leaves it there.
 */
class ComparisonView {
  private choice!: Choice;
  private suites: string[] = [];
  private rows: ExplainedRow[] = [];
  private done = 0;
  private loading = false;
  private readonly root = byId("compare");
  private readonly controls = byId("compare-controls");
  private readonly observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) void this.loadNext();
  }, { rootMargin: "0px 0px 800px 0px" });
  private figure: HTMLElement | null = null;

  constructor(
    private readonly catalog: CatalogData,
    private readonly comparer: Comparer,
  ) {}

  show(choice: Choice): void {
    this.choice = choice;
    this.suites = choice.suite ? [choice.suite] : compareSuites(this.catalog, choice.testbed.id);
    this.rows = [];
    this.done = 0;
    this.loading = false;
    this.figure = null;
    writeState(stateOf(choice));
    this.controls.replaceChildren(...this.controlElements(choice));
    this.root.replaceChildren(h("p", { class: "loading" }, `Comparing ${label(choice.head)} with ${label(choice.base)} on ${choice.testbed.runner}…`));
    void this.loadNext();
  }

  private controlElements(choice: Choice): HTMLElement[] {
    const versions = this.catalog.versions[choice.testbed.id]!;
    const change = (next: Partial<Choice>) => this.show({ ...choice, ...next });
    const machines = this.catalog.testbeds.filter((t) => Object.keys(this.catalog.versions[t.id] ?? {}).length > 0);
    const swap = h("button", { type: "button", class: "swap", title: "Swap base and head" }, "⇄ Swap");
    swap.addEventListener("click", () => change({ base: choice.head, head: choice.base }));
    const suites = compareSuites(this.catalog, choice.testbed.id);
    return present(
      select("Machine", "testbed", machines.map((t): Option => [t.id, machineLabel(t)]), choice.testbed.id, (id) => this.show(resolveChoice({ ...stateOf(choice), testbed: id }, this.catalog)!)),
      ...sidePicker("Base", "base", choice.base, versions, (base) => change({ base })),
      h("div", { class: "control" }, h("span", { class: "label" }, "\u00a0"), swap),
      ...sidePicker("Head", "head", choice.head, versions, (head) => change({ head })),
      select("Suite", "suite", [["", "every suite"], ...suites.map((s): Option => [s, s])], choice.suite, (suite) => change({ suite })),
      segmented("Rows", "show", [["all", "All"], ["changes", "Changes only"]], choice.show, (show) => change({ show: show === "changes" ? "changes" : "all" })),
      presets(choice, this.catalog),
    );
  }

  /** Computes the next suite's rows and draws them under the others. */
  private async loadNext(): Promise<void> {
    if (this.loading || this.done >= this.suites.length) return;
    const choice = this.choice;
    this.loading = true;
    try {
      const rows = await this.comparer.rows(choice, this.suites[this.done]!);
      if (choice !== this.choice) return; // the reader chose again meanwhile
      this.rows.push(...inReadingOrder(rows));
      this.done += 1;
      this.draw();
    } catch (error) {
      if (choice !== this.choice) return;
      this.root.replaceChildren(h("p", { class: "error", role: "alert" }, `This comparison could not be computed: ${error instanceof Error ? error.message : String(error)}`));
      console.error(error);
    } finally {
      if (choice === this.choice) this.loading = false;
    }
  }

  private draw(): void {
    const { choice } = this;
    const shown = this.rows.filter((r) => choice.show === "all" || r.verdict === "faster" || r.verdict === "slower");
    const complete = this.done >= this.suites.length;
    const title = `${label(choice.head)} against ${label(choice.base)} on ${choice.testbed.runner}`;
    const compared = this.suites.slice(0, this.done);
    const scope = complete ? "" : ` in ${compared.join(", ")} (${this.done} of ${this.suites.length} suites; the others are compared as you scroll)`;
    const file = `compare-${label(choice.base)}-vs-${label(choice.head)}-${choice.testbed.id}${choice.suite ? `-${choice.suite}` : ""}`.replace(/[^A-Za-z0-9._=,@+-]/g, "_");
    const more = complete ? null : h("p", { class: "loading more", id: "compare-more" }, `Comparing ${this.suites[this.done]}…`);
    const empty = this.rows.length > 0 ? "No change: every comparison so far is within its noise, or undecided." : "These two versions have no scenario in common on this machine.";
    this.figure = shown.length > 0 ? this.tableFigure(shown) : null;
    this.root.replaceChildren(
      h(
        "section",
        { class: "card" },
        h("div", { class: "card-head" }, h("h2", {}, title)),
        h("p", { class: "summary-line", id: "compare-summary" }, `${this.rows.length} comparisons${scope}: ${verdictCounts(this.rows)}. ${choice.testbed.kind === "local" ? "Measured on a local machine." : ""}`),
        this.figure ?? (complete ? h("p", { class: "empty" }, empty) : null),
        more,
        h(
          "div",
          { class: "chart-foot" },
          h("span", {}, "Same function as ", h("code", {}, "scripts/bench compare"), ", with every result of this machine as history for the noise floors."),
          h("span", { class: "downloads" }, `Data${complete ? "" : " (the rows so far)"}:`, fileLink("JSON", `${file}.json`, "application/json", () => JSON.stringify(shown, null, 1)), fileLink("CSV", `${file}.csv`, "text/csv", () => rowsCsv(shown))),
        ),
      ),
    );
    if (this.figure) markChartDrawn(this.figure);
    this.observer.disconnect();
    // Observing again reports at once whether the end of the table is still near the screen.
    if (more) this.observer.observe(more);
  }

  private tableFigure(rows: readonly ExplainedRow[]): HTMLElement {
    const { choice } = this;
    return h(
      "figure",
      { class: "chart", "data-chart": "ratios", "data-base": label(choice.base), "data-head": label(choice.head), "data-suites": this.done },
      h("figcaption", {}, "Head / base: ratio of medians and its interval, at the confidence of the rule that judged the row (a release beside its predecessor: sequential; two subjects of one run: a single look; two separate runs: 95 % with the series' noise); the ×1 column draws it on a log scale (left of the line: head is smaller). A verdict needs the interval to exclude 1 and the change to beat the minimum effect, in each metric's own direction."),
      rowsTable(rows),
    );
  }
}
