/**
 * The files the compare page computes from, with src/compare/compare.ts itself (bundled into the
 * page), so its numbers are those of `scripts/bench compare`. Two runtime versions are any two of
 * hundreds: too many pairs to compute at build time, so the build writes per version its results,
 * and per runtime the run medians that noise floors are measured from, each cut by suite: a row
 * needs only its own cell's results and series, so the page fetches one suite's files at a time,
 * the first before its first table and the others as the reader scrolls or picks a suite. Shared
 * by the build (which writes them) and the page (which turns them back into result documents).
 * No runtime imports.
 */
import type { MeasuredCell } from "../compare/types.ts";
import type { ParamValue } from "../core/params.ts";
import type { Environment } from "../env/fingerprint.ts";
import type { MetricDefinition, MetricSummary, ResultDocument, RunInfo } from "../results/types.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import type { RuntimeIdentity } from "../runtimes/identify.ts";
import { profileOf } from "../compare/syscall-diff.ts";
import { mean, median, quantileSorted, stddev } from "../stats/summary.ts";
import type { SyscallProfile } from "../tools/strace.ts";
import { fileSafe, type CatalogData, type TestbedRef } from "./model.ts";

const DERIVED_FIELDS = ["mean", "stddev", "min", "max"] as const;
/** Every field of a MetricDefinition: the fields a result's metric shares with its scenario's definition. */
const DEFINITION_FIELDS = ["unit", "better", "resolution", "exact", "client_limited"] as const satisfies readonly (keyof MetricDefinition)[];
/**
 * A metric as the bundle keeps it: its samples exactly, with the interval they were summarised by.
 * The mean, standard deviation and extremes (DERIVED_FIELDS), which follow from the samples, are
 * computed again on the page (a quarter of the bytes of five years of compare files), and so is the
 * median where it is the samples' median (every result's, so far: a tenth of the bytes). The
 * definition (unit, better...) is the bundle's `definitions` entry of its scenario and metric, and
 * only a metric whose definition differs from that entry keeps its own (unit and better were
 * another sixth of the bytes, repeated in every result).
 */
export type BundledMetric = Omit<MetricSummary, (typeof DERIVED_FIELDS)[number] | (typeof DEFINITION_FIELDS)[number] | "median"> &
  Partial<MetricDefinition> & { median?: number };

/**
 * The bundles' format. 1 had no `format` field and every metric kept its definition and median,
 * which the reader below takes as they are; a newer format than the page knows is refused rather
 * than misread (a page cached from an earlier build meeting files of a later one).
 */
export const COMPARE_BUNDLE_FORMAT = 2;

/** `data/compare/<testbed>/<runtime>/<version>/<suite>.json`: every ok result of one runtime version in one suite on one testbed. */
export interface CompareBundle {
  format?: number;
  testbed: string;
  runtime: RuntimeName;
  version: string;
  /** Shared parts, stored once and referred to by index from each result. */
  environments: Environment[];
  identities: RuntimeIdentity[];
  runs: RunInfo[];
  /** Per scenario and metric, the definition its first result in the bundle records. */
  definitions?: Record<string, Record<string, MetricDefinition>>;
  results: {
    run: number;
    environment: number;
    identity: number;
    suite: string;
    scenario: string;
    scenario_version: number;
    app: string | null;
    params: Record<string, ParamValue>;
    metrics: Record<string, BundledMetric>;
    /** What a paired comparison reads besides the samples (two versions measured in one run). */
    label?: string;
    sequential?: ResultDocument["sequential"];
    /** The calls by name of a counted result, which explain a change in its counts (src/compare/syscall-diff.ts). */
    syscall_counts?: SyscallProfile;
  }[];
}

/** `data/compare/<testbed>/<runtime>/history--<suite>.json`: the median of every run of every series of one suite and runtime on one testbed. */
export interface CompareHistory {
  testbed: TestbedRef;
  runtime: RuntimeName;
  runs: { id: string; version: string; started_at: string }[];
  series: (MeasuredCell & {
    /** One per run, null where the run has no ok result of this series. */
    medians: (number | null)[];
  })[];
}

export function compareBundlePath(testbed: string, runtime: RuntimeName, version: string, suite: string): string {
  return `data/compare/${fileSafe(testbed)}/${runtime}/${fileSafe(version)}/${fileSafe(suite)}.json`;
}

export function compareHistoryPath(testbed: string, runtime: RuntimeName, suite: string): string {
  return `data/compare/${fileSafe(testbed)}/${runtime}/history--${fileSafe(suite)}.json`;
}

/**
 * The suites with series on a testbed, in the catalog's order (startup and HTTP first): the build
 * writes each version's and runtime's files for every one of them (empty where a version has no
 * result of the suite), so the page may ask for any without a missing file.
 */
