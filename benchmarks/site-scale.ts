/**
 * The trend site at the size of five years of results: every cell of the seven suites on each
 * runtime that has it, 2 architectures, 2 runs of each version, about 108,000 result documents
 * (benchmarks/lib/synthetic-results.ts), synthetic but written by the harness's own writer.
 * Measures the site build (`scripts/bench site`, target ≤ 5 s) and the whole site's size (target ≤
 * 250 MB, a quarter of what GitHub Pages serves), then, in headless Chromium on localhost, each
 * page's time from navigation to its first chart or table drawn and the bytes it fetches, gzipped
 * as served: the overview (targets < 1.5 s, < 1 MB) and the Compare page, of two Node versions and
 * of its default pair (targets: first rows ≤ 1 s, ≤ 300 KiB fetched before its first table).
 *
 *   scripts/benchmark site-scale [--data DIR] [--builds N] [--loads N] [--no-record]
 *
 * --data DIR reuses a history generated before into DIR (generating it takes a few minutes).
 * Exit status 1 when a target is missed. Writes its figures into the entry "site-scale" of
 * docs/measurements.json, with when, where and the load, and regenerates the documents made from
 * it; --no-record only prints them (a run on a busy machine, to see that it works).
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Page } from "playwright-core";
import type { CatalogData } from "../src/site/model.ts";
import { serveSite } from "../src/site/server.ts";
import { median } from "../src/stats/summary.ts";
import { formatTable } from "../src/ui/table.ts";
import { bench, childrenCpuSeconds, tempDir } from "./lib/cli.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import { ensureFiveYearHistory, fiveYearPlan } from "./lib/synthetic-results.ts";

const { values } = parseArgs({ options: { data: { type: "string" }, builds: { type: "string" }, loads: { type: "string" }, "no-record": { type: "boolean" } } });
const builds = Number(values.builds ?? 3);
const loads = Number(values.loads ?? 5);
const TARGETS = { buildSeconds: 5, siteBytes: 250e6, overviewFirstMs: 1500, overviewBytes: 1_000_000, compareFirstMs: 1000, compareBeforeFirstBytes: 300 * 1024 };

const startLoad = loadNow();
const dataDir = values.data ?? tempDir("site-scale-data");
await ensureFiveYearHistory(dataDir);

/** Every file's size below a folder, in bytes: what a Pages artifact of it weighs. */
function folderBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(dir, entry.name);
    return sum + (entry.isDirectory() ? folderBytes(path) : statSync(path).size);
  }, 0);
}

const outDir = tempDir("site-scale-out");
const buildSeconds: number[] = [];
const buildCpuSeconds: number[] = [];
let built = "";
for (let i = 0; i < builds; i++) {
  const started = performance.now();
  const cpuBefore = childrenCpuSeconds();
  const result = await bench(["site", "--data", dataDir, "--out", outDir]);
  if (result.code !== 0) throw new Error(`scripts/bench site failed: ${result.stderr}`);
  buildSeconds.push((performance.now() - started) / 1000);
  buildCpuSeconds.push(childrenCpuSeconds() - cpuBefore);
  built = result.stdout.split("\n")[0]!;
  process.stderr.write(`build ${i + 1}/${builds}: ${buildSeconds.at(-1)!.toFixed(1)} s, CPU ${buildCpuSeconds.at(-1)!.toFixed(1)} s (${built})\n`);
}
const siteBytes = folderBytes(outDir);

interface Load {
  firstMs: number;
  bytes: number;
  dataBytes: number;
  /** What had been asked for before the first chart or table was drawn. */
  bytesBeforeFirst: number;
  requests: number;
  /** Console errors and page errors: a page at scale must load as cleanly as a small one. */
  errors: string[];
}

