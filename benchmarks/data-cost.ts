/**
 * What data/ costs in git. Bytes per result in the layout src/results/store.ts writes (each result
 * one line of compact JSON, its run's environment once in the run's run.json) against the layout
 * before it (each result a whole document, pretty-printed), and the git objects a year of results
 * adds: the release job (three runtimes, each release beside its predecessor, on two machines, the
 * default selection in the full profile), and apart from it a history sweep (its links on the
 * reference testbed, the default selection in the quick profile; a one-off). Each job's run is
 * written through the store and committed on its own, as commit-results does, into a scratch
 * repository; then `git count-objects -v` gives the loose objects (what a push sends) and, after
 * `git gc`, the pack (what the repository keeps).
 *
 *   scripts/benchmark data-cost [--releases node=45,deno=45,bun=45] [--machines 2] [--sweep-links 60]
 *                               [--fraction F] [--results DIR] [--digits N] [--record]
 *
 * --releases: releases a year per runtime, each one job per machine (the release watch's). The
 * defaults are about what each runtime shipped in 2024 across its maintained lines; the registry's
 * publish times are those of the binary packages, which a mirror need not keep, so they are not
 * counted from it. --fraction F writes that share of the year and scales its figures (a quick check);
 * --results DIR takes each job's cells from real results (the largest run in DIR, read through the
 * store) instead of synthetic ones shaped by each scenario's profile; --record writes the figures
 * into the entry "data-cost" of docs/measurements.json and regenerates the documents made from it.
 * --digits N asks what if every sample kept N significant digits (the harness keeps what its tools
 * report: hyperfine's nanoseconds, far below any run's noise): printed, never recorded.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { checkMachine } from "../src/env/machine-check.ts";
import { readEnvironment } from "../src/env/fingerprint.ts";
import { listResultFiles, readResultFile, resultPath, RUN_FILE, runFolder, writeResult } from "../src/results/store.ts";
import type { MetricSummary, ResultDocument, SuiteProfile } from "../src/results/types.ts";
import type { RuntimeName } from "../src/runtimes/catalog.ts";
import { selectScenarios } from "../src/scenarios/select.ts";
import { seededRandom } from "../src/stats/random.ts";
import { bootstrapInterval, mean, median, stddev } from "../src/stats/summary.ts";
import { resolveScenarios } from "../src/suites/resolve.ts";
import { formatTable } from "../src/ui/table.ts";
import { tempDir } from "./lib/cli.ts";
import { makeResult } from "./lib/documents.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import { defaultSelectionSeries, type SyntheticSeries } from "./lib/synthetic-results.ts";

const { values } = parseArgs({
  options: {
    releases: { type: "string", default: "node=45,deno=45,bun=45" },
    machines: { type: "string", default: "2" },
    "sweep-links": { type: "string", default: "60" },
    fraction: { type: "string", default: "1" },
    results: { type: "string" },
    record: { type: "boolean" },
    digits: { type: "string" },
  },
});
const DIGITS = values.digits === undefined ? undefined : Number(values.digits);
const RELEASES = Object.fromEntries(values.releases.split(",").map((pair) => [pair.split("=")[0]!, Number(pair.split("=")[1])])) as Record<RuntimeName, number>;
const MACHINES = Number(values.machines);
const SWEEP_LINKS = Number(values["sweep-links"]);
const FRACTION = Number(values.fraction);
const startLoad = loadNow();
const random = seededRandom(7);

function gaussian(): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Decimals a sample was written with, so a perturbed copy carries as many digits (what compression meets). */
const decimalsOf = (value: number) => (String(value).split(".")[1] ?? "").length;

/** A metric's samples moved a little, each keeping its digits, with the summary the harness computes. */
function perturbed(metric: MetricSummary): MetricSummary {
  const shift = Math.exp(0.02 * gaussian());
  const moved = metric.samples.map((value) => Number((value * shift * Math.exp(0.03 * gaussian())).toFixed(Math.min(9, decimalsOf(value)))));
  const samples = DIGITS === undefined ? moved : moved.map((value) => Number(value.toPrecision(DIGITS)));
  const [min, max] = [Math.min(...samples), Math.max(...samples)];
  return { ...metric, samples, median: median(samples), mean: mean(samples), stddev: stddev(samples), min, max, ci95: bootstrapInterval(samples, median, 0.95, 100) };
}

/** Samples a metric of a scenario's profile records: its trials, times the runs or iterations of a trial for the headline metric. */
function samplesOf(series: SyntheticSeries, metricIndex: number, profile: SuiteProfile): number {
  const [resolved] = resolveScenarios(selectScenarios({ suites: [], scenarios: [`${series.suite}/${series.scenario}`] }), profile);
  const params = resolved!.scenario.profileParams as Record<string, unknown>;
  const perTrial = metricIndex === 0 ? (params.runs ?? params.iterations ?? 1) : (params.memory_runs ?? 1);
  return params.trials as number * (perTrial as number);
}

