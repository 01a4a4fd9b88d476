/**
 * Synthetic result histories, written through the harness's own writer (schema-checked, same
 * layout), for the site's browser tests (a small history) and its scale benchmark (five years).
 * Values follow a per-runtime random walk across versions with occasional steps, so trend charts
 * and regression markers have something real-looking to show.
 */
import { existsSync, readdirSync } from "node:fs";
import type { Arch, RuntimeName } from "../../src/runtimes/catalog.ts";
import type { Better, ResultDocument, ResultStatus, RunnerKind } from "../../src/results/types.ts";
import { writeResult } from "../../src/results/store.ts";
import { seededRandom } from "../../src/stats/random.ts";
import { bootstrapInterval, mean, median, stddev } from "../../src/stats/summary.ts";
import { defaultSelection } from "../../src/cli/commands/all.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";
import { makeResult } from "./documents.ts";

export interface SyntheticRunner {
  name: string;
  kind: RunnerKind;
  arch: Arch;
  cpu_model: string;
  fingerprint: string;
}

export interface SyntheticMetric {
  name: string;
  unit: string;
  better: Better;
  /** Typical value on Node; the other runtimes are scaled from it. */
  base: number;
  samples: number;
}

export interface SyntheticSeries {
  suite: string;
  scenario: string;
  app: string | null;
  params: Record<string, number>;
  metrics: readonly SyntheticMetric[];
  /** Node versions below this are recorded as unsupported, as the typescript scenario does. */
  nodeMin?: [number, number];
}

export interface SyntheticPlan {
  runners: readonly SyntheticRunner[];
  versionsPerRuntime: number;
  /** Each version is measured this many times: at release, then re-runs spread over later months. */
  runsPerVersion: number;
  series: readonly SyntheticSeries[];
  from: Date;
  to: Date;
  /** Share of results recorded as failed. */
  failureRate: number;
  seed: number;
  /** A change every series of one runtime takes at one version, and keeps: what a regressions feed should find. */
  step?: { runtime: RuntimeName; versionIndex: number; factor: number };
}

export const SYNTHETIC_RUNNERS: readonly SyntheticRunner[] = [
  { name: "bench-x86-1", kind: "dedicated", arch: "x86_64", cpu_model: "AMD EPYC 9454P 48-Core Processor", fingerprint: "a1b2c3d4e5f60718" },
  { name: "bench-arm-1", kind: "dedicated", arch: "arm64", cpu_model: "Neoverse-N1 (Ampere Altra Q80-30)", fingerprint: "f0e1d2c3b4a59687" },
];

const wall = (base: number, samples = 30): SyntheticMetric => ({ name: "wall_ms", unit: "ms", better: "lower", base, samples });
const rss = (base: number): SyntheticMetric => ({ name: "peak_rss_mb", unit: "MB", better: "lower", base, samples: 9 });
const opsPerSecond = (base: number): SyntheticMetric => ({ name: "ops_per_s", unit: "ops/s", better: "higher", base, samples: 30 });

function scenarios(suite: string, names: readonly string[], metrics: (index: number) => SyntheticMetric[]): SyntheticSeries[] {
  return names.map((scenario, i) => ({ suite, scenario, app: null, params: {}, metrics: metrics(i) }));
}

function httpSeries(scenario: string, apps: readonly string[], load: string, levels: readonly number[], metrics: SyntheticMetric[]): SyntheticSeries[] {
  return apps.flatMap((app) => levels.map((level) => ({ suite: "http", scenario, app, params: { [load]: level }, metrics })));
}

