/**
 * The trend site in real headless Chromium (Debian's package, driven by playwright-core), built
 * from a small synthetic history and served by `scripts/bench site --serve` below a sub-path, as
 * a GitHub Pages project site is. Screenshots of every page, light and dark, desktop and phone,
 * go to tests/artifacts/site/ for review.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { REPO_ROOT } from "../../src/core/paths.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { writeResult } from "../../src/results/store.ts";
import { LOCAL_RUNNER, SYNTHETIC_RUNNERS, scaleSeries, writeSyntheticResults } from "../../benchmarks/lib/synthetic-results.ts";
import { linkRun, TESTBED_AMD, TESTBED_INTEL } from "../helpers/links.ts";

const ARTIFACTS = join(REPO_ROOT, "tests/artifacts/site");
const DEFAULT_RUN_FIXTURE = "tests/fixtures/default-run/results.json.gz";
const BASE = "/runtime-bench/";
const PAGES = ["index.html", "scenario.html", "compare.html", "findings.html", "regressions.html", "methodology.html"] as const;
const VIEWS = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

const servers: ChildProcess[] = [];
let siteUrl: string;
let browser: BrowserContext;

/** `scripts/bench site --serve` on a free port; resolves with the URL it prints. */
function startServer(dataDir: string, feedDir: string, outDir: string): Promise<string> {
  const server = spawn(join(REPO_ROOT, "scripts/bench"), ["site", "--data", dataDir, "--feed", feedDir, "--out", outDir, "--serve", "--base", BASE, "--port", "0"], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  servers.push(server);
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /serving .* at (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    server.stdout!.on("data", onData);
    server.stderr!.on("data", onData);
    server.once("exit", (code) => reject(new Error(`scripts/bench site exited with ${code}: ${output}`)));
  });
}

interface Opened {
  page: Page;
  /** Console errors, page errors and failed requests seen so far. */
  problems: string[];
}

async function open(path: string, options: { width?: number; height?: number; colorScheme?: "light" | "dark"; site?: string } = {}): Promise<Opened> {
  const page = await browser.newPage();
  await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 900 });
  await page.emulateMedia({ colorScheme: options.colorScheme ?? "light" });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  await page.goto(new URL(path, options.site ?? siteUrl).href);
  await ready(page);
  return { page, problems };
}

/** Waits until a page has drawn what it draws on opening (site/src/main.ts's `data-ready`): its charts, or its static content. */
async function ready(page: Page): Promise<void> {
  await page.waitForSelector("body[data-ready]", { timeout: 30_000 });
  const kind = await page.getAttribute("body", "data-page");
  // A chart page may settle before its chart is drawn: the compare page's rows come from its worker.
  if (kind === "overview" || kind === "scenario" || kind === "compare") {
    await page.waitForSelector("figure[data-drawn], .empty, .error", { timeout: 30_000 });
  }
}

/** The markup of the page's first chart of a kind, once drawn. */
async function chartMarkup(page: Page, selector: string): Promise<string> {
  await page.waitForSelector(`${selector}[data-drawn]`, { timeout: 30_000 });
  return page.$eval(`${selector} .chart-body`, (element) => element.innerHTML);
}

