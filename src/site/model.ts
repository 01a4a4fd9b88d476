/**
 * The JSON files the site build writes below `<out>/data/` and the browser reads: one contract,
 * imported by both sides (src/site/ and site/src/), so neither can drift from the other.
 * Nothing here may import runtime code: the browser bundle includes this file.
 */
import type { MetricDefinition, Profile, ResultStatus, RunnerKind } from "../results/types.ts";
import type { ChainedPoint } from "../regressions/chains.ts";
import type { Arch, RuntimeName } from "../runtimes/catalog.ts";

/** The order runtimes appear in on every page (and the order of their colours). */
export const SITE_RUNTIMES: readonly RuntimeName[] = ["node", "deno", "bun"];

/**
 * A machine as the site tells machines apart: a runner name with the hardware fingerprint it had.
 * Figures are only ever drawn together, or compared, within one testbed.
 */
export interface TestbedRef {
  /** `<runner>-<first 8 hex digits of the fingerprint>`: stable across builds, safe in file names. */
  id: string;
  runner: string;
  kind: RunnerKind;
  arch: Arch;
  fingerprint: string;
  cpu_model: string;
  /** The pool of identical machines its runner belongs to, and what the runner runs there now; null outside a pool. */
  pool: PoolMembership | null;
}

/** A runner's place in a pool (.github/bench-runners.json): each scenario's series lives on the member that runs it. */
export interface PoolMembership {
  name: string;
  /** Whole suites (`http`) and single scenarios (`http/crud`) it runs. */
  runs: string[];
}

/** Whether a scenario's current series is on this testbed's machine: a machine outside a pool runs every scenario. */
export function runsScenario(testbed: TestbedRef, suite: string, scenario: string): boolean {
  return testbed.pool === null || testbed.pool.runs.includes(suite) || testbed.pool.runs.includes(`${suite}/${scenario}`);
}

/**
 * The testbeds with a series of the scenario, in the catalog's order (benchmark machines first),
 * except that a pool member that ran the scenario once comes after the machines that run it now.
 */
export function scenarioTestbeds(catalog: CatalogData, scenario: CatalogData["scenarios"][number]): TestbedRef[] {
  const withData = new Set(scenario.series.flatMap((s) => s.testbeds));
  const runs = (t: TestbedRef) => (runsScenario(t, scenario.suite, scenario.scenario) ? 0 : 1);
  return catalog.testbeds.filter((t) => withData.has(t.id)).sort((a, b) => runs(a) - runs(b));
}

/**
 * The first of `testbeds` with figures of the app and load point (of any, where undefined): a runner's new machine
 * may not yet have measured every series its old one did, so a view opens on one that has, unless a machine is asked for.
 */
export function testbedWithFigures(scenario: CatalogData["scenarios"][number], testbeds: TestbedRef[], app: string | null | undefined, params: string | undefined): TestbedRef {
  const asked = scenario.series.filter((s) => (app === undefined || s.app === app) && (params === undefined || s.params === params));
  // A machine that measured one version of each runtime (a side-by-side run) draws dots, not a trend: one with a runtime's history comes first.
  return testbeds.find((t) => asked.some((s) => s.trending.includes(t.id))) ?? testbeds.find((t) => asked.some((s) => s.measured.includes(t.id))) ?? testbeds[0]!;
}

/**
 * How a picker and a chart name a machine: its CPU, and its fingerprint's first digits, since a
 * runner's machines can share a CPU model (a reference testbed's hosts, a runner replaced by its
 * like); its pool and what it runs there.
 */
export function machineLabel(testbed: TestbedRef): string {
  const pool = testbed.pool ? `, pool ${testbed.pool.name}: ${testbed.pool.runs.join(", ")}` : "";
  return `${testbed.runner} (${testbed.kind}, ${testbed.arch}, ${testbed.cpu_model}, machine ${testbed.fingerprint.slice(0, 8)}${pool})`;
}