export function compareSuites(catalog: Pick<CatalogData, "scenarios">, testbed: string): string[] {
  const withSeries = catalog.scenarios.filter((s) => s.series.some((series) => series.testbeds.includes(testbed)));
  return [...new Set(withSeries.map((s) => s.suite))];
}

/** Sorting buffers by length: a new typed array per metric (as `median` makes) took four fifths of writing the bundles. */
const sortBuffers = new Map<number, Float64Array>();

/** Whether `value` is exactly, to the last bit, what `median(samples)` gives on the page. */
function isSamplesMedian(samples: readonly number[], value: number): boolean {
  let sorted = sortBuffers.get(samples.length);
  if (!sorted) sortBuffers.set(samples.length, (sorted = new Float64Array(samples.length)));
  sorted.set(samples);
  return quantileSorted(sorted.sort(), 0.5) === value;
}

const LEFT_OUT = new Set<string>([...DERIVED_FIELDS, ...DEFINITION_FIELDS, "median"]);

function definitionOf(metric: MetricSummary): MetricDefinition {
  const definition: Record<string, unknown> = {};
  for (const field of DEFINITION_FIELDS) if (metric[field] !== undefined) definition[field] = metric[field];
  return definition as unknown as MetricDefinition;
}

const sameDefinition = (metric: Partial<MetricDefinition>, definition: MetricDefinition) => DEFINITION_FIELDS.every((field) => metric[field] === definition[field]);

/**
 * A result's metrics as the bundle keeps them, their other fields in their order. Copied field by
 * field: rest destructuring (in Object.entries and fromEntries) of the five-year build's million
 * metrics took nearly twice as long.
 */
function bundledMetrics(metrics: ResultDocument["metrics"], definitions: Record<string, MetricDefinition>): Record<string, BundledMetric> {
  const bundled: Record<string, BundledMetric> = {};
  for (const name in metrics) {
    const metric = metrics[name]!;
    const definition = (definitions[name] ??= definitionOf(metric));
    const kept: Record<string, unknown> = sameDefinition(metric, definition) ? {} : { ...definitionOf(metric) };
    for (const field in metric) if (!LEFT_OUT.has(field)) kept[field] = metric[field as keyof MetricSummary];
    if (!isSamplesMedian(metric.samples, metric.median)) kept.median = metric.median;
    bundled[name] = kept as BundledMetric;
  }
  return bundled;
}

/** Index of `value` in `list`, appending it the first time it is seen. */
function indexIn<T>(list: T[], value: T): number {
  const at = list.indexOf(value);
  return at >= 0 ? at : list.push(value) - 1;
}

/** The ok results of one runtime version on one testbed, their shared parts stored once. */
export function bundleOf(testbed: string, runtime: RuntimeName, version: string, docs: readonly ResultDocument[]): CompareBundle {
  const definitions: Record<string, Record<string, MetricDefinition>> = {};
  const bundle: CompareBundle = { format: COMPARE_BUNDLE_FORMAT, testbed, runtime, version, environments: [], identities: [], runs: [], definitions, results: [] };
  for (const doc of docs) {
    if (doc.status !== "ok") continue;
    const calls = profileOf(doc);
    bundle.results.push({
      run: indexIn(bundle.runs, doc.run),
      environment: indexIn(bundle.environments, doc.environment),
      identity: indexIn(bundle.identities, doc.runtime),
      suite: doc.suite,
      scenario: doc.scenario,
      scenario_version: doc.scenario_version,
      app: doc.app,
      params: doc.params,
      metrics: bundledMetrics(doc.metrics, (definitions[doc.scenario] ??= {})),
      ...(doc.label !== undefined ? { label: doc.label } : {}),
      ...(doc.sequential !== undefined ? { sequential: doc.sequential } : {}),
      ...(calls ? { syscall_counts: calls } : {}),
    });
  }
  return bundle;
}

/** A bundled metric with its definition and what follows from its samples (no spread: a metric may keep many samples). */
function summaryOf(metric: BundledMetric, definition: MetricDefinition | undefined): MetricSummary {
  const { samples } = metric;
  const own = metric.unit !== undefined ? {} : definition;
  return {
    ...own,
    ...metric,
    median: metric.median ?? median(samples),
    mean: mean(samples),
    stddev: stddev(samples),
    min: samples.reduce((a, b) => Math.min(a, b)),
    max: samples.reduce((a, b) => Math.max(a, b)),
  } as MetricSummary;
}

