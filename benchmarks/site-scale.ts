/**
 * The trend site at the size of five years of results: every cell of the seven suites on each
 * runtime that has it, 2 architectures, 2 runs of each version, about 108,000 result documents
 * (benchmarks/lib/synthetic-results.ts), synthetic but written by the harness's own writer. Measures the site build (`scripts/bench site`, target < 30 s), then, in
 * headless Chromium on localhost, the time from navigation to the overview's first chart drawn
 * (target < 1.5 s) and the bytes the overview fetches, gzipped as served (target < 1 MB).
 *
 *   scripts/benchmark site-scale [--data DIR] [--builds N] [--loads N]
 *
 * --data DIR reuses a history generated before into DIR (generating it takes a few minutes).
 * Exit status 1 when a target is missed. Writes its figures into the entry "site-scale" of
 * docs/measurements.json, with when, where and the load, and regenerates the documents made from it.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { chromium, type Page } from "playwright-core";
import { serveSite } from "../src/site/server.ts";
import { median } from "../src/stats/summary.ts";
import { formatTable } from "../src/ui/table.ts";
import { bench, tempDir } from "./lib/cli.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import { ensureFiveYearHistory, fiveYearPlan } from "./lib/synthetic-results.ts";

const { values } = parseArgs({ options: { data: { type: "string" }, builds: { type: "string" }, loads: { type: "string" } } });
const builds = Number(values.builds ?? 3);
const loads = Number(values.loads ?? 5);
const TARGETS = { buildSeconds: 30, firstChartMs: 1500, overviewBytes: 1_000_000 };

const startLoad = loadNow();
const dataDir = values.data ?? tempDir("site-scale-data");
await ensureFiveYearHistory(dataDir);

const outDir = tempDir("site-scale-out");
const buildSeconds: number[] = [];
let built = "";
for (let i = 0; i < builds; i++) {
  const started = performance.now();
  const result = await bench(["site", "--data", dataDir, "--out", outDir]);
  if (result.code !== 0) throw new Error(`scripts/bench site failed: ${result.stderr}`);
  buildSeconds.push((performance.now() - started) / 1000);
  built = result.stdout.split("\n")[0]!;
  process.stderr.write(`build ${i + 1}/${builds}: ${buildSeconds.at(-1)!.toFixed(1)} s (${built})\n`);
}

interface Load {
  firstChartMs: number;
  bytes: number;
  dataBytes: number;
  requests: number;
}

/** One cold load of a page: a fresh browser context, so nothing comes from a cache. */
async function load(page: Page, url: string): Promise<Load> {
  const responses: Promise<{ url: string; bytes: number }>[] = [];
  page.on("response", (response) => {
    responses.push(response.request().sizes().then((sizes) => ({ url: response.url(), bytes: sizes.responseBodySize })));
  });
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName("first-chart").length > 0, undefined, { timeout: 60_000 });
  const firstChartMs = await page.evaluate(() => performance.getEntriesByName("first-chart")[0]!.startTime);
  await page.waitForLoadState("networkidle");
  const fetched = await Promise.all(responses);
  return {
    firstChartMs,
    bytes: fetched.reduce((n, r) => n + r.bytes, 0),
    dataBytes: fetched.filter((r) => r.url.endsWith(".json")).reduce((n, r) => n + r.bytes, 0),
    requests: fetched.length,
  };
}

const server = await serveSite(outDir, { base: "/runtime-bench/", port: 0 });
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
const pages = {
  overview: "index.html",
  "trend (http/json)": "scenario.html?scenario=http/json&app=native&params=connections%3D50&metric=rps",
  "compare (two node versions)": "compare.html",
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
const documents = Number(/(\d+) results/.exec(built)?.[1] ?? 0);
const series = (await fiveYearPlan()).series.length;
process.stdout.write(`\nsite at scale: ${documents} result documents, ${series} series, ${builds} builds, ${loads} cold loads per page\n\n`);
process.stdout.write(
  `${formatTable(
    ["measure", "median", "each"],
    [
      ["build (scripts/bench site), s", median(buildSeconds).toFixed(1), buildSeconds.map((s) => s.toFixed(1)).join(" ")],
      ...Object.entries(measured).flatMap(([name, runs]) => [
        [`${name}: first chart drawn, ms`, median(runs.map((r) => r.firstChartMs)).toFixed(0), runs.map((r) => r.firstChartMs.toFixed(0)).join(" ")],
        [`${name}: fetched, gzipped`, kb(median(runs.map((r) => r.bytes))), `${runs[0]!.requests} requests, of which data ${kb(runs[0]!.dataBytes)}`],
      ]),
    ],
  )}\n\n`,
);

const overview = measured.overview!;
const checks: [string, boolean][] = [
  [`build < ${TARGETS.buildSeconds} s`, median(buildSeconds) < TARGETS.buildSeconds],
  [`overview's first chart < ${TARGETS.firstChartMs} ms`, median(overview.map((r) => r.firstChartMs)) < TARGETS.firstChartMs],
  [`overview fetches < 1 MB gzipped`, Math.max(...overview.map((r) => r.bytes)) < TARGETS.overviewBytes],
];
for (const [target, met] of checks) process.stdout.write(`${met ? "met   " : "MISSED"}  ${target}\n`);

// The overview's rows come first, right after the build's: the entry's headline figures name them by position.
const ms = (value: number) => (value < 1000 ? `${value.toFixed(0)} ms` : `${(value / 1000).toFixed(2)} s`);
recordMeasurement("site-scale", (entry) => ({
  ...entry!,
  ...thisMachine(startLoad),
  benchmark: `scripts/benchmark site-scale --builds ${builds} --loads ${loads}`,
  rows: [
    { measure: "build, `scripts/bench site`", target: `< ${TARGETS.buildSeconds} s`, measured: `${median(buildSeconds).toFixed(1)} s`, each: buildSeconds.map((s) => s.toFixed(1)).join(", ") },
    ...Object.entries(measured).flatMap(([name, runs]) => [
      { measure: `${name}: navigation to first chart drawn, headless Chromium`, target: name === "overview" ? `< ${ms(TARGETS.firstChartMs)}` : null, measured: ms(median(runs.map((r) => r.firstChartMs))), each: runs.map((r) => r.firstChartMs.toFixed(0)).join(", ") },
      { measure: `${name}: bytes fetched, gzipped`, target: name === "overview" ? "< 1 MB" : null, measured: kb(median(runs.map((r) => r.bytes))), each: `${runs[0]!.requests} requests, of which data ${kb(runs[0]!.dataBytes)}` },
    ]),
  ],
  notes: [`${documents.toLocaleString("en")} result documents, ${series} series, ${builds} builds, ${loads} cold loads per page.`],
}));
process.exitCode = checks.every(([, met]) => met) ? 0 : 1;