/** What one line of a chart measures: a scenario, and the app and load point that tell its series apart. */
export interface SeriesKey {
  suite: string;
  scenario: string;
  app: string | null;
  /** `connections=100,rate=500` (src/results/write.ts paramsSlug); empty when the scenario has none. */
  params: string;
}

/** One metric of one result: median, 95 % interval of the median, and how many samples it rests on. */
export type Figure = [median: number, ci95Low: number, ci95High: number, samples: number];

/** One result document, reduced to what a chart shows and a reader needs to trace it. */
export interface ReducedResult {
  runtime: RuntimeName;
  version: string;
  started_at: string;
  run: string;
  profile: Profile;
  status: ResultStatus;
  /** First line of the reason, for results that are not ok. */
  error?: string;
  reproduce: string;
  /** Empty unless status is ok: a failed result is never plotted as a number. */
  values: Record<string, Figure>;
}

/** A step detected by `scripts/bench regressions`, placed on the trend chart at the version it came in. */
export interface ChangeMarker {
  runtime: RuntimeName;
  version: string;
  metric: string;
  /** A confirmed step, or (on a chained trend) the link into this version ran on another machine. */
  kind: "regression" | "improvement" | "machine";
  summary: string;
}

/** `data/series/<testbed>/<suite>/<scenario>/<app>--<params>.json`: the trend chart of one series on one testbed. */
export interface TrendData {
  generated_at: string;
  series: SeriesKey;
  testbed: TestbedRef;
  scenario_version: number;
  metrics: Record<string, MetricDefinition>;
  /** Every result of the series on the testbed, per runtime, oldest version first, then by date. */
  runtimes: Partial<Record<RuntimeName, ReducedResult[]>>;
  /**
   * Per runtime and metric, the smallest change the series confirms at 95 % from its own runs of
   * the scenario version drawn (src/site/detectable.ts); null while it has too few runs.
   */
  detectable: Partial<Record<RuntimeName, Record<string, number | null>>>;
  changes: ChangeMarker[];
}

/** One architecture's group of bars on an overview card: the newest version of each runtime. */
export interface OverviewGroup {
  testbed: TestbedRef;
  figures: ReducedResult[];
  /**
   * Runtimes whose newest version of this series was measured on another machine of the same
   * runner (a reference testbed whose host changed, a runner whose machine was replaced), newer
   * than any `figures` holds: another machine's absolute figures are never drawn beside these.
   */
  newer_elsewhere: { runtime: RuntimeName; version: string; testbed: string }[];
  /**
   * Where the group joins apps that each run on one runtime (install: npm on Node, deno install,
   * bun install), the app of each runtime's figure; absent: every figure is of the card's headline series.
   */
  apps?: Partial<Record<RuntimeName, string>>;
}

export interface ScenarioInfo {
  suite: string;
  scenario: string;
  /** From the scenario's manifest; null when this checkout has no manifest for it. */
  description: string | null;
  /** The newest scenario version in the data: results of older versions are not drawn. */
  scenario_version: number;
  metrics: Record<string, MetricDefinition>;
  /** The metric a card shows first: the manifest's first. */
  primary: string;
  /** The manifest's `headline` (`state=clean`): the load point a card draws where its series hold it. */
  headline_params?: string;
}

/** `data/overview.json`: one card per scenario, for its headline series. */
export interface OverviewData {
  generated_at: string;
  /** The most versions any runtime has on any machine: 1 after a first run, when the overview says what one run can say. */
  most_versions: number;
  scenarios: (ScenarioInfo & { headline: SeriesKey; series_count: number; groups: OverviewGroup[] })[];
}