/** Sixty series over six suites: the shape of the full harness once every suite exists. */
export const SCALE_SERIES: readonly SyntheticSeries[] = [
  ...scenarios("startup", ["hello", "import-graph", "npm-package"], (i) => [wall(25 + 25 * i), rss(45 + 8 * i)]),
  { suite: "startup", scenario: "typescript", app: null, params: {}, metrics: [wall(55), rss(60)], nodeMin: [22, 6] },
  ...["plaintext", "json", "crud"].flatMap((scenario, i) =>
    httpSeries(scenario, ["native", "hono", "express"], "connections", [50, 256], [
      { name: "rps", unit: "req/s", better: "higher", base: 60_000 / (1 + i), samples: 10 },
      { name: "latency_p99_ms", unit: "ms", better: "lower", base: 4 + 2 * i, samples: 10 },
      { name: "server_peak_rss_mb", unit: "MB", better: "lower", base: 80, samples: 10 },
    ]),
  ),
  ...httpSeries("fixed-rate", ["native", "hono", "express"], "rate", [1000, 5000], [
    { name: "latency_p50_ms", unit: "ms", better: "lower", base: 0.6, samples: 10 },
    { name: "latency_p99_ms", unit: "ms", better: "lower", base: 2.5, samples: 10 },
  ]),
  ...scenarios("fs", ["read-small", "read-large", "write-small", "write-large", "stat-many", "readdir", "copy", "stream"], (i) => [opsPerSecond(20_000 / (1 + i)), rss(50)]),
  ...scenarios("db", ["insert", "select-point", "select-range", "update", "delete", "transaction", "join", "index-build"], (i) => [opsPerSecond(90_000 / (1 + i)), rss(70)]),
  ...scenarios("install", ["cold", "warm", "lockfile", "frozen", "add-one", "remove-one", "workspace", "no-lockfile"], (i) => [wall(2_000 + 900 * i, 10)]),
  ...scenarios("compute", ["json", "regex", "sha256", "gzip", "base64", "url-parse", "sort", "text-encode"], (i) => [opsPerSecond(5_000 * (1 + i)), rss(40)]),
];

/** How each runtime compares with Node on a metric's typical value (before its own walk). */
const RUNTIME_FACTOR: Record<RuntimeName, number> = { node: 1, deno: 0.92, bun: 0.7 };

/** Plausible release numbering: majors in order, mostly patch releases, some minors. */
const MAJORS: Record<RuntimeName, readonly number[]> = { node: [18, 19, 20, 21, 22, 23], deno: [1, 2], bun: [1] };

export function syntheticVersions(runtime: RuntimeName, count: number, random: () => number): string[] {
  const majors = MAJORS[runtime];
  const versions: string[] = [];
  for (let m = 0; m < majors.length; m++) {
    const perMajor = Math.ceil((count - versions.length) / (majors.length - m));
    let minor = runtime === "deno" && m === 0 ? 30 : 0;
    let patch = 0;
    for (let i = 0; i < perMajor; i++) {
      versions.push(`${majors[m]}.${minor}.${patch}`);
      if (random() < 0.3) {
        minor += 1;
        patch = 0;
      } else {
        patch += 1;
      }
    }
  }
  return versions;
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function isoDate(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, ".000Z");
}

function runId(date: Date, counter: number): string {
  return `${isoDate(date).replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}-${counter.toString(16).padStart(6, "0").slice(-6)}`;
}

