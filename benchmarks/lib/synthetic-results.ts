/**
 * Synthetic result histories, written through the harness's own writer (schema-checked, same
 * layout), for the site's browser tests (short histories) and its scale benchmarks (five years).
 * Values follow a per-runtime random walk across versions with occasional steps, so trend charts
 * and regression markers have something real-looking to show.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appsDir, loadApps, unsupportedApp, type App } from "../../src/apps/manifest.ts";
import type { ParamValue } from "../../src/core/params.ts";
import { unsupportedReason } from "../../src/orchestrate/execute.ts";
import type { Arch, RuntimeName } from "../../src/runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../../src/runtimes/identify.ts";
import type { Better, ResultDocument, ResultStatus, RunnerKind, SuiteProfile } from "../../src/results/types.ts";
import { writeResult } from "../../src/results/store.ts";
import { seededRandom } from "../../src/stats/random.ts";
import { mean, median, stddev } from "../../src/stats/summary.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";
import { defaultSelection } from "../../src/suites/selection.ts";
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

/** One cell of a suite as a run measures it: the runtimes whose subjects include it, and why a runtime version cannot run it. */
export interface SyntheticSeries {
  suite: string;
  scenario: string;
  app: string | null;
  params: Readonly<Record<string, ParamValue>>;
  /** The profile whose load points it has, and which its results record. */
  profile: SuiteProfile;
  metrics: readonly SyntheticMetric[];
  runtimes: readonly RuntimeName[];
  /** The harness's own reason (the scenario's or the app's runtimes and minimum versions), or null where it runs. */
  unsupported: (runtime: RuntimeName, version: string) => string | null;
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

const RUNTIMES: readonly RuntimeName[] = ["node", "deno", "bun"];

interface SeriesSelection {
  readonly profile: SuiteProfile;
  readonly scenarios: readonly string[];
  readonly suiteOptions: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

/** A runtime as a suite's `subjects` sees it: only its name and version are read before anything is provisioned. */
function namedRuntime(name: RuntimeName, version: string): IdentifiedRuntime {
  return { identity: { name, version }, label: name } as IdentifiedRuntime;
}

/**
 * The cells a run of this selection in its profile measures, named by the suites' own sessions (their
 * `subjects`, which start nothing) from the checkout's scenarios, apps, load points and metrics.
 */
async function seriesOf(selection: SeriesSelection, level: (metric: string, unit: string) => number, samples: number): Promise<SyntheticSeries[]> {
  const resolved = resolveScenarios(selectScenarios({ suites: [], scenarios: selection.scenarios }), selection.profile);
  const workDir = mkdtempSync(join(tmpdir(), "rb-synthetic-"));
  const series = new Map<string, SyntheticSeries & { runtimes: RuntimeName[] }>();
  try {
    for (const suite of new Set(resolved.map((r) => r.suite))) {
      const session = suite.start({ profile: selection.profile, workDir, log: () => {}, options: suite.parseOptions?.(selection.suiteOptions[suite.name] ?? {}) ?? {} });
      const apps: App[] = existsSync(appsDir(suite.name)) ? loadApps(suite.name) : [];
      for (const selected of resolved.filter((r) => r.suite === suite)) {
        for (const runtime of RUNTIMES) {
          for (const subject of session.subjects(selected.scenario, namedRuntime(runtime, "0.0.0"))) {
            const key = JSON.stringify([suite.name, selected.scenario.name, subject.app, subject.params]);
            const known = series.get(key);
            if (known) {
              known.runtimes.push(runtime);
              continue;
            }
            const app = apps.find((candidate) => candidate.name === subject.app);
            series.set(key, {
              suite: suite.name,
              scenario: selected.scenario.name,
              app: subject.app,
              params: subject.params,
              profile: selection.profile,
              metrics: Object.entries(subject.scenario.metrics).map(([name, m]) => ({ name, unit: m.unit, better: m.better, base: level(name, m.unit), samples })),
              runtimes: [runtime],
              unsupported: (name, version) => unsupportedReason(selected, namedRuntime(name, version)) ?? (app ? unsupportedApp(app, namedRuntime(name, version)) : null),
            });
          }
        }
      }
      // Nothing is started before a check, but a session may have made its scratch folders.
      await session.close?.();
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return [...series.values()];
}

/** A plausible typical value on Node for a metric of this unit (levels are arbitrary; the shape is what pages draw). */
function typicalLevel(_metric: string, unit: string): number {
  return TYPICAL_BY_UNIT[unit] ?? 20;
}

const TYPICAL_BY_UNIT: Readonly<Record<string, number>> = {
  ms: 20,
  "µs": 50,
  s: 0.5,
  MB: 60,
  "MB/s": 1_500,
  "req/s": 20_000,
  "msg/s": 20_000,
  "deliveries/s": 200_000,
  "ops/s": 20_000,
  fraction: 0.95,
  x: 2,
  // Counts (the counting pass): a start's calls and faults, a request's or an operation's calls.
  "calls/start": 700,
  "faults/start": 3_000,
  "switches/start": 30,
  threads: 7,
  fds: 20,
  "calls/req": 2,
  "calls/msg": 2,
  "calls/op": 5,
  "calls/file": 5,
  "calls/MB": 16,
  "calls/entry": 2,
  "calls/count": 500,
  "calls/delivery": 1,
  "calls/install": 20_000,
  "files/install": 900,
  "MB/10k req": 1,
  "MB/10k msg": 1,
  "MB/10k deliveries": 1,
};

const scale = new Map<SuiteProfile, Promise<SyntheticSeries[]>>();

/** Every cell of every suite's scenarios, apps and load points in a profile (the dedicated machines run `full`). */
export function scaleSeries(profile: SuiteProfile): Promise<readonly SyntheticSeries[]> {
  if (!scale.has(profile)) scale.set(profile, seriesOf({ profile, scenarios: [], suiteOptions: {} }, typicalLevel, 10));
  return scale.get(profile)!;
}

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

/**
 * A metric's summary. Its interval is the normal approximation of a median's (1.2533 σ/√n either
 * side, times 1.96), not a bootstrap: the samples are drawn from a normal distribution, and a
 * bootstrap per metric took half the time of writing a history. Its ends are samples, the nearest
 * outside those bounds, as a bootstrap's percentiles are: ends of full precision made the
 * five-year site 309 MB instead of 197 (2026-11-27), far from what real results weigh.
 */
function summaryOf(metric: SyntheticMetric, level: number, random: () => number) {
  const cap = metric.unit === "fraction" ? 1 : Infinity;
  const samples = Array.from({ length: metric.samples }, () => Math.min(cap, Number((level * (1 + 0.03 * gaussian(random))).toPrecision(6))));
  const [middle, spread, min, max] = [median(samples), stddev(samples), Math.min(...samples), Math.max(...samples)];
  const half = (1.96 * 1.2533 * spread) / Math.sqrt(samples.length);
  return {
    unit: metric.unit,
    better: metric.better,
    samples,
    median: middle,
    mean: mean(samples),
    stddev: spread,
    min,
    max,
    ci95: [samples.reduce((end, x) => (x <= middle - half && x > end ? x : end), min), samples.reduce((end, x) => (x >= middle + half && x < end ? x : end), max)] as [number, number],
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
      for (const runtime of series.runtimes) {
        for (const runner of plan.runners) {
          // A share (success rate, efficiency) is near 1 on every runtime and machine; other figures differ by both.
          const spread = metric.unit === "fraction" ? 1 : RUNTIME_FACTOR[runtime] ** (metric.better === "lower" ? 1 : -1) * (runner.arch === "arm64" ? 1.25 : 1);
          let level = metric.base * spread;
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
  const unsupported = series.unsupported(run.runtime, run.version);
  const failed = unsupported === null && random() < plan.failureRate;
  const status: ResultStatus = unsupported !== null ? "unsupported" : failed ? "failed" : "ok";
  const runNoise = 1 + 0.01 * gaussian(random);
  const metrics =
    status === "ok"
      ? Object.fromEntries(series.metrics.map((m) => [m.name, summaryOf(m, levels.get(levelKey(series, m, run.runtime, run.runner))![run.versionIndex]! * runNoise, random)]))
      : {};
  const appFlag = series.app ? ` --app ${series.app}` : "";
  return makeResult({
    run: { id: run.id, started_at: isoDate(run.date), runner: run.runner.name, runner_kind: run.runner.kind, profile: series.profile },
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
    ...(unsupported !== null ? { error: unsupported } : {}),
    ...(status === "failed" ? { error: "check before measuring failed: no answer within 10 s" } : {}),
    metrics,
    reproduce: `scripts/bench run --suite ${series.suite} --scenario ${series.scenario}${appFlag} --runtime ${run.runtime}@${run.version} --profile ${series.profile}`,
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
      if (!series.runtimes.includes(run.runtime)) continue;
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

/** About the size of five years of two dedicated machines' history: what the scale benchmarks measure the harness against. */
const FIVE_YEAR_DOCUMENTS = 108_000;

/**
 * Five years of results: every cell of the real suites in the full profile (what the dedicated
 * machines run) on each runtime that has it, on two architectures, each version measured twice;
 * as many versions per runtime as bring the total near 108,000 documents (so the history keeps
 * its size as suites gain cells).
 */
export async function fiveYearPlan(): Promise<SyntheticPlan> {
  const series = await scaleSeries("full");
  const runsPerVersion = 2;
  const cells = series.reduce((sum, s) => sum + s.runtimes.length, 0);
  return {
    runners: SYNTHETIC_RUNNERS,
    versionsPerRuntime: Math.max(1, Math.round(FIVE_YEAR_DOCUMENTS / (cells * SYNTHETIC_RUNNERS.length * runsPerVersion))),
    runsPerVersion,
    series,
    from: new Date("2021-01-01T00:00:00Z"),
    to: new Date("2026-01-01T00:00:00Z"),
    failureRate: 0.005,
    seed: 1,
  };
}

/** Writes the five-year history into `dataDir` unless it already holds something (generating it takes minutes). */
export async function ensureFiveYearHistory(dataDir: string): Promise<void> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return;
  const started = performance.now();
  const written = await writeSyntheticResults(dataDir, await fiveYearPlan());
  process.stderr.write(`generated ${written} result documents in ${((performance.now() - started) / 1000).toFixed(0)} s into ${dataDir}\n`);
}

/** The cells of the release job's selection (the default selection) in a profile, every metric at `samples` samples. */
export function defaultSelectionSeries(profile: SuiteProfile): Promise<SyntheticSeries[]> {
  return seriesOf({ ...defaultSelection(), profile }, typicalLevel, 10);
}

export const LOCAL_RUNNER: SyntheticRunner = { name: "local-laptop", kind: "local", arch: "x86_64", cpu_model: "Laptop CPU", fingerprint: "0011223344556677" };