/** `data/catalog.json`: what exists, for the pickers of the scenario and compare pages. */
export interface CatalogData {
  generated_at: string;
  testbeds: TestbedRef[];
  /**
   * Each series with the testbeds it has results on, the ones where any result is a figure (ok), and
   * those where a runtime has figures of two versions or more (`trending`: a trend, not one dot each).
   */
  scenarios: (ScenarioInfo & { series: { app: string | null; params: string; testbeds: string[]; measured: string[]; trending: string[] }[] })[];
  /** Measured versions per testbed and runtime, oldest first. */
  versions: Record<string, Partial<Record<RuntimeName, string[]>>>;
  /** Per runner and runtime, its newest release against the release it was measured beside on the most series, and the machine (`releasePairs` in src/site/aggregate.ts). */
  release_pairs: Record<string, Partial<Record<RuntimeName, MachinePair>>>;
  /** What the Compare page opens on: `compareDefault` in src/site/aggregate.ts; null without results. */
  compare_default: MachinePair | null;
}

/** Safe in a file name and a URL path segment, as result file names are. */
export function fileSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9._=,@+-]/g, "_");
}

export function testbedId(runner: string, fingerprint: string): string {
  return `${runner}-${fingerprint.slice(0, 8)}`;
}

/** Where a series' trend file sits below the site root, as a relative URL (no leading slash). Its CSV is made on the page from it. */
export function trendPath(testbed: string, series: SeriesKey): string {
  const file = `${fileSafe(series.app ?? "_")}--${fileSafe(series.params || "_")}`;
  return `data/series/${fileSafe(testbed)}/${series.suite}/${series.scenario}/${file}.json`;
}

/** The chained trends' files the site has: the trend page offers the chained view where one exists. */
export const CHAIN_INDEX_PATH = "data/chains/index.json";

export interface ChainIndex {
  files: string[];
}

/**
 * `data/chains/<runner>/<suite>/<scenario>/<app>--<params>.json`: a series' chained trends on one
 * runner (src/regressions/chains.ts), per runtime and metric, each chain's points in version order.
 * A runner, not a testbed: a chain carries on across a change of machine.
 */
export interface ChainData {
  runner: string;
  series: SeriesKey;
  runtimes: Partial<Record<RuntimeName, Record<string, ChainedPoint[][]>>>;
}

export function chainPath(runner: string, series: SeriesKey): string {
  return trendPath(runner, series).replace(/^data\/series\//, "data/chains/");
}

/** Where an overview card's data sits, for its download links. */
export function overviewCardPath(suite: string, scenario: string): string {
  return `data/overview/${suite}--${scenario}.json`;
}

export function seriesLabel(series: SeriesKey): string {
  return [series.app, series.params.replace(/,/g, ", ")].filter(Boolean).join(" · ");
}

/** One side of a comparison: a runtime's version. */
export interface Side {
  runtime: RuntimeName;
  version: string;
}

/** Two sides of a comparison, the base first. */
export interface ComparePair {
  base: Side;
  head: Side;
}

/** Two sides of a comparison on one machine. */
export interface MachinePair extends ComparePair {
  testbed: string;
}

/** Node is the usual baseline, Bun the usual challenger: base first. */
export const DEFAULT_PAIR_ORDER: readonly RuntimeName[] = ["node", "bun", "deno"];

/**
 * The pair a reader most wants first: what the newest release changed, its predecessor against it
 * (of the first runtime, Node, Bun, Deno, with two versions measured); with one version of each, as
 * after a first `scripts/bench`, the newest Bun against the newest Node (or the two runtimes
 * measured, in that order of preference).
 */
export function defaultPair(versions: CatalogData["versions"][string]): ComparePair {
  const measured = DEFAULT_PAIR_ORDER.filter((r) => (versions[r] ?? []).length > 0);
  const newest = (runtime: RuntimeName, back = 0): Side => {
    const list = versions[runtime]!;
    return { runtime, version: list[Math.max(0, list.length - 1 - back)]! };
  };
  const released = measured.find((r) => versions[r]!.length >= 2);
  if (released !== undefined) return { base: newest(released, 1), head: newest(released) };
  if (measured.length >= 2) return { base: newest(measured[0]!), head: newest(measured[1]!) };
  return { base: newest(measured[0]!), head: newest(measured[0]!) };
}