/** A metric summary with the harness's own statistics; fewer bootstrap resamples keep 100k documents quick to make. */
function summaryOf(metric: SyntheticMetric, level: number, random: () => number) {
  const samples = Array.from({ length: metric.samples }, () => Number((level * (1 + 0.03 * gaussian(random))).toPrecision(6)));
  return {
    unit: metric.unit,
    better: metric.better,
    samples,
    median: median(samples),
    mean: mean(samples),
    stddev: stddev(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    ci95: bootstrapInterval(samples, median, 0.95, 100),
  };
}

interface PlannedRun {
  runner: SyntheticRunner;
  runtime: RuntimeName;
  version: string;
  versionIndex: number;
  date: Date;
  id: string;
}

/** Every run of the plan: one per runner, runtime version and pass, each measuring every series. */
function plannedRuns(plan: SyntheticPlan, random: () => number): { runs: PlannedRun[]; versions: Record<RuntimeName, string[]> } {
  const span = plan.to.getTime() - plan.from.getTime();
  const versions = {} as Record<RuntimeName, string[]>;
  const runs: PlannedRun[] = [];
  let counter = 0;
  for (const runtime of ["node", "deno", "bun"] as const) {
    versions[runtime] = syntheticVersions(runtime, plan.versionsPerRuntime, random);
    versions[runtime].forEach((version, versionIndex) => {
      const released = plan.from.getTime() + (span * (versionIndex + random() * 0.8)) / plan.versionsPerRuntime;
      for (let pass = 0; pass < plan.runsPerVersion; pass++) {
        const at = pass === 0 ? released : released + random() * (plan.to.getTime() - released);
        for (const runner of plan.runners) {
          const date = new Date(Math.min(at + random() * 3_600_000, plan.to.getTime()));
          runs.push({ runner, runtime, version, versionIndex, date, id: runId(date, counter++) });
        }
      }
    });
  }
  return { runs, versions };
}

/**
 * Level of a metric for one runtime version on one runner: a random walk across versions,
 * with a step of ±8 % now and then (what a regression detector should find).
 */
function levelTable(plan: SyntheticPlan, random: () => number): Map<string, number[]> {
  const table = new Map<string, number[]>();
  for (const series of plan.series) {
    for (const metric of series.metrics) {
      for (const runtime of ["node", "deno", "bun"] as const) {
        for (const runner of plan.runners) {
          let level = metric.base * RUNTIME_FACTOR[runtime] ** (metric.better === "lower" ? 1 : -1) * (runner.arch === "arm64" ? 1.25 : 1);
          const levels: number[] = [];
          for (let v = 0; v < plan.versionsPerRuntime; v++) {
            level *= Math.exp(0.01 * gaussian(random));
            if (random() < 0.04) level *= random() < 0.5 ? 0.92 : 1.08;
            if (plan.step?.runtime === runtime && plan.step.versionIndex === v) level *= plan.step.factor;
            levels.push(level);
          }
          table.set(levelKey(series, metric, runtime, runner), levels);
        }
      }
    }
  }
  return table;
}

function levelKey(series: SyntheticSeries, metric: SyntheticMetric, runtime: RuntimeName, runner: SyntheticRunner): string {
  return [series.suite, series.scenario, series.app, JSON.stringify(series.params), metric.name, runtime, runner.name].join("|");
}

function documentFor(plan: SyntheticPlan, run: PlannedRun, series: SyntheticSeries, levels: Map<string, number[]>, random: () => number): ResultDocument {
  const [major, minor] = run.version.split(".").map(Number) as [number, number];
  const unsupported = run.runtime === "node" && series.nodeMin !== undefined && (major < series.nodeMin[0] || (major === series.nodeMin[0] && minor < series.nodeMin[1]));
  const failed = !unsupported && random() < plan.failureRate;
  const status: ResultStatus = unsupported ? "unsupported" : failed ? "failed" : "ok";
  const runNoise = 1 + 0.01 * gaussian(random);
  const metrics =
    status === "ok"
      ? Object.fromEntries(series.metrics.map((m) => [m.name, summaryOf(m, levels.get(levelKey(series, m, run.runtime, run.runner))![run.versionIndex]! * runNoise, random)]))
      : {};
  const appFlag = series.app ? ` --app ${series.app}` : "";
  return makeResult({
    run: { id: run.id, started_at: isoDate(run.date), runner: run.runner.name, runner_kind: run.runner.kind, profile: "quick" },
    environment: { arch: run.runner.arch, cpu_model: run.runner.cpu_model, cpus: 16, memory_bytes: 64e9, fingerprint: run.runner.fingerprint },
    runtime: {
      name: run.runtime,
      version: run.version,
      spec: `${run.runtime}@${run.version}`,
      engine: run.runtime === "bun" ? "JavaScriptCore" : "V8",
      sha256: (run.runtime + run.version).padEnd(64, "0").replace(/[^0-9a-f]/g, "a").slice(0, 64),
    },
    suite: series.suite,
    scenario: series.scenario,
    app: series.app,
    params: series.params,
    status,
    ...(status === "unsupported" ? { error: `${series.suite}/${series.scenario} needs node >= ${series.nodeMin!.join(".")}.0` } : {}),
    ...(status === "failed" ? { error: "check before measuring failed: no answer within 10 s" } : {}),
    metrics,
    reproduce: `scripts/bench run --suite ${series.suite} --scenario ${series.scenario}${appFlag} --runtime ${run.runtime}@${run.version} --profile quick`,
  });
}

/** Writes the plan's documents into `outDir` (the data/ layout); returns how many were written. */
export async function writeSyntheticResults(outDir: string, plan: SyntheticPlan): Promise<number> {
  const random = seededRandom(plan.seed);
  const { runs } = plannedRuns(plan, random);
  const levels = levelTable(plan, random);
  let written = 0;
  const pending = new Set<Promise<void>>();
  for (const run of runs) {
    for (const series of plan.series) {
      const write = writeResult(outDir, documentFor(plan, run, series, levels, random)).then(() => {
        written += 1;
        pending.delete(write);
      });
      pending.add(write);
      // A bounded number of writes in flight: enough to overlap I/O, few enough to keep memory flat.
      if (pending.size >= 64) await Promise.race(pending);
    }
  }
  await Promise.all(pending);
  return written;
}

/**
 * Five years of results: 3 runtimes × 150 versions × 2 architectures × 60 series × 2 runs of each
 * version = 108,000 result documents, what the scale benchmarks measure the harness against.
 */
export const FIVE_YEAR_PLAN: SyntheticPlan = {
  runners: SYNTHETIC_RUNNERS,
  versionsPerRuntime: 150,
  runsPerVersion: 2,
  series: SCALE_SERIES,
  from: new Date("2021-01-01T00:00:00Z"),
  to: new Date("2026-01-01T00:00:00Z"),
  failureRate: 0.005,
  seed: 1,
};

/** Writes the five-year history into `dataDir` unless it already holds something (generating it takes minutes). */
export async function ensureFiveYearHistory(dataDir: string): Promise<void> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return;
  const started = performance.now();
  const written = await writeSyntheticResults(dataDir, FIVE_YEAR_PLAN);
  process.stderr.write(`generated ${written} result documents in ${((performance.now() - started) / 1000).toFixed(0)} s into ${dataDir}\n`);
}

