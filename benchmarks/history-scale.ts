/**
 * What five years of history costs the commands that read all of it: `scripts/bench regressions`
 * (with an empty cache of series results and no run index, again over the unchanged history, and
 * after one new result), `compare --history` and `scripts/bench site`, each beside the file-reading
 * floor (listing, reading and parsing every result file) and the index-reading floor (the same
 * documents through the run index, as the commands read them), wall-clock and CPU time. Targets: regressions and compare at most
 * 15 s, the site at most 10 s; the cold regressions run is the one-off cost of filling the cache.
 *
 *   scripts/benchmark history-scale [--data DIR]
 *
 * --data DIR reuses a history generated before into DIR (generating it takes a few minutes); the
 * benchmark adds one result to it for one measurement and removes it afterwards.
 * Exit status 1 when a target is missed. Writes its figures into the entry "history-scale" of
 * docs/measurements.json, with when, where and the load, and regenerates the documents made from it.
 */
import { readdirSync, rmSync, rmdirSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { readIndexedResults } from "../src/results/run-index.ts";
import { layoutResultFiles, readResultFile, readResults, writeResult } from "../src/results/store.ts";
import { compareVersions } from "../src/compare/series-key.ts";
import type { ResultDocument } from "../src/results/types.ts";
import { formatTable } from "../src/ui/table.ts";
import { bench, childrenCpuSeconds, tempDir } from "./lib/cli.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import { ensureFiveYearHistory } from "./lib/synthetic-results.ts";

const { values } = parseArgs({ options: { data: { type: "string" } } });
const TARGETS = { regressions: 15, compare: 15, site: 10 };

const startLoad = loadNow();
const dataDir = resolve(values.data ?? tempDir("history-scale-data"));
await ensureFiveYearHistory(dataDir);
// A history reused from an earlier run keeps its run index: the first report must build it again.
rmSync(join(dataDir, ".index"), { recursive: true, force: true });
const cacheDir = tempDir("history-scale-cache");
const feedDir = tempDir("history-scale-feed");
const siteDir = tempDir("history-scale-site");
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");
process.stderr.write(`load average at the start: ${load()}\n`);

interface Timing {
  seconds: number;
  /** CPU time, user and system: on a shared machine, what the command itself cost. */
  cpu: number;
}

async function timed(what: string, args: readonly string[]): Promise<Timing & { stdout: string }> {
  const started = performance.now();
  const cpuBefore = childrenCpuSeconds();
  const result = await bench(args, { RUNTIME_BENCH_CACHE: cacheDir });
  if (result.code !== 0) throw new Error(`scripts/bench ${args.join(" ")} failed: ${result.stderr}`);
  const timing = { seconds: (performance.now() - started) / 1000, cpu: childrenCpuSeconds() - cpuBefore };
  process.stderr.write(`${what}: ${timing.seconds.toFixed(1)} s (CPU ${timing.cpu.toFixed(1)} s)\n`);
  return { ...timing, stdout: result.stdout };
}

function readingFloor(what: string, read: () => readonly unknown[]): Timing & { files: number } {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const files = read().length;
  const cpu = process.cpuUsage(cpuBefore);
  const timing = { seconds: (performance.now() - started) / 1000, cpu: (cpu.user + cpu.system) / 1e6, files };
  process.stderr.write(`${what}: ${timing.seconds.toFixed(1)} s (CPU ${timing.cpu.toFixed(1)} s) for ${files} files\n`);
  return timing;
}

const fileFloor = () => readingFloor("file-reading floor", () => readResults([dataDir]));

/** Node's `startup/hello` results on one runner, oldest version first: where the added result and the compared runs come from. */
function helloRuns(): ResultDocument[] {
  return layoutResultFiles(dataDir, "bench-x86-1")
    .filter((file) => file.includes("/startup/hello/node-"))
    .map(readResultFile)
    .filter((doc) => doc.status === "ok")
    .sort((a, b) => compareVersions(a.runtime.version, b.runtime.version) || a.run.started_at.localeCompare(b.run.started_at));
}

/** One more run of the newest node version, 20 % slower: what `collect` adds between two reports. */
async function addOneResult(newest: ResultDocument): Promise<string> {
  const doc = structuredClone(newest);
  doc.run.id = "20260601T000000Z-ffffff";
  doc.run.started_at = "2026-06-01T00:00:00.000Z";
  for (const summary of Object.values(doc.metrics)) {
    summary.samples = summary.samples.map((s) => s * 1.2);
    summary.median *= 1.2;
  }
  return writeResult(dataDir, doc);
}

/** Removes the added file and the folders it alone made. */
function removeAdded(path: string): void {
  rmSync(path);
  for (let dir = dirname(path); dir !== dataDir && readdirSync(dir).length === 0; dir = dirname(dir)) rmdirSync(dir);
}

const withoutTimestamp = (json: string) => json.replace(/"generated_at": "[^"]*"/, "");

const floorBefore = fileFloor();
const regressionsArgs = ["regressions", "--data", dataDir, "--json", "--feed-dir", feedDir];
const cold = await timed("regressions, empty cache", regressionsArgs);
const warm = await timed("regressions, history unchanged", regressionsArgs);
const identical = withoutTimestamp(cold.stdout) === withoutTimestamp(warm.stdout);
const hello = helloRuns();
const added = await addOneResult(hello.at(-1)!);
let grown: Timing;
try {
  grown = await timed("regressions, one new result", ["regressions", "--data", dataDir, "--json"]);
} finally {
  removeAdded(added);
}
const [base, head] = hello.slice(-2).map((doc) => join(dataDir, doc.run.runner, doc.run.id));
const compare = await timed("compare --history", ["compare", base!, head!, "--json", "--history", dataDir]);
const sites = [
  await timed("site, first build", ["site", "--data", dataDir, "--feed", feedDir, "--out", siteDir]),
  await timed("site, again", ["site", "--data", dataDir, "--feed", feedDir, "--out", siteDir]),
];
const floorAfter = fileFloor();
const indexFloor = readingFloor("index-reading floor", () => readIndexedResults(dataDir));
process.stderr.write(`load average at the end: ${load()}\n`);
rmSync(siteDir, { recursive: true, force: true });
rmSync(cacheDir, { recursive: true, force: true });
rmSync(feedDir, { recursive: true, force: true });
if (values.data === undefined) rmSync(dataDir, { recursive: true, force: true });

const floor = [floorBefore, floorAfter].sort((a, b) => a.seconds - b.seconds)[0]!;
const site = [...sites].sort((a, b) => a.seconds - b.seconds)[0]!;
const report = JSON.parse(warm.stdout) as { changes: unknown[]; series: unknown[] };
const row = (measure: string, timing: Timing): string[] => [measure, timing.seconds.toFixed(1), (timing.seconds / floor.seconds).toFixed(1), timing.cpu.toFixed(1)];
process.stdout.write(`\nhistory at scale: ${floorBefore.files} result documents, ${report.series.length} series, ${report.changes.length} changes\n\n`);
process.stdout.write(
  `${formatTable(
    ["measure", "wall s", "× floor", "CPU s"],
    [
      row(`file-reading floor: list, read and parse every file, in-process (before ${floorBefore.seconds.toFixed(1)} s, after ${floorAfter.seconds.toFixed(1)} s)`, floor),
      row("index-reading floor: the same documents through the run index, in-process", indexFloor),
      row("scripts/bench regressions, empty cache, no run index", cold),
      row("scripts/bench regressions, history unchanged", warm),
      row("scripts/bench regressions, one new result", grown),
      row(`scripts/bench compare RUN RUN --history (${JSON.parse(compare.stdout).length} rows)`, compare),
      row(`scripts/bench site (each: ${sites.map((s) => s.seconds.toFixed(1)).join(", ")} s)`, site),
    ],
  )}\n\n`,
);
process.stdout.write(`the report from the cache is ${identical ? "identical to" : "DIFFERENT from"} the one computed afresh (apart from its timestamp)\n`);

const checks: [string, boolean][] = [
  ["the cached report is the computed one", identical],
  [`regressions, history unchanged, ≤ ${TARGETS.regressions} s`, warm.seconds <= TARGETS.regressions],
  [`regressions, one new result, ≤ ${TARGETS.regressions} s`, grown.seconds <= TARGETS.regressions],
  [`compare --history ≤ ${TARGETS.compare} s`, compare.seconds <= TARGETS.compare],
  [`site ≤ ${TARGETS.site} s`, site.seconds <= TARGETS.site],
];
for (const [target, met] of checks) process.stdout.write(`${met ? "met   " : "MISSED"}  ${target}\n`);

// "regressions, history unchanged" stays the fourth row: the entry's headline figure names it by position.
const entryRow = (measure: string, timing: Timing, target: number | null) => ({
  measure,
  wall_s: Number(timing.seconds.toFixed(1)),
  cpu_s: Number(timing.cpu.toFixed(1)),
  target: target === null ? null : `≤ ${target} s: ${timing.seconds <= target ? "met" : "missed"}`,
});
recordMeasurement("history-scale", (entry) => ({
  ...entry!,
  ...thisMachine(startLoad),
  rows: [
    entryRow(`file-reading floor: list, read and parse every file (${floorBefore.seconds.toFixed(1)} s before the commands, ${floorAfter.seconds.toFixed(1)} s after)`, floor, null),
    entryRow(`index-reading floor: the same ${floorBefore.files.toLocaleString("en")} documents through the run index`, indexFloor, null),
    entryRow("`regressions`, empty cache and no run index (one-off: it builds both)", cold, null),
    entryRow("`regressions`, history unchanged", warm, TARGETS.regressions),
    entryRow("`regressions`, one new result", grown, TARGETS.regressions),
    entryRow("`compare RUN RUN --history`", compare, TARGETS.compare),
    entryRow(`\`site\` (${sites.map((s) => s.seconds.toFixed(1)).join(" and ")} s)`, site, TARGETS.site),
  ],
  notes: [`${report.series.length.toLocaleString("en")} series, ${report.changes.length.toLocaleString("en")} changes; the report from the cache is ${identical ? "identical to" : "DIFFERENT from"} the one computed afresh.`],
  summary: entry?.summary?.map(({ load: _load, ...rest }) => rest),
}));
process.exitCode = checks.every(([, met]) => met) ? 0 : 1;