before(async () => {
  const dataDir = tempDir("site-browser-data");
  await writeSyntheticResults(dataDir, {
    runners: [...SYNTHETIC_RUNNERS, LOCAL_RUNNER],
    versionsPerRuntime: 8,
    runsPerVersion: 2,
    series: (await scaleSeries("quick")).filter((s) => (s.suite === "startup" && ["hello", "typescript"].includes(s.scenario)) || (s.suite === "http" && s.scenario === "json" && ["express", "hono"].includes(s.app ?? ""))),
    from: new Date("2025-01-01T00:00:00Z"),
    to: new Date("2026-01-01T00:00:00Z"),
    failureRate: 0.02,
    seed: 11,
    step: { runtime: "node", versionIndex: 5, factor: 1.35 },
  });
  // An app that no runtime supports sorts first: a trend page must not open on its empty series.
  const [x86] = SYNTHETIC_RUNNERS;
  for (const name of ["node", "bun", "deno"] as const) {
    await writeResult(dataDir, makeResult({
      run: { id: `20251231T000000Z-00000${["node", "bun", "deno"].indexOf(name)}`, runner: x86!.name, runner_kind: x86!.kind, started_at: "2025-12-31T00:00:00.000Z" },
      environment: { arch: x86!.arch, cpu_model: x86!.cpu_model, fingerprint: x86!.fingerprint },
      runtime: { name, version: "99.0.0" },
      suite: "http",
      scenario: "json",
      app: "a-unsupported",
      params: { connections: 64 },
      status: "unsupported",
      error: `app a-unsupported does not run on ${name}`,
      metrics: {},
    }));
  }
  const feedDir = tempDir("site-browser-feed");
  const feed = await bench(["regressions", "--data", dataDir, "--feed-dir", feedDir]);
  assert.equal(feed.code, 0, feed.stderr);
  siteUrl = await startServer(dataDir, feedDir, tempDir("site-browser-out"));
  browser = await chromium.launchPersistentContext(tempDir("site-browser-profile"), {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  for (const server of servers) server.kill("SIGTERM");
});

describe("the trend site in Chromium, served below a sub-path", () => {
  it("loads every page with no console error, light and dark, desktop and phone, with a screenshot of each", async (t) => {
    for (const view of VIEWS) {
      for (const colorScheme of ["light", "dark"] as const) {
        for (const path of PAGES) {
          const { page, problems } = await open(path, { ...view, colorScheme });
          await page.screenshot({ path: join(ARTIFACTS, `${path.replace(".html", "")}-${view.name}-${colorScheme}.png`), fullPage: true });
          assert.deepEqual(problems, [], `${path} (${view.name}, ${colorScheme})`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${path} (${view.name}) is ${overflow}px wider than the screen`);
          await page.close();
        }
      }
    }
    t.diagnostic(`screenshots: ${ARTIFACTS}`);
  });

  it("draws the overview's bars for both architectures, naming node, bun and deno, with runner and date", async () => {
    const { page, problems } = await open("index.html");
    assert.ok(page.url().includes(BASE));
    const cards = await page.$$eval("figure[data-chart=bars]", (figures) => figures.length);
    assert.equal(cards, 3, "one card per scenario: hello, typescript, json");
    assert.equal(await page.$$eval("figure[data-chart=bars]:not([data-drawn])", (f) => f.length), 0);
    const text = await page.$eval("figure[data-chart=bars] svg", (svg) => svg.textContent ?? "");
    for (const expected of ["node", "bun", "deno", "x86_64", "arm64", "bench-x86-1", "bench-arm-1", "2025-"]) assert.ok(text.includes(expected), `overview chart names ${expected}`);
    const widths = await page.$$eval("figure[data-chart=bars] rect.bar", (bars) => bars.map((b) => Number(b.getAttribute("width"))));
    assert.ok(widths.length >= 3 * 2 * 3 - 2 && widths.every((w) => w > 0), `bars are drawn: ${widths.join(", ")}`);
    assert.match(await page.$eval("figure[data-scenario=\"startup/hello\"] svg", (svg) => svg.getAttribute("aria-label") ?? ""), /^Wall time in ms, lower is better: x86_64: node /);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("changes the overview's charts with the architecture and the metric, and keeps them in the URL", async () => {
    const { page } = await open("index.html");
    const before = await chartMarkup(page, "figure[data-chart=bars]");
    await page.click('[data-control=arch] label:has-text("arm64")');
    const arm = await chartMarkup(page, "figure[data-chart=bars]");
    assert.ok(arm !== before, "the chart changed with the architecture");
    assert.ok(!arm.includes("x86_64") && arm.includes("arm64"));
    await page.selectOption("select[name=metric]", "peak_rss_mb");
    const memory = await chartMarkup(page, "figure[data-chart=bars]");
    assert.match(memory, /Peak memory \(RSS\) \(MB\)/);
    assert.match(page.url(), /arch=arm64/);
    assert.match(page.url(), /metric=peak_rss_mb/);
    const again = await open(page.url().slice(siteUrl.length));
    assert.ok((await chartMarkup(again.page, "figure[data-chart=bars]")) === memory, "the permalink draws the same chart");
    await again.page.close();
    await page.close();
  });

  it("draws trend lines with bands, switches architecture, metric, app and axis, and restores them from a permalink", async () => {
    const { page, problems } = await open("scenario.html?scenario=startup/hello");
    const x86 = await chartMarkup(page, "figure[data-chart=trend]");
    assert.equal(await page.$$eval("figure[data-chart=trend] path.line", (paths) => paths.filter((p) => (p.getAttribute("d") ?? "").split("L").length > 3).length), 3);
    assert.equal(await page.$$eval("figure[data-chart=trend] path.band-area", (paths) => paths.length), 3);
    await page.click('[data-control=arch] label:has-text("arm64")');
    await page.waitForSelector("figure[data-chart=trend][data-arch=arm64]");
    const arm = await chartMarkup(page, "figure[data-chart=trend]");
    assert.ok(arm !== x86, "the chart changed with the architecture");
    // startup/hello records its counts too: more metrics than buttons hold, so a list.
    await page.selectOption("select[name=metric]", "peak_rss_mb");
    await page.waitForSelector("figure[data-chart=trend][data-metric=peak_rss_mb]");
    const memory = await chartMarkup(page, "figure[data-chart=trend]");
    assert.ok(memory !== arm, "the chart changed with the metric");
    assert.match(memory, /MB · lower is better/);
    await page.click('[data-control=x] label:has-text("By run date")');
    await page.waitForSelector("figure[data-chart=trend][data-axis=date]");
    const byDate = await chartMarkup(page, "figure[data-chart=trend]");
    assert.match(byDate, /run date \(UTC\)/);

    const permalink = page.url();
    assert.match(permalink, /arch=arm64/);
    const restored = await open(permalink.slice(siteUrl.length));
    assert.ok((await chartMarkup(restored.page, "figure[data-chart=trend]")) === byDate, "the permalink draws the same chart");
    assert.equal(await restored.page.$eval("select[name=metric]", (select) => (select as HTMLSelectElement).value), "peak_rss_mb");
    assert.equal(await restored.page.$eval('[data-control=arch] input:checked', (input) => (input as HTMLInputElement).value), "arm64");
    await restored.page.close();

    await page.selectOption("select[name=scenario]", "http/json");
    await page.waitForSelector("select[name=app]");
    const app = await page.$eval("select[name=app]", (select) => (select as HTMLSelectElement).value);
    const before = await chartMarkup(page, "figure[data-chart=trend]");
    await page.selectOption("select[name=app]", app === "express" ? "hono" : "express");
    await page.waitForFunction((previous) => document.querySelector("figure[data-chart=trend][data-drawn] .chart-body")?.innerHTML !== previous, before);
    assert.match(page.url(), /app=(hono|express)/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("shows a point's version, runner, date, samples and reproduce command on hover", async () => {
    const { page } = await open("scenario.html?scenario=startup/hello&arch=x86_64");
    await chartMarkup(page, "figure[data-chart=trend]");
    const panel = await page.$("figure[data-chart=trend] rect.hit");
    const box = (await panel!.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    const tooltip = await page.waitForSelector(".tooltip:not([hidden])");
    const text = (await tooltip.textContent()) ?? "";
    assert.match(text, /node \d+\.\d+\.\d+/);
    assert.match(text, /samples\d+/);
    assert.match(text, /bench-x86-1 \(dedicated, x86_64\)/);
    assert.match(text, /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    assert.match(text, /scripts\/bench run --suite startup --scenario hello --runtime node@\d+\.\d+\.\d+ --profile quick/);
    await page.close();
  });

  it("walks the points with the arrow keys, pins one with Enter and unpins it with Escape", async () => {
    const { page, problems } = await open("scenario.html?scenario=startup/hello&arch=x86_64");
    await chartMarkup(page, "figure[data-chart=trend]");
    await page.focus("figure[data-chart=trend] svg");
    const shown = () => page.$eval(".tooltip:not([hidden]) .tt-head", (head) => head.textContent ?? "");
    await page.keyboard.press("ArrowLeft");
    const previous = await shown();
    await page.keyboard.press("ArrowRight");
    const newest = await shown();
    assert.match(newest, /^node \d+\.\d+\.\d+/);
    assert.notEqual(newest, previous, "the right arrow moves to the next point");
    await page.keyboard.press("ArrowDown");
    assert.notEqual((await shown()).split(" ")[0], "node", "the down arrow moves to another runtime's line");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".tooltip.pinned:not([hidden]) button:has-text('Copy command')");
    await page.keyboard.press("Escape");
    await page.waitForSelector(".tooltip", { state: "hidden" });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("compares two versions, or two runtimes, in a table of every scenario with ratio, interval and verdict", async () => {
    const { page, problems } = await open("compare.html");
    await page.waitForSelector("figure[data-chart=ratios][data-drawn]");
    // Startup, then HTTP as the end of the table comes near the screen.
    await page.waitForSelector("#compare-more", { state: "detached" });
    const rows = await page.$$eval("figure[data-chart=ratios] tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
    const summary = (await page.$eval("#compare-summary", (p) => p.textContent ?? "")).match(/^(\d+) comparisons:/);
    assert.equal(rows.length, Number(summary?.[1]), "a row for every comparison");
    assert.ok(rows.length >= 2 + 4 * 3, `every metric of every series both versions measured: ${rows.length} rows`);
    assert.ok(rows.some((row) => row.startsWith("startup/")) && rows.some((row) => row.startsWith("http/")), "both suites are compared");
    // Two versions of separate runs: the interval at 95 %, and the rule that says so.
    for (const row of rows) assert.match(row, /×\d\.\d{3} \([+−]\d+\.\d %\)\[\d\.\d{3}, \d\.\d{3}\]95 %, separate runs(≥ \d+\.\d %|needs 6 runs).*(faster|slower|(lower|higher) \((better|worse)\)|no significant change|inconclusive.*(interval|needs))/);
    // A binary's size is no speed.
    for (const row of rows.filter((r) => r.includes("Binary size"))) assert.doesNotMatch(row, /faster|slower/, row);
    assert.ok(rows.some((row) => /(faster|slower|\((better|worse)\)|no significant change)min\./.test(row)), "some rows are decided");
    await page.selectOption("select[name=suite]", "http");
    await page.waitForFunction(() => document.querySelector("figure[data-chart=ratios][data-drawn]") && !document.querySelector("#compare-more"));
    const http = await page.$$eval("figure[data-chart=ratios] tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
    assert.ok(http.length > 0 && http.every((row) => row.startsWith("http/")), "the suite filter keeps its suite's rows");
    assert.match(page.url(), /suite=http/);
    await page.selectOption("select[name=suite]", "");
    // A quick pick is a link: leaving while a suite is still being compared would cancel its requests.
    await page.waitForFunction(() => document.querySelector("figure[data-chart=ratios][data-drawn]") && !document.querySelector("#compare-more"));
    await page.click("a.preset:has-text('bun vs node, newest')");
    await page.waitForSelector("figure[data-chart=ratios][data-head^='bun@'][data-drawn]");
    assert.match(page.url(), /base=node%40[\d.]+&head=bun%40[\d.]+/);
    assert.match(await page.$eval("#compare-summary", (p) => p.textContent ?? ""), /^\d+ comparisons( in [^:]+)?: \d+ worse, \d+ better, \d+ inconclusive, \d+ with no significant change/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("shows the regressions feed, links it as Atom, and marks its changes on the trend chart", async () => {
    const regressions = await open("regressions.html");
    assert.equal(await regressions.page.getAttribute('link[rel=alternate][type="application/atom+xml"]', "href"), "regressions.atom");
    const rows = await regressions.page.$$eval("tr.change-regression[id], tr.change-improvement[id]", (trs) => trs.map((tr) => Array.from((tr as HTMLTableRowElement).cells, (td) => (td.textContent ?? "").replace(/\s+/g, " ").trim()).join(" | ")));
    assert.ok(rows.some((row) => /^regression \| node 20\.0\.0 → 21\.0\.0 ?not narrowed to one release: \d+ releases between \(20\.\d+\.\d+ … 20\.\d+\.\d+\) \| startup\/hello \| Wall time \(ms, lower is better\) \| \+\d+\.\d %.*no release between measured beside both ends$/.test(row)), `the step is listed, with why it stands on its link: ${rows.length} rows`);
    assert.ok((await regressions.page.request.get(new URL("regressions.atom", siteUrl).href)).ok());
    // An Atom entry's link lands on its row below the sticky header, where the page is long enough to put it there.
    const anchors = await regressions.page.$$eval("tr.change-regression[id], tr.change-improvement[id]", (trs) => trs.map((tr) => tr.id));
    await regressions.page.goto(new URL(`regressions.html#${anchors[Math.floor(anchors.length / 2)]}`, siteUrl).href);
    const landed = await regressions.page.evaluate(() => ({
      row: document.querySelector(":target")!.getBoundingClientRect().top,
      header: document.querySelector(".site-header")!.getBoundingClientRect().bottom,
      atBottom: Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight,
    }));
    assert.ok(landed.row >= landed.header && (landed.row <= landed.header + 40 || landed.atBottom), `the linked row at ${landed.row} px, the header's bottom at ${landed.header} px`);
    assert.deepEqual(regressions.problems, []);
    await regressions.page.close();

    const trend = await open("scenario.html?scenario=startup/hello&arch=x86_64&metric=wall_ms");
    await chartMarkup(trend.page, "figure[data-chart=trend]");
    assert.ok((await trend.page.$$("figure[data-chart=trend] g.rt-node path[data-marker=regression]")).length >= 1, "a regression marker on node's line");
    const legend = (await trend.page.textContent("figure[data-chart=trend] .legend")) ?? "";
    assert.match(legend, /regression detected/);
    // Each line states the smallest change its series confirms, from its own runs.
    assert.match(legend, /node detects ≥ \d+\.\d %/);
    await trend.page.close();
  });

  it("lists a runtime far off the others on the Findings page, with every figure, its trend and its reproduction", async () => {
    // A site of its own: one cell on which Deno is far off Node and Bun.
    const findingsData = tempDir("site-browser-findings");
    const [x86] = SYNTHETIC_RUNNERS;
    for (const [name, mbs] of Object.entries({ node: 6433, bun: 6364, deno: 24 })) {
      await writeResult(findingsData, makeResult({
        run: { id: `20251230T000000Z-00000${["node", "bun", "deno"].indexOf(name)}`, runner: x86!.name, runner_kind: x86!.kind, started_at: "2025-12-30T00:00:00.000Z" },
        environment: { arch: x86!.arch, cpu_model: x86!.cpu_model, fingerprint: x86!.fingerprint },
        runtime: { name: name as "node", version: "99.0.0" },
        suite: "workers",
        scenario: "throughput",
        app: "worker-threads",
        params: { payload: "bytes", size: 1048576, batch: 64, transfer: false },
        metrics: { throughput_mb_s: metricOf([mbs, mbs * 1.01, mbs * 0.99], "MB/s", "higher") },
      }));
    }
    const site = await startServer(findingsData, tempDir("site-browser-findings-feed"), tempDir("site-browser-findings-out"));
    const { page, problems } = await open("findings.html", { site });
    const rows = await page.$$eval("table.findings tbody tr[id]", (trs) => trs.map((tr) => Array.from((tr as HTMLTableRowElement).cells, (td) => (td.textContent ?? "").replace(/\s+/g, " ").trim()).join(" | ")));
    assert.equal(rows.length, 1, rows.join("\n"));
    assert.match(rows[0]!, /^1 \| deno 99\.0\.0\s*far off the others \| workers\/throughput.* \| 26\d× slower.*one cell \| one cell 26\d\.\d× \(first cell\) \| deno 99\.0\.0: 24\.0 MB\/s.*node 99\.0\.0: 6433 MB\/s.*bun 99\.0\.0: 6364 MB\/s.* \| reproduction$/);
    const download = await page.getAttribute("table.findings a[download]", "href");
    assert.ok((await page.request.get(new URL(download!, site).href)).ok(), "the reproduction archive is served");
    assert.ok((await page.request.get(new URL("findings.atom", site).href)).ok());
    await page.screenshot({ path: join(ARTIFACTS, "findings-with-a-finding.png"), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("documents every runner and scenario on the methodology page", async () => {
    const methodology = await open("methodology.html");
    const text = (await methodology.page.textContent("main")) ?? "";
    for (const expected of ["bench-x86-1", "bench-arm-1", "local-laptop", "AMD EPYC 9454P", "Neoverse-N1", "suites/startup/hello/scenario.json", "bootstrap"]) assert.ok(text.includes(expected), expected);
    await methodology.page.close();
  });

  it("opens a trend page on a series with figures, not on an app every runtime left unsupported", async () => {
    const { page, problems } = await open("scenario.html?scenario=http/json&arch=x86_64");
    const apps = await page.$$eval("select[name=app] option", (options) => options.map((o) => (o as HTMLOptionElement).value));
    assert.ok(apps.includes("a-unsupported"), "the unsupported app is offered");
    const chosen = await page.$eval("select[name=app]", (element) => (element as HTMLSelectElement).value);
    assert.notEqual(chosen, "a-unsupported");
    await chartMarkup(page, "figure[data-chart=trend]");
    assert.ok((await page.$$eval("figure[data-chart=trend] path.line", (paths) => paths.length)) > 0, "its chart has lines of figures");
    assert.deepEqual(problems, []);
    await page.close();
  });
});

/**
 * A real default run (`scripts/bench run --default-selection`), its results kept in
 * tests/fixtures/default-run/ without what no page reads (tests/fixtures/default-run/README.md):
 * what a new user's site is made of, findings, zero samples, one-trial cells and all. Written
 * through the harness's writer, which checks each against the schema.
 */
async function realDefaultRun(): Promise<string> {
  const dir = tempDir("site-browser-real-run");
  const docs = JSON.parse(gunzipSync(readFileSync(join(REPO_ROOT, DEFAULT_RUN_FIXTURE))).toString("utf8")) as ResultDocument[];
  for (const doc of docs) await writeResult(dir, doc);
  return dir;
}

/**
 * Every cell of every suite in the full profile (what the dedicated machines run), on both
 * architectures, over a few versions: every page and trend with all its apps, load points and
 * metrics, quick to write and build. The five-year scale is benchmarks/site-scale.ts's.
 */
async function everySuiteHistory(): Promise<string> {
  const dir = tempDir("site-browser-every-suite");
  await writeSyntheticResults(dir, {
    runners: SYNTHETIC_RUNNERS,
    versionsPerRuntime: EVERY_SUITE_VERSIONS,
    runsPerVersion: 1,
    series: await scaleSeries("full"),
    from: new Date("2024-01-01T00:00:00Z"),
    to: new Date("2026-01-01T00:00:00Z"),
    failureRate: 0.005,
    seed: 1,
  });
  return dir;
}

const EVERY_SUITE_VERSIONS = 5;

const DATA_SETS = [
  { name: "real default run", data: realDefaultRun, versions: 1 },
  { name: "every-suite", data: everySuiteHistory, versions: EVERY_SUITE_VERSIONS },
] as const;

/** How far each table's last column reaches past the screen, and how far each table scrolls sideways: both 0 when every column is in view. */
async function tablesPastScreen(page: Page): Promise<string[]> {
  // The tables folded under charts count too: unfolded, they are built and laid out.
  await page.$$eval("main details:not([open])", (folded) => folded.forEach((d) => ((d as HTMLDetailsElement).open = true)));
  await page.waitForTimeout(100);
  return page.$$eval("main table", (tables) =>
    tables.flatMap((table) => {
      const last = table.querySelector("thead th:last-child, tr > :last-child");
      const right = last ? Math.ceil(last.getBoundingClientRect().right - document.documentElement.clientWidth) : 0;
      const scroller = table.closest(".table-scroll");
      const sideways = scroller ? scroller.scrollWidth - scroller.clientWidth : 0;
      const name = `${table.className || "table"} (${table.querySelector("thead")?.textContent?.replace(/\s+/g, " ").trim().slice(0, 60) ?? ""})`;
      return right > 0 || sideways > 0 ? [`${name}: last column ${right}px past the screen, ${sideways}px of sideways scroll`] : [];
    }),
  );
}

for (const set of DATA_SETS) {
  describe(`the site with the ${set.name} data`, () => {
    let site: string;
    before(async () => {
      const dataDir = await set.data();
      const feedDir = tempDir(`site-browser-feed-${set.name}`);
      const feed = await bench(["regressions", "--data", dataDir, "--feed-dir", feedDir]);
      assert.equal(feed.code, 0, feed.stderr);
      site = await startServer(dataDir, feedDir, tempDir(`site-browser-out-${set.name}`));
      mkdirSync(ARTIFACTS, { recursive: true });
    });

    it("opens every page, and the trend of every scenario, at 1,280 px with no console error, no empty choice and every table's columns in view", async () => {
      const catalog = (await (await fetch(new URL("data/catalog.json", site))).json()) as { scenarios: { suite: string; scenario: string }[] };
      const trends = catalog.scenarios.map((c) => `scenario.html?scenario=${c.suite}/${c.scenario}`);
      for (const path of [...PAGES, ...trends]) {
        const { page, problems } = await open(path, { site });
        assert.deepEqual(problems, [], path);
        const empty = await page.$$eval("[data-control] option, [data-control] label span", (items) => items.filter((item) => (item.textContent ?? "").trim() === "").length);
        assert.equal(empty, 0, `${path}: a control offers an empty choice`);
        const negative = await page.$$eval("figure[data-chart] .axis text", (texts) => texts.map((t) => t.textContent ?? "").filter((t) => /^[-−]\d/.test(t)));
        assert.deepEqual(negative, [], `${path}: an axis runs below zero`);
        assert.deepEqual(await tablesPastScreen(page), [], `${path}: a table's columns run past the screen`);
        await page.close();
      }
    });

    it("fits every page, and every other trend, on a 390 px phone", async () => {
      const catalog = (await (await fetch(new URL("data/catalog.json", site))).json()) as { scenarios: { suite: string; scenario: string }[] };
      const trends = catalog.scenarios.filter((_, i) => i % 2 === 0).map((c) => `scenario.html?scenario=${c.suite}/${c.scenario}`);
      for (const path of [...PAGES, ...trends]) {
        const { page, problems } = await open(path, { site, width: 390, height: 844 });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow}px wider than a 390 px phone`);
        assert.deepEqual(problems, [], path);
        if (path === "findings.html" || path === "compare.html") await page.screenshot({ path: join(ARTIFACTS, `${path.replace(".html", "")}-phone-${set.name.replaceAll(" ", "-")}.png`), fullPage: true });
        await page.close();
      }
    });

    it("compares every suite as the reader scrolls, every interval drawn at a number, with no console error", async () => {
      const { page, problems } = await open("compare.html", { site });
      await page.waitForSelector("figure[data-chart=ratios][data-drawn]");
      // Each suite is compared when the end of the table nears the screen, and one compared slowly (a busy
      // machine) needs the reader to scroll again once it is drawn: scroll until none is left.
      const deadline = Date.now() + 60_000;
      while ((await page.$("#compare-more")) && Date.now() < deadline) {
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await page.waitForTimeout(300);
      }
      assert.equal(await page.$("#compare-more"), null, `every suite compared within a minute of scrolling (${problems.join("; ")})`);
      const summary = (await page.textContent("#compare-summary")) ?? "";
      const rows = await page.$$eval("figure[data-chart=ratios] tbody tr", (trs) => trs.length);
      assert.equal(rows, Number(/^(\d+) comparisons:/.exec(summary)?.[1]), `every comparison is a row: ${summary}`);
      const notANumber = await page.$$eval("figure[data-chart=ratios] svg *", (elements) => elements.filter((e) => [...e.attributes].some((a) => /NaN|Infinity/.test(a.value))).length);
      assert.equal(notANumber, 0, "an interval drawn at a position that is not a number");
      const rules = await page.$$eval("figure[data-chart=ratios] tbody .rule", (cells) => [...new Set(cells.map((c) => (c.textContent ?? "").replace(/^[\d.]+ %, /, "").replace(/, \d+ pairs?(, \d+\.\d df moderated over \d+ cells)?$/, "")))]);
      assert.ok(rules.length > 0 && rules.every((rule) => ["sequential", "single look", "separate runs"].includes(rule)), `each row names its rule: ${rules.join(", ")}`);
      await page.screenshot({ path: join(ARTIFACTS, `compare-all-suites-${set.name.replaceAll(" ", "-")}.png`) });
      assert.deepEqual(problems, []);
      await page.close();
    });

    it("leads the overview with startup and HTTP, and labels metrics as words with their unit", async () => {
      const { page, problems } = await open("index.html", { site });
      const headings = await page.$$eval("h2.suite-heading", (h2s) => h2s.map((h2) => h2.textContent));
      assert.deepEqual(headings.slice(0, 2), ["startup", "http"]);
      if (set.versions === 1) {
        const metrics = await page.$$eval("select[name=metric] option", (options) => options.map((o) => o.textContent));
        assert.ok(metrics.includes("Throughput (MB/s)"), metrics.join(", "));
        // What one run can say comes first: the one version of each runtime, and where the rest is.
        const lead = (await page.textContent("#overview > :first-child")) ?? "";
        assert.match(lead, /^One version of each runtime: node \d+\.\d+\.\d+, deno \d+\.\d+\.\d+, bun \d+\.\d+\.\d+/);
        assert.match(lead, /Findings lists the largest gaps/);
        // No install app runs on two runtimes: the card joins each runtime's own package manager, at
        // the manifest's headline state (clean: every manager asks the registry).
        const install = (await page.textContent("#card-install-small figure")) ?? "";
        assert.match(install, /npm on node, deno on deno, bun on bun · registry=local, state=clean/);
        const bars = await page.$$eval("#card-install-small g[data-runtime]", (groups) => groups.map((g) => `${g.getAttribute("data-runtime")} ${g.querySelector(".bar-sub")?.textContent?.split(" · ")[0]}`));
        assert.deepEqual(bars, ["node npm", "deno deno", "bun bun"]);
        // A trend page draws one app's series: the joined card links each manager's.
        const trends = await page.$$eval("#card-install-small .card-head a", (links) => links.map((a) => `${a.textContent} ${new URL(a.getAttribute("href")!, location.href).searchParams.get("app")}`));
        assert.deepEqual(trends, ["npm npm", "deno deno", "bun bun"]);
      } else {
        assert.equal(await page.$("#one-run"), null, "a history of several versions needs no first-run lead");
      }
      assert.deepEqual(problems, []);
      await page.close();
    });

    it(set.versions === 1 ? "says on the Trends page that one version is not a trend, and how to get one" : "draws trends without the first-run note", async () => {
      const { page, problems } = await open("scenario.html?scenario=startup/hello", { site });
      await chartMarkup(page, "figure[data-chart=trend]");
      const note = await page.$("#trend-note");
      if (set.versions === 1) {
        const text = (await note!.textContent()) ?? "";
        assert.match(text, /^Not a trend yet\. This series has one version of each runtime/);
        assert.match(text, /scripts\/bench run --runtime node@22 --runtime node@24/);
        assert.match(text, /backfill/);
        assert.match(text, /published site/);
      } else {
        assert.equal(note, null);
      }
      assert.deepEqual(problems, []);
      await page.close();
    });

    if (set.versions === 1) it("lists Deno's worker byte messages once on the Findings page, with its cells and its reproduction in view at 1,280 px", async () => {
      const { page, problems } = await open("findings.html", { site });
      const rows = await page.$$eval("table.findings tbody tr[id]", (trs) =>
        trs.map((tr) => ({
          text: Array.from((tr as HTMLTableRowElement).cells, (td) => (td.textContent ?? "").replace(/\s+/g, " ").trim()).join(" | "),
          cells: tr.querySelectorAll(".cells li").length,
          right: Math.max(...Array.from(tr.querySelectorAll(".cells li, td[data-label=reproduce] > div > :first-child"), (e) => e.getBoundingClientRect().right)),
          reproduction: tr.querySelector("td[data-label=reproduce] > div > :first-child")?.textContent ?? null,
        })),
      );
      const deno = rows.filter((r) => /^\d+ \| deno [\d.]+\s*far off the others \| workers\/throughput\s*worker-threads.*payload=bytes/.test(r.text));
      assert.equal(deno.length, 1, rows.map((r) => r.text).join("\n"));
      assert.ok(deno[0]!.cells >= 2, `its cells are listed: ${deno[0]!.text}`);
      assert.match(deno[0]!.text, /\d+–\d+× slower/);
      assert.equal(deno[0]!.reproduction, "reproduction");
      const width = await page.evaluate(() => document.documentElement.clientWidth);
      assert.ok(deno[0]!.right <= width, `its cells and reproduction end at ${deno[0]!.right}px, past the ${width}px screen`);
      await page.screenshot({ path: join(ARTIFACTS, "findings-real-default-run.png"), fullPage: true });
      assert.deepEqual(problems, []);
      await page.close();
    });

    it("opens compare on two different subjects, newest bun against newest node, with its verdicts within 1,280 px", async () => {
      const { page, problems } = await open("compare.html", { site, width: 1280 });
      await page.waitForSelector("figure[data-chart=ratios][data-drawn]");
      // With several versions of a runtime the page opens on its newest release against its predecessor; the quick pick gives the two runtimes.
      if ((await page.$("a.preset:has-text('bun vs node, newest')")) && !(await page.$("figure[data-chart=ratios][data-head^='bun@']"))) {
        await page.click("a.preset:has-text('bun vs node, newest')");
        await page.waitForSelector("figure[data-chart=ratios][data-head^='bun@'][data-drawn]");
      }
      const [base, head] = await page.$eval("figure[data-chart=ratios]", (f) => [f.getAttribute("data-base"), f.getAttribute("data-head")]);
      assert.notEqual(base, head);
      assert.match(base ?? "", /^node@/);
      assert.match(head ?? "", /^bun@/);
      const overflow = await page.$eval("figure[data-chart=ratios] .table-scroll", (box) => box.scrollWidth - box.clientWidth);
      assert.ok(overflow <= 0, `the compare table is ${overflow}px wider than its card`);
      const verdict = await page.$eval("figure[data-chart=ratios] thead th:last-child", (th) => {
        const card = th.closest(".card")!.getBoundingClientRect();
        return card.right - th.getBoundingClientRect().right;
      });
      assert.ok(verdict >= 0, `the verdict column ends ${-verdict}px past its card`);
      await page.screenshot({ path: join(ARTIFACTS, `compare-opening-${set.name}.png`) });
      assert.deepEqual(problems, []);
      await page.close();
    });

    // One version per runtime leaves nothing to zoom into: the control is not offered.
    if (set.versions > 1) it("zooms a trend by dragging and by keyboard, keeps the zoom in the permalink, and resets it", async (t) => {
      const { page, problems } = await open("scenario.html?scenario=startup/hello", { site });
      await page.waitForSelector("figure[data-chart=trend][data-drawn]");
      const box = (await (await page.$("figure[data-chart=trend] rect.hit"))!.boundingBox())!;
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2, { steps: 4 });
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 4 });
      await page.mouse.up();
      await page.waitForFunction(() => location.search.includes("zoom="));
      const zoom = new URL(page.url()).searchParams.get("zoom")!;
      const [from, to] = zoom.split("..").map(Number) as [number, number];
      assert.ok(from > 0.2 && from < 0.4 && to > 0.5 && to < 0.7, `the dragged range: ${zoom}`);
      const zoomed = await chartMarkup(page, "figure[data-chart=trend]");

      await page.reload();
      await ready(page);
      assert.equal(new URL(page.url()).searchParams.get("zoom"), zoom, "the zoom survives a reload");
      assert.equal(await chartMarkup(page, "figure[data-chart=trend]"), zoomed, "and draws the same chart");
      assert.equal(await page.$eval("input[name=zoom-from]", (input) => (input as HTMLInputElement).value), String(Math.round(from * 1000)));
      await page.screenshot({ path: join(ARTIFACTS, `trend-zoomed-after-reload-${set.name}.png`), fullPage: true });

      // How long one slider step takes to redraw (a figure for the report, never asserted: tests do not judge speed).
      const perStep = await page.$eval("input[name=zoom-from]", async (input) => {
        // No named functions in here: the page runs this source as it is, without the test's helpers.
        const slider = input as HTMLInputElement;
        const start = performance.now();
        for (let i = 0; i < 20; i++) {
          slider.value = String(Number(slider.value) + (i % 2 === 0 ? 5 : -5));
          slider.dispatchEvent(new Event("input"));
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        }
        return (performance.now() - start) / 20;
      });
      t.diagnostic(`${set.name}: ${perStep.toFixed(1)} ms per zoom slider step, redraw included`);
      await page.focus("input[name=zoom-to]");
      for (let i = 0; i < 20; i++) await page.keyboard.press("ArrowLeft");
      await page.waitForFunction((before) => new URL(location.href).searchParams.get("zoom") !== before, zoom);
      assert.ok(Number(new URL(page.url()).searchParams.get("zoom")!.split("..")[1]) < to, "the keyboard narrows the range");
      await page.click("button.zoom-reset");
      await page.waitForFunction(() => !location.search.includes("zoom="));
      assert.deepEqual(problems, []);
      await page.close();
    });
  });
}

/** The site over `dataDir`, its feed (chains included) computed first. */
async function siteOver(dataDir: string, name: string): Promise<string> {
  const feedDir = tempDir(`site-browser-feed-${name}`);
  const feed = await bench(["regressions", "--data", dataDir, "--feed-dir", feedDir]);
  assert.equal(feed.code, 0, feed.stderr);
  return startServer(dataDir, feedDir, tempDir(`site-browser-out-${name}`));
}

/** A trend page (startup/hello unless asked), switched from its absolute figures to its chained ones; the points, their reproduce commands and the markers of the chained chart. */
async function chainedView(site: string, runtime: string, query = "scenario=startup/hello&metric=wall_ms"): Promise<{ page: Page; problems: string[]; versions: string[]; commands: string[]; machineMarkers: number }> {
  const { page, problems } = await open(`scenario.html?${query}`, { site });
  await page.waitForSelector("figure[data-chart=trend][data-figures=absolute][data-drawn]");
  await page.click("[data-control=figures] label:has-text('Chained steps')");
  await page.waitForSelector("figure[data-chart=trend][data-figures=chained][data-drawn]");
  assert.equal(new URL(page.url()).searchParams.get("figures"), "chained", "the permalink holds the view");
  await page.click("details.table-fallback summary");
  await page.waitForSelector("details.table-fallback[open] table tbody tr");
  const cells = await page.$$eval(`figure[data-chart=trend] ~ details table tbody tr`, (rows, name) => rows.filter((r) => r.textContent?.startsWith(name)).map((r) => [r.children[1]!.textContent ?? "", r.lastElementChild!.textContent ?? ""]), runtime);
  const machineMarkers = await page.$$eval("figure[data-chart=trend] [data-marker=machine]", (markers) => markers.length);
  return { page, problems, versions: cells.map(([version]) => version!), commands: cells.map(([, command]) => command!), machineMarkers };
}

describe("chained trends on the trend page", () => {
  it("draws the committed history's Bun chain of startup/hello, absolute and chained, with no console error", async () => {
    const site = await siteOver(join(REPO_ROOT, "data"), "committed");
    const { page, problems, versions } = await chainedView(site, "bun");
    assert.ok(versions.length >= 10, `the chain reaches ${versions.length} releases: ${versions.join(", ")}`);
    assert.equal(versions[0], "1.1.0", "from the chain's first release");
    assert.match(await page.$eval("figure[data-chart=trend] .legend", (l) => l.textContent ?? ""), /bun from 1\.1\.0/);
    await page.screenshot({ path: join(ARTIFACTS, "trend-chained-committed.png"), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
    // A series with a load point: each link's command measures it again, in its run's profile, and names the load point.
    // A release is reached by the link whose interval compounds narrowest, not always from the release listed before it.
    const loaded = await chainedView(site, "bun", "scenario=database/insert-batch&app=bun-sqlite&params=concurrency%3D1%2Cengine%3Dsqlite&metric=wall_ms");
    assert.ok(loaded.versions.length >= 10, `the chain reaches ${loaded.versions.length} releases`);
    loaded.commands.slice(1).forEach((command, i) => {
      const to = loaded.versions[i + 1]!;
      const from = /--runtime bun@(\S+) --runtime bun@/.exec(command)?.[1] ?? "";
      assert.ok(loaded.versions.slice(0, i + 1).includes(from), `${to} is reached from ${from}, a release earlier in the chain`);
      assert.equal(command, `scripts/bench run --suite database --scenario insert-batch --app bun-sqlite --runtime bun@${from} --runtime bun@${to} --profile quick --param concurrency=1 --param engine=sqlite`);
    });
    assert.deepEqual(loaded.problems, []);
    await loaded.page.close();
  });

  it("carries a chain across a change of machine and marks it where the absolute series splits", async () => {
    const dataDir = tempDir("site-browser-chain-machines");
    const versions = Array.from({ length: 7 }, (_, minor) => `22.${minor}.0`);
    for (const [i, to] of versions.slice(1).entries()) {
      const machine = i < 3 ? TESTBED_AMD : TESTBED_INTEL;
      // The last link in the full profile: each point's command is in its own link's profile.
      const profile = i === versions.length - 2 ? "full" : "quick";
      for (const doc of linkRun({ machine, index: i + 1, from: versions[i]!, to, level: () => (machine === TESTBED_INTEL ? 130 : 100), profile })) await writeResult(dataDir, doc);
    }
    const site = await siteOver(dataDir, "machines");
    const chained = await chainedView(site, "node");
    assert.deepEqual(chained.versions, versions, "one chain over both machines");
    assert.deepEqual(chained.commands.map((command) => / --profile (\w+)$/.exec(command)?.[1] ?? command), ["the first release of the chain: node 22.0.0", "quick", "quick", "quick", "quick", "quick", "full"]);
    assert.match(chained.commands[6]!, /^scripts\/bench run --suite startup --scenario hello --runtime node@22\.5\.0 --runtime node@22\.6\.0 --profile full$/, "no load point to name");
    assert.equal(chained.machineMarkers, 1, "the change of machine is marked once");
    assert.deepEqual(chained.problems, []);
    await chained.page.close();
    // The absolute figures split: each machine is a testbed of its own, with the versions it measured.
    const { page, problems } = await open(`scenario.html?scenario=startup/hello&metric=wall_ms`, { site });
    const testbeds = await page.$$eval("select[name=runner] option", (options) => options.length);
    assert.equal(testbeds, 2, "two testbeds of the one runner");
    assert.deepEqual(problems, []);
    await page.close();
  });
});