/**
 * The shape of what `scripts/bench` with no arguments leaves a new user: every scenario of the
 * default selection with its suite's real metrics, one version of each runtime, one local machine.
 * Levels are arbitrary; the shape (a single version, metrics of every suite) is what a page must draw.
 */
export function defaultRunSeries(): SyntheticSeries[] {
  const selection = defaultSelection();
  const scenarios = resolveScenarios(selectScenarios({ suites: [], scenarios: selection.scenarios }), "quick");
  return scenarios.map(({ suite, scenario }) => ({
    suite: suite.name,
    scenario: scenario.name,
    // A suite measured on one app names it; http's default apps differ by scenario, and the series only needs a key.
    app: selection.suiteOptions[suite.name]?.app?.length === 1 ? selection.suiteOptions[suite.name]!.app![0]! : null,
    params: {},
    metrics: Object.entries(scenario.metrics).map(([name, m]) => ({ name, unit: m.unit, better: m.better, base: defaultRunLevel(name, m.unit), samples: 5 })),
  }));
}

/**
 * A level for a default-run metric. Two are 0, as a quick run on a busy machine leaves them: the
 * database's CPU time rounds to 0 s, and no rate of the ladder is sustained.
 */
function defaultRunLevel(metric: string, unit: string): number {
  if (metric === "database_cpu_s" || metric === "max_sustained_rps") return 0;
  return unit === "fraction" ? 0.9 : 20;
}

export const LOCAL_RUNNER: SyntheticRunner = { name: "local-laptop", kind: "local", arch: "x86_64", cpu_model: "Laptop CPU", fingerprint: "0011223344556677" };