/** The bundle's results as the result documents they were (without tools, verification, the command that reproduces them and details but the calls by name). */
export function bundleDocuments(bundle: CompareBundle): ResultDocument[] {
  if ((bundle.format ?? 1) > COMPARE_BUNDLE_FORMAT) throw new Error(`compare files of format ${bundle.format}, newer than this page's ${COMPARE_BUNDLE_FORMAT}: reload the page`);
  const definitions = bundle.definitions ?? {};
  return bundle.results.map((r) => ({
    schema: "runtime-bench/result/v1",
    run: bundle.runs[r.run]!,
    environment: bundle.environments[r.environment]!,
    runtime: bundle.identities[r.identity]!,
    suite: r.suite,
    scenario: r.scenario,
    scenario_version: r.scenario_version,
    app: r.app,
    params: r.params,
    status: "ok",
    tools: {},
    metrics: Object.fromEntries(Object.entries(r.metrics).map(([name, m]) => [name, summaryOf(m, definitions[r.scenario]?.[name])])),
    // No comparison reads it, and it is a tenth of five years of compare files: the trend files have it.
    reproduce: "",
    ...(r.label !== undefined ? { label: r.label } : {}),
    ...(r.sequential !== undefined ? { sequential: r.sequential } : {}),
    ...(r.syscall_counts !== undefined ? { details: { syscall_counts: r.syscall_counts } } : {}),
  }));
}

/** Every run's median of every series of one runtime on one testbed: all that noise floors are measured from. */
export function historyOf(testbed: TestbedRef, runtime: RuntimeName, docs: readonly ResultDocument[]): CompareHistory {
  const history: CompareHistory = { testbed, runtime, runs: [], series: [] };
  // The runs first, so that each series' medians are made at their full length: filled at scattered places, an array grows slowly.
  const runIndex = new Map<string, number>();
  const runOf = docs.map((doc) => {
    if (doc.status !== "ok") return -1;
    const runKey = `${doc.run.id}\u0000${doc.runtime.version}`;
    let run = runIndex.get(runKey);
    if (run === undefined) {
      run = history.runs.push({ id: doc.run.id, version: doc.runtime.version, started_at: doc.run.started_at }) - 1;
      runIndex.set(runKey, run);
    }
    return run;
  });
  // Series by cell, then by metric: a key per metric would be made a million times over five years.
  const cells = new Map<string, Map<string, CompareHistory["series"][number]>>();
  docs.forEach((doc, i) => {
    const run = runOf[i]!;
    if (run < 0) return;
    const cell = JSON.stringify([doc.suite, doc.scenario, doc.scenario_version, doc.app, doc.params]);
    let metrics = cells.get(cell);
    if (!metrics) cells.set(cell, (metrics = new Map()));
    for (const metric in doc.metrics) {
      const summary = doc.metrics[metric]!;
      let series = metrics.get(metric);
      if (!series) {
        const { suite, scenario, scenario_version, app, params } = doc;
        series = { suite, scenario, scenario_version, app, params, metric, unit: summary.unit, better: summary.better, medians: new Array<number | null>(history.runs.length).fill(null) };
        history.series.push(series);
        metrics.set(metric, series);
      }
      series.medians[run] = summary.median;
    }
  });
  return history;
}

/**
 * The history as result documents for `compareResults(base, head, { history })`. Noise floors are
 * measured from each run's version, start time and median (src/compare/noise.ts), which these
 * documents carry exactly; their other fields are the testbed's, or neutral.
 */
export function historyDocuments(history: CompareHistory): ResultDocument[] {
  const { testbed } = history;
  const environment: Environment = {
    arch: testbed.arch,
    os: "",
    kernel: "",
    cpu_model: testbed.cpu_model,
    cpus: 1,
    memory_bytes: 1,
    governor: null,
    smt: null,
    turbo: null,
    loopback_mtu: null,
    fingerprint: testbed.fingerprint,
  };
  const docs: ResultDocument[] = [];
  history.runs.forEach((run, i) => {
    for (const series of history.series) {
      const median = series.medians[i];
      if (median === null || median === undefined) continue;
      docs.push({
        schema: "runtime-bench/result/v1",
        run: { id: run.id, started_at: run.started_at, runner: testbed.runner, runner_kind: testbed.kind, profile: "quick", harness_commit: "", trials: 1 },
        environment,
        runtime: { name: history.runtime, version: run.version, engine: "", source: "registry", sha256: "", spec: "", package: null },
        suite: series.suite,
        scenario: series.scenario,
        scenario_version: series.scenario_version,
        app: series.app,
        params: series.params,
        status: "ok",
        tools: {},
        metrics: { [series.metric]: { unit: series.unit, better: series.better, samples: [median], median, mean: median, stddev: 0, min: median, max: median, ci95: [median, median] } },
        reproduce: "",
      });
    }
  });
  return docs;
}