/** One cell of a job as a template: a result of a runtime, samples shaped by the profile, hyperfine's six decimals. */
async function syntheticCells(profile: SuiteProfile): Promise<Map<RuntimeName, ResultDocument[]>> {
  const series = await defaultSelectionSeries(profile);
  const byRuntime = new Map<RuntimeName, ResultDocument[]>();
  for (const runtime of ["node", "deno", "bun"] as const) {
    byRuntime.set(runtime, series.filter((s) => s.runtimes.includes(runtime)).map((s) => {
      const metrics = Object.fromEntries(s.metrics.map((m, i) => {
        const samples = Array.from({ length: samplesOf(s, i, profile) }, () => Number((m.base * Math.exp(0.05 * gaussian())).toFixed(6)));
        return [m.name, { unit: m.unit, better: m.better, samples, median: 0, mean: 0, stddev: 0, min: 0, max: 0, ci95: [0, 0] as [number, number] }];
      }));
      return makeResult({ suite: s.suite, scenario: s.scenario, app: s.app, params: { ...s.params }, runtime: { name: runtime }, metrics, tools: { hyperfine: "1.15.0", "gnu-time": "1.9" } });
    }));
  }
  return byRuntime;
}

/** The cells of the largest run in a folder of real results, by runtime. */
function realCells(dir: string): Map<RuntimeName, ResultDocument[]> {
  const docs = listResultFiles([dir]).map(readResultFile);
  const runs = new Map<string, ResultDocument[]>();
  for (const doc of docs) runs.set(doc.run.id, [...(runs.get(doc.run.id) ?? []), doc]);
  const largest = [...runs.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  const version = largest[0]?.runtime.version;
  const one = largest.filter((doc) => doc.runtime.version === version);
  return new Map((["node", "deno", "bun"] as const).map((runtime) => [runtime, one.map((doc) => ({ ...doc, runtime: { ...doc.runtime, name: runtime } }))]));
}

interface Job {
  readonly runner: string;
  readonly runtime: RuntimeName;
  readonly versions: readonly string[];
  readonly index: number;
}

/** A job's results: each cell of its runtime for each of its versions, in one run on its machine. */
async function jobDocuments(job: Job, cells: readonly ResultDocument[], environment: ResultDocument["environment"]): Promise<ResultDocument[]> {
  const startedAt = new Date(Date.UTC(2026, 0, 1) + job.index * 3_600_000);
  const id = `${startedAt.toISOString().slice(0, 19).replace(/[-:]/g, "")}Z-${job.index.toString(16).padStart(6, "0")}`;
  return job.versions.flatMap((version) =>
    cells.map((cell) => ({
      ...cell,
      run: { ...cell.run, id, started_at: startedAt.toISOString(), runner: job.runner, trials: cell.run.trials },
      environment,
      runtime: { ...cell.runtime, version, spec: `${job.runtime}@${version}` },
      label: `${job.runtime}-${version}`,
      metrics: Object.fromEntries(Object.entries(cell.metrics).map(([name, metric]) => [name, perturbed(metric)])),
    })),
  );
}

/** The layout before run.json: each result its whole document, pretty-printed, at its place. */
function writeWhole(dataDir: string, doc: ResultDocument): void {
  const path = resultPath(dataDir, doc);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(doc, null, 1)}\n`);
}

const git = (repo: string, ...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "bench", GIT_AUTHOR_EMAIL: "bench@invalid", GIT_COMMITTER_NAME: "bench", GIT_COMMITTER_EMAIL: "bench@invalid" } });

/** Bytes of the repository's loose objects, as files (not the disk blocks `count-objects` counts: a small object takes a whole block). */
function looseObjectBytes(repo: string): number {
  const objects = join(repo, ".git", "objects");
  return readdirSync(objects)
    .filter((name) => /^[0-9a-f]{2}$/.test(name))
    .reduce((sum, dir) => sum + readdirSync(join(objects, dir)).reduce((n, file) => n + statSync(join(objects, dir, file)).size, 0), 0);
}

/** Bytes of the repository's packs, after `git gc`. */
const packedBytes = (repo: string) => Number(/^size-pack: (\d+)$/m.exec(git(repo, "count-objects", "-v"))![1]) * 1024;

interface LayoutCost {
  results: number;
  fileBytes: number;
  looseBytes: number;
  packedBytes: number;
}

/** Writes the jobs in one layout into a scratch repository, one commit per job, and measures it. */
async function costOf(jobs: readonly Job[], cells: Map<RuntimeName, ResultDocument[]>, environment: ResultDocument["environment"], whole: boolean): Promise<LayoutCost> {
  const repo = tempDir(whole ? "data-cost-whole" : "data-cost");
  git(repo, "init", "--quiet");
  const data = join(repo, "data");
  let results = 0;
  let fileBytes = 0;
  for (const job of jobs) {
    const docs = await jobDocuments(job, cells.get(job.runtime)!, environment);
    for (const doc of docs) {
      if (whole) writeWhole(data, doc);
      else await writeResult(data, doc);
      fileBytes += statSync(resultPath(data, doc)).size;
    }
    if (!whole) fileBytes += statSync(join(runFolder(data, docs[0]!.run), RUN_FILE)).size;
    results += docs.length;
    git(repo, "add", "data");
    git(repo, "commit", "--quiet", "-m", `data: ${docs.length} results from ${job.runner}`);
  }
  const looseBytes = looseObjectBytes(repo);
  git(repo, "gc", "--quiet");
  return { results, fileBytes, looseBytes, packedBytes: packedBytes(repo) };
}

/** A year of the release job: every release of each runtime beside its predecessor, on every machine. */
function releaseYear(): Job[] {
  const jobs: Job[] = [];
  for (const [runtime, count] of Object.entries(RELEASES) as [RuntimeName, number][]) {
    for (let r = 0; r < Math.round(count * FRACTION); r++) {
      for (let m = 0; m < MACHINES; m++) jobs.push({ runner: `bench-${m}`, runtime, versions: [`1.${r}.0`, `1.${r + 1}.0`], index: jobs.length });
    }
  }
  return jobs;
}

/** A history sweep: its links, one run each on the reference testbed, shared among the runtimes. */
function sweep(): Job[] {
  const links = Math.round(SWEEP_LINKS * FRACTION);
  return Array.from({ length: links }, (_, k) => ({ runner: "reference-x64-2vcpu", runtime: (["node", "deno", "bun"] as const)[k % 3]!, versions: [`2.${k}.0`, `2.${k + 1}.0`], index: 100_000 + k }));
}

const environment = { ...readEnvironment(), machine: await checkMachine(readEnvironment()) };
const full = values.results === undefined ? await syntheticCells("full") : realCells(values.results);
const quick = values.results === undefined ? await syntheticCells("quick") : full;
const measured = [
  ["release job, a year, whole documents (before run.json)", await costOf(releaseYear(), full, environment, true)],
  ["release job, a year, run.json and compact results", await costOf(releaseYear(), full, environment, false)],
  ["history sweep, run.json and compact results", await costOf(sweep(), quick, environment, false)],
] as const;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / FRACTION / 1024 ** 2).toFixed(1)} MB`;
const rows = measured.map(([what, c]) => ({
  what,
  results: String(Math.round(c.results / FRACTION)),
  file_per_result: kb(c.fileBytes / c.results),
  loose_per_result: kb(c.looseBytes / c.results),
  packed_per_result: kb(c.packedBytes / c.results),
  loose_total: mb(c.looseBytes),
  packed_total: mb(c.packedBytes),
}));
process.stdout.write(
  `${formatTable(["what", "results", "file bytes / result", "loose git objects / result", "packed / result", "loose in all", "packed in all"], rows.map((r) => Object.values(r)))}\n\n` +
    `Release job: ${Object.entries(RELEASES).map(([r, n]) => `${r} ${n}`).join(", ")} releases a year, each beside its predecessor, on ${MACHINES} machines, ` +
    `${values.results === undefined ? "the default selection in the full profile (synthetic cells, samples shaped by each scenario's profile); history sweep: the quick profile's" : `the cells of ${values.results} (each job and each sweep link)`}; history sweep: ${SWEEP_LINKS} links.` +
    " Each job's samples are drawn afresh; its other fields (a check's responses, each trial's details) are the template's, which a pack stores as deltas: real ones differ a little more." +
    `${FRACTION === 1 ? "" : ` Written: ${FRACTION} of it, figures scaled.`}${DIGITS === undefined ? "" : ` What if samples kept ${DIGITS} significant digits: not recorded.`}\n`,
);
if (values.record && DIGITS === undefined) {
  recordMeasurement("data-cost", () => ({
    title: "What data/ costs in git",
    benchmark: `scripts/benchmark data-cost --releases ${values.releases} --machines ${MACHINES} --sweep-links ${SWEEP_LINKS}${values.results === undefined ? "" : ` --results ${values.results}`}`,
    ...thisMachine(startLoad),
    notes: ["Each job's run written through the store and committed on its own into a scratch repository; loose: `git count-objects -v` after the last commit (what the pushes sent), packed: after `git gc`."],
    columns: { what: "what", results: "results", file_per_result: "file bytes / result", loose_per_result: "loose git objects / result", packed_per_result: "packed / result", loose_total: "loose in all", packed_total: "packed in all" },
    rows,
  }));
}