/** One cold load of a page: a fresh browser context, so nothing comes from a cache. */
async function load(page: Page, url: string): Promise<Load> {
  const responses: Promise<{ url: string; bytes: number; started: number }>[] = [];
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("response", (response) => {
    const request = response.request();
    responses.push(request.sizes().then((sizes) => ({ url: response.url(), bytes: sizes.responseBodySize, started: request.timing().startTime })));
  });
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName("first-chart").length > 0, undefined, { timeout: 60_000 });
  const [firstMs, origin] = await page.evaluate(() => [performance.getEntriesByName("first-chart")[0]!.startTime, performance.timeOrigin]);
  await page.waitForLoadState("networkidle");
  const fetched = await Promise.all(responses);
  const sum = (list: typeof fetched) => list.reduce((n, r) => n + r.bytes, 0);
  return {
    firstMs,
    bytes: sum(fetched),
    dataBytes: sum(fetched.filter((r) => r.url.endsWith(".json"))),
    bytesBeforeFirst: sum(fetched.filter((r) => r.started <= origin + firstMs)),
    requests: fetched.length,
    errors,
  };
}

const server = await serveSite(outDir, { base: "/runtime-bench/", port: 0 });
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
const catalog = (await (await fetch(new URL("data/catalog.json", server.url))).json()) as CatalogData;
const x86 = catalog.testbeds.find((t) => t.arch === "x86_64")!;
const nodeVersions = catalog.versions[x86.id]!.node!;
const pages = {
  overview: "index.html",
  "trend (http/json)": "scenario.html?scenario=http/json&app=native&params=connections%3D50&metric=rps",
  "compare (two node versions)": `compare.html?testbed=${x86.id}&base=node%40${nodeVersions.at(-2)!}&head=node%40${nodeVersions.at(-1)!}`,
  "compare (its default pair)": "compare.html",
};
const measured: Record<string, Load[]> = {};
try {
  for (let i = 0; i < loads; i++) {
    for (const [name, path] of Object.entries(pages)) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      (measured[name] ??= []).push(await load(page, new URL(path, server.url).href));
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
  // A five-year site is some 200 MB, and a generated history 600 MB more: keep only what was asked to be kept.
  rmSync(outDir, { recursive: true, force: true });
  if (values.data === undefined) rmSync(dataDir, { recursive: true, force: true });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const ms = (value: number) => (value < 1000 ? `${value.toFixed(0)} ms` : `${(value / 1000).toFixed(2)} s`);
const documents = Number(/(\d+) results/.exec(built)?.[1] ?? 0);
const series = (await fiveYearPlan()).series.length;
const compares = Object.keys(pages).filter((name) => name.startsWith("compare"));

/** Each measure as a row: what, its target, the median, and each value. */
const rows: { measure: string; target: string | null; measured: string; each: string }[] = [
  { measure: "build, `scripts/bench site`", target: `≤ ${TARGETS.buildSeconds} s`, measured: `${median(buildSeconds).toFixed(1)} s`, each: buildSeconds.map((s) => s.toFixed(1)).join(", ") },
  { measure: "the whole site's size (every file, uncompressed)", target: `≤ ${mb(TARGETS.siteBytes)}`, measured: mb(siteBytes), each: `${siteBytes.toLocaleString("en")} bytes` },
  { measure: "build's CPU time, every thread (on a shared machine, steadier than its wall time)", target: null, measured: `${median(buildCpuSeconds).toFixed(1)} s`, each: buildCpuSeconds.map((s) => s.toFixed(1)).join(", ") },
  ...Object.entries(measured).flatMap(([name, runs]) => {
    const compare = compares.includes(name);
    return [
      { measure: `${name}: navigation to first ${compare ? "rows" : "chart"} drawn, headless Chromium`, target: name === "overview" ? `< ${ms(TARGETS.overviewFirstMs)}` : compare ? `≤ ${ms(TARGETS.compareFirstMs)}` : null, measured: ms(median(runs.map((r) => r.firstMs))), each: runs.map((r) => r.firstMs.toFixed(0)).join(", ") },
      ...(compare ? [{ measure: `${name}: bytes fetched before its first table, gzipped`, target: `≤ ${kb(TARGETS.compareBeforeFirstBytes)}`, measured: kb(median(runs.map((r) => r.bytesBeforeFirst))), each: runs.map((r) => kb(r.bytesBeforeFirst)).join(", ") }] : []),
      { measure: `${name}: bytes fetched${compare ? " until the network is idle" : ""}, gzipped`, target: name === "overview" ? "< 1 MB" : null, measured: kb(median(runs.map((r) => r.bytes))), each: `${runs[0]!.requests} requests, of which data ${kb(runs[0]!.dataBytes)}` },
    ];
  }),
];
process.stdout.write(`\nsite at scale: ${documents} result documents, ${series} series, ${builds} builds, ${loads} cold loads per page\n\n`);
process.stdout.write(`${formatTable(["measure", "target", "median", "each"], rows.map((r) => [r.measure, r.target ?? "", r.measured, r.each]))}\n\n`);

const overview = measured.overview!;
const errors = Object.entries(measured).flatMap(([name, runs]) => [...new Set(runs.flatMap((r) => r.errors))].map((error) => `${name}: ${error}`));
for (const error of errors) process.stdout.write(`console error: ${error}\n`);
const checks: [string, boolean][] = [
  ["no console error on any page", errors.length === 0],
  [`build ≤ ${TARGETS.buildSeconds} s`, median(buildSeconds) <= TARGETS.buildSeconds],
  [`site ≤ ${mb(TARGETS.siteBytes)}`, siteBytes <= TARGETS.siteBytes],
  [`overview's first chart < ${TARGETS.overviewFirstMs} ms`, median(overview.map((r) => r.firstMs)) < TARGETS.overviewFirstMs],
  [`overview fetches < 1 MB gzipped`, Math.max(...overview.map((r) => r.bytes)) < TARGETS.overviewBytes],
  ...compares.flatMap((name): [string, boolean][] => [
    [`${name}: first rows ≤ ${TARGETS.compareFirstMs} ms`, median(measured[name]!.map((r) => r.firstMs)) <= TARGETS.compareFirstMs],
    [`${name}: ≤ ${kb(TARGETS.compareBeforeFirstBytes)} before its first table`, Math.max(...measured[name]!.map((r) => r.bytesBeforeFirst)) <= TARGETS.compareBeforeFirstBytes],
  ]),
];
for (const [target, met] of checks) process.stdout.write(`${met ? "met   " : "MISSED"}  ${target}\n`);

// The README's headline figures name rows by position: the build, the size, the overview's first chart, and the compare page's.
const row = (measure: string) => rows.findIndex((r) => r.measure.startsWith(measure));
if (!values["no-record"]) {
  recordMeasurement("site-scale", (entry) => ({
    ...entry!,
    ...thisMachine(startLoad),
    benchmark: `scripts/benchmark site-scale --builds ${builds} --loads ${loads}`,
    summary: [
      { measure: "site build over 108,000 results (target ≤ 5 s)", row: 0, figure: "{measured}" },
      { measure: "the whole site at 108,000 results (target ≤ 250 MB)", row: 1, figure: "{measured}" },
      { measure: "overview page: first chart drawn (target < 1.5 s)", row: row("overview: navigation"), figure: "{measured}" },
      { measure: "compare page of two Node versions: first rows drawn (target ≤ 1 s), and fetched before them (target ≤ 300 KiB)", row: row("compare (two node versions): navigation"), figure: `{measured}, ${rows[row("compare (two node versions): bytes fetched before")]!.measured}` },
    ],
    rows,
    notes: [`${documents.toLocaleString("en")} result documents, ${series} series, ${builds} builds, ${loads} cold loads per page.`],
  }));
}
process.exitCode = checks.every(([, met]) => met) ? 0 : 1;
