import { compareVersions, groupBy } from "../compare/series-key.ts";
import type { RegressionReport } from "../regressions/types.ts";
import type { MetricDefinition } from "../results/types.ts";
import { paramsSlug, type ParamValue } from "../core/params.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import { detectableChanges } from "./detectable.ts";
import { reducedResult, type SiteResult, type TestbedFacts } from "./load.ts";
import {
  DEFAULT_PAIR_ORDER,
  SITE_RUNTIMES,
  defaultPair,
  type CatalogData,
  type ChangeMarker,
  type ReducedResult,
  type OverviewData,
  type OverviewGroup,
  type ScenarioInfo,
  type SeriesKey,
  type MachinePair,
  type Side,
  type TestbedRef,
  type TrendData,
  runsScenario,
} from "./model.ts";


/** What a reader opens the site for first: startup and HTTP lead the overview and the scenario list. */
const LEADING_SUITES = ["startup", "http"];

function leadingSuitesFirst(a: string, b: string): number {
  const rank = (id: string) => {
    const at = LEADING_SUITES.indexOf(id.split("/")[0]!);
    return at === -1 ? LEADING_SUITES.length : at;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}
/** What the build knows of a scenario from its manifest in this checkout. */
export interface ManifestFacts {
  readonly description: string;
  readonly metrics: Readonly<Record<string, MetricDefinition>>;
  readonly headline?: Readonly<Record<string, ParamValue>>;
}

/** One series on one testbed, with its results: the unit every page is cut from. */
interface SeriesOnTestbed {
  readonly testbed: TestbedRef;
  readonly series: SeriesKey;
  readonly results: SiteResult[];
}

export interface Aggregates {
  readonly overview: OverviewData;
  readonly catalog: CatalogData;
  readonly trends: TrendData[];
  /** Results of the current scenario versions, per testbed: what the compare tables are made from. */
  readonly comparable: Map<string, SiteResult[]>;
}

const scenarioId = (suite: string, scenario: string) => `${suite}/${scenario}`;
const seriesId = (s: SeriesKey) => [s.suite, s.scenario, s.app ?? "", s.params].join("\u0000");

/** Series of a scenario in reading order: no app first, then apps by name, then load points numerically. */
function compareSeries(a: SeriesKey, b: SeriesKey): number {
  if ((a.app === null) !== (b.app === null)) return a.app === null ? -1 : 1;
  return (a.app ?? "").localeCompare(b.app ?? "") || a.params.localeCompare(b.params, "en", { numeric: true });
}

/**
 * Oldest version first, then by start time. Versions are ranked once (semver parsing in a sort of
 * 100,000 results would dominate the build), in the order src/compare/series-key.ts defines.
 */
function resultOrder(results: readonly SiteResult[]): (a: SiteResult, b: SiteResult) => number {
  const versions = [...new Set(results.map((r) => r.doc.runtime.version))].sort(compareVersions);
  const rank = new Map(versions.map((v, i) => [v, i]));
  return ({ doc: a }, { doc: b }) =>
    rank.get(a.runtime.version)! - rank.get(b.runtime.version)! || (a.run.started_at < b.run.started_at ? -1 : a.run.started_at > b.run.started_at ? 1 : 0);
}

const KIND_RANK = { dedicated: 0, reference: 1, hosted: 2, local: 3 } as const;

const ARCH_RANK = { x86_64: 0, arm64: 1 } as const;

/**
 * Which testbed speaks first: benchmark machines before hosted and local ones, x86_64 before arm64
 * (the order of the overview's groups), then the most recently measured.
 */
export function preferredFirst(testbeds: Map<string, TestbedFacts>): (a: string, b: string) => number {
  return (a, b) => {
    const fa = testbeds.get(a)!.ref;
    const fb = testbeds.get(b)!.ref;
    return KIND_RANK[fa.kind] - KIND_RANK[fb.kind] || ARCH_RANK[fa.arch] - ARCH_RANK[fb.arch] || testbeds.get(b)!.last.localeCompare(testbeds.get(a)!.last) || a.localeCompare(b);
  };
}

/** `preferredFirst` for one scenario: in a pool, the member that runs it now comes before those that ran it once. */
function preferredFor(info: ScenarioInfo, testbeds: Map<string, TestbedFacts>): (a: string, b: string) => number {
  const preferred = preferredFirst(testbeds);
  const runs = (id: string) => (runsScenario(testbeds.get(id)!.ref, info.suite, info.scenario) ? 0 : 1);
  return (a, b) => runs(a) - runs(b) || preferred(a, b);
}

/**
 * What a part of the results knows of each scenario: the metrics its results record at each
 * scenario version, in the order first seen. Parts of a build each send theirs (src/site/part.ts).
 */
export type ScenarioFacts = Map<string, Map<number, Map<string, MetricDefinition>>>;

export function scenarioFacts(results: readonly SiteResult[]): ScenarioFacts {
  const facts: ScenarioFacts = new Map();
  for (const r of results) {
    const id = scenarioId(r.series.suite, r.series.scenario);
    let versions = facts.get(id);
    if (!versions) facts.set(id, (versions = new Map()));
    let metrics = versions.get(r.scenarioVersion);
    if (!metrics) versions.set(r.scenarioVersion, (metrics = new Map()));
    // Only a metric's first result makes its definition: one per result cost 7 % of loading them.
    for (const name in r.doc.metrics) {
      if (metrics.has(name)) continue;
      const { unit, better } = r.doc.metrics[name]!;
      metrics.set(name, { unit, better });
    }
  }
  return facts;
}

/** Each scenario at its newest version in any part, with the metrics recorded at it: the manifest's order first, so its first is the headline one. */
export function scenarioInfos(parts: readonly ScenarioFacts[], manifests: ReadonlyMap<string, ManifestFacts>): Map<string, ScenarioInfo> {
  const newest = new Map<string, number>();
  for (const part of parts) for (const [id, versions] of part) newest.set(id, Math.max(newest.get(id) ?? 0, ...versions.keys()));
  const infos = new Map<string, ScenarioInfo>();
  for (const [id, version] of newest) {
    const metrics = new Map<string, MetricDefinition>();
    for (const part of parts) for (const [name, metric] of part.get(id)?.get(version) ?? []) if (!metrics.has(name)) metrics.set(name, metric);
    const manifest = manifests.get(id);
    // The manifest's order first, so its first metric is the headline one; then what only the data has.
    const names = [...Object.keys(manifest?.metrics ?? {}).filter((name) => metrics.has(name)), ...metrics.keys()];
    const ordered = Object.fromEntries([...new Set(names)].map((name) => [name, metrics.get(name)!]));
    const [suite, scenario] = id.split("/") as [string, string];
    const headline = manifest?.headline === undefined ? {} : { headline_params: paramsSlug(manifest.headline) };
    infos.set(id, { suite, scenario, description: manifest?.description ?? null, scenario_version: version, metrics: ordered, primary: Object.keys(ordered)[0] ?? "", ...headline });
  }
  return infos;
}

/** Markers for the confirmed changes of the regressions feed, by testbed and series. */
function changeMarkers(report: RegressionReport | null, environmentKeys: ReadonlyMap<string, string>): Map<string, ChangeMarker[]> {
  const markers = new Map<string, ChangeMarker[]>();
  if (!report) return markers;
  for (const change of report.changes) {
    if (change.status !== "confirmed") continue;
    const testbed = [...environmentKeys].find(([, key]) => change.series.startsWith(`${key} `))?.[0];
    if (!testbed || !(SITE_RUNTIMES as readonly string[]).includes(change.runtime)) continue;
    const key = `${testbed}\u0000${seriesId({ suite: change.suite, scenario: change.scenario, app: change.app, params: paramsSlug(change.params) })}`;
    const percent = ((change.ratio - 1) * 100).toFixed(1);
    const list = markers.get(key) ?? [];
    list.push({
      runtime: change.runtime as RuntimeName,
      version: change.to_version,
      metric: change.metric,
      kind: change.kind,
      summary: `${change.kind} from ${change.from_version}: ${Number(percent) > 0 ? "+" : ""}${percent} % (95 % CI ×${change.ci95[0].toFixed(3)}–×${change.ci95[1].toFixed(3)})`,
    });
    markers.set(key, list);
  }
  return markers;
}

function trendOf(
  group: SeriesOnTestbed,
  info: ScenarioInfo,
  changes: ChangeMarker[],
  order: (a: SiteResult, b: SiteResult) => number,
  generatedAt: string,
): TrendData {
  const runtimes: TrendData["runtimes"] = {};
  const detectable: TrendData["detectable"] = {};
  for (const name of SITE_RUNTIMES) {
    // In order once: the detectable change sorts each metric's runs the same way, which then costs nothing.
    const results = group.results.filter((r) => r.doc.runtime.name === name).sort(order);
    if (results.length === 0) continue;
    runtimes[name] = results.map((r) => reducedResult(r.doc));
    detectable[name] = detectableChanges(results.filter((r) => r.scenarioVersion === info.scenario_version).map((r) => r.doc));
  }
  return {
    generated_at: generatedAt,
    series: group.series,
    testbed: group.testbed,
    scenario_version: info.scenario_version,
    metrics: info.metrics,
    runtimes,
    detectable,
    changes,
  };
}

/** The newest version of each runtime, with its newest ok result (or, when it has none, its newest result). */
function newestFigures(trend: TrendData): ReducedResult[] {
  const figures: ReducedResult[] = [];
  for (const name of SITE_RUNTIMES) {
    const points = trend.runtimes[name];
    if (!points || points.length === 0) continue;
    const newestVersion = points[points.length - 1]!.version;
    const ofVersion = points.filter((p) => p.version === newestVersion);
    figures.push(ofVersion.filter((p) => p.status === "ok").pop() ?? ofVersion[ofVersion.length - 1]!);
  }
  return figures;
}

/** What the overview and the catalog need of one trend: small enough to send from a part of the build. */
export interface TrendSummary {
  readonly testbed: TestbedRef;
  readonly series: SeriesKey;
  readonly newest: ReducedResult[];
  /** Per runtime, the versions with an ok result. */
  readonly okVersions: Partial<Record<RuntimeName, string[]>>;
}

export function trendSummary(trend: TrendData): TrendSummary {
  const okVersions: TrendSummary["okVersions"] = {};
  for (const [name, points] of Object.entries(trend.runtimes) as [RuntimeName, ReducedResult[]][]) okVersions[name] = [...new Set(points.filter((p) => p.status === "ok").map((p) => p.version))];
  return { testbed: trend.testbed, series: trend.series, newest: newestFigures(trend), okVersions };
}

/**
 * The series a scenario's overview card shows: the one most runtimes have figures for, at the
 * manifest's headline load point where any series holds it (install's `clean`: in other states the
 * managers do different work, docs/suites/install.md).
 */
function headlineSeries(trends: readonly TrendSummary[], loadPoint: string | undefined): SeriesKey {
  const wanted = loadPoint?.split(",") ?? [];
  const atPoint = trends.filter((t) => wanted.every((param) => t.series.params.split(",").includes(param)));
  const score = (t: TrendSummary) => t.newest.filter((f) => f.status === "ok").length;
  const best = [...(atPoint.length > 0 ? atPoint : trends)].sort((a, b) => score(b) - score(a) || compareSeries(a.series, b.series))[0]!;
  return best.series;
}

/** The results of the current scenario versions, grouped by testbed and series: what the trend files are cut from. */
function currentSeries(results: readonly SiteResult[], testbeds: Map<string, TestbedFacts>, infos: ReadonlyMap<string, ScenarioInfo>) {
  const groups = new Map<string, SeriesOnTestbed>();
  const comparable = new Map<string, SiteResult[]>();
  for (const r of results) {
    if (infos.get(scenarioId(r.series.suite, r.series.scenario))?.scenario_version !== r.scenarioVersion) continue;
    const key = `${r.testbed}\u0000${seriesId(r.series)}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { testbed: testbeds.get(r.testbed)!.ref, series: r.series, results: [] }));
    group.results.push(r);
    const list = comparable.get(r.testbed);
    if (list) list.push(r);
    else comparable.set(r.testbed, [r]);
  }
  return { groups, comparable };
}

/** The trends of some results (one part of a build, or all of them), each series on each testbed, and the results the compare files are made from. */
export function testbedTrends(
  loaded: { results: readonly SiteResult[]; testbeds: Map<string, TestbedFacts> },
  infos: ReadonlyMap<string, ScenarioInfo>,
  report: RegressionReport | null,
  environmentKeys: ReadonlyMap<string, string>,
  generatedAt: string,
): { trends: TrendData[]; comparable: Map<string, SiteResult[]> } {
  const { groups, comparable } = currentSeries(loaded.results, loaded.testbeds, infos);
  const markers = changeMarkers(report, environmentKeys);
  const order = resultOrder([...comparable.values()].flat());
  const trends = [...groups.entries()].map(([key, group]) =>
    trendOf(group, infos.get(scenarioId(group.series.suite, group.series.scenario))!, markers.get(key) ?? [], order, generatedAt),
  );
  return { trends, comparable };
}

/** Measured versions per testbed and runtime, oldest first: the catalog's, and the compare files' (one file per version). */
export function measuredVersions(summaries: readonly TrendSummary[]): CatalogData["versions"] {
  const known = new Map<string, Map<RuntimeName, Set<string>>>();
  for (const t of summaries) {
    let perRuntime = known.get(t.testbed.id);
    if (!perRuntime) known.set(t.testbed.id, (perRuntime = new Map()));
    for (const [name, versions] of Object.entries(t.okVersions) as [RuntimeName, string[]][]) {
      const set = perRuntime.get(name) ?? new Set<string>();
      for (const v of versions) set.add(v);
      perRuntime.set(name, set);
    }
  }
  return Object.fromEntries([...known].map(([id, perRuntime]) => [id, Object.fromEntries([...perRuntime].map(([name, set]) => [name, [...set].sort(compareVersions)]))]));
}

/** The newest version of each runtime in a trend's figures, or undefined where it has none. */
const newestOk = (trend: TrendSummary, runtime: RuntimeName) => [...(trend.okVersions[runtime] ?? [])].sort(compareVersions).at(-1);

/** Runtimes of a series newer on another machine of the trend's runner than on the trend's own, each with its newest version there. */
function newerElsewhere(trend: TrendSummary, sameSeries: readonly TrendSummary[]): OverviewGroup["newer_elsewhere"] {
  const others = sameSeries.filter((t) => t.testbed.runner === trend.testbed.runner && t.testbed.id !== trend.testbed.id);
  const runtimes = [...new Set(others.flatMap((t) => Object.keys(t.okVersions) as RuntimeName[]))].sort();
  return runtimes.flatMap((runtime) => {
    const newest = others
      .map((t) => ({ version: newestOk(t, runtime), testbed: t.testbed.id }))
      .filter((v): v is { version: string; testbed: string } => v.version !== undefined)
      .sort((a, b) => compareVersions(b.version, a.version))[0];
    const here = newestOk(trend, runtime);
    return newest !== undefined && (here === undefined || compareVersions(newest.version, here) > 0) ? [{ runtime, ...newest }] : [];
  });
}

const okRuntimes = (trend: TrendSummary) => new Set(trend.newest.filter((f) => f.status === "ok").map((f) => f.runtime));

/** Whether a one-runtime series' newest figure is newer than another's: a later version, or the same measured later. */
const newerFigure = (a: TrendSummary, b: TrendSummary) => compareVersions(a.newest[0]!.version, b.newest[0]!.version) > 0 || (a.newest[0]!.version === b.newest[0]!.version && a.newest[0]!.started_at > b.newest[0]!.started_at);

/**
 * A card's group on one testbed: the headline series' newest figures. Where that series holds at
 * most one runtime and the scenario's apps each run on one runtime (install: npm on Node, deno
 * install, bun install), no series compares runtimes, so the group joins, at the headline's load
 * point, each other runtime's app: of its apps, the one with the newest figure (the first by name on
 * a tie). `apps` then names each figure's app.
 */
function overviewGroup(trend: TrendSummary, scenarioTrends: readonly TrendSummary[]): OverviewGroup {
  const sameSeries = (series: SeriesKey) => scenarioTrends.filter((t) => seriesId(t.series) === seriesId(series));
  const headline = { testbed: trend.testbed, figures: trend.newest, newer_elsewhere: newerElsewhere(trend, sameSeries(trend.series)) };
  const present = okRuntimes(trend);
  if (trend.series.app === null || present.size > 1) return headline;
  const joined = new Map<RuntimeName, TrendSummary>();
  const candidates = scenarioTrends.filter((t) => t.testbed.id === trend.testbed.id && t.series.app !== null && t.series.params === trend.series.params && okRuntimes(t).size === 1);
  for (const other of candidates.sort((a, b) => compareSeries(a.series, b.series))) {
    const runtime = [...okRuntimes(other)][0]!;
    const current = joined.get(runtime);
    if (!present.has(runtime) && (current === undefined || newerFigure(other, current))) joined.set(runtime, other);
  }
  if (joined.size === 0) return headline;
  const figures = trend.newest.map((figure) => ({ figure, app: trend.series.app! }));
  for (const [runtime, other] of joined) figures.push(...other.newest.filter((f) => f.runtime === runtime).map((figure) => ({ figure, app: other.series.app! })));
  const ordered = SITE_RUNTIMES.flatMap((runtime) => figures.filter((f) => f.figure.runtime === runtime));
  const elsewhere = [...joined].flatMap(([runtime, other]) => newerElsewhere(other, sameSeries(other.series)).filter((n) => n.runtime === runtime));
  return {
    testbed: trend.testbed,
    figures: ordered.map((f) => f.figure),
    newer_elsewhere: [...headline.newer_elsewhere, ...elsewhere],
    apps: Object.fromEntries(ordered.map((f) => [f.figure.runtime, f.app])),
  };
}

/**
 * Each runner's newest release of each runtime against the release it was measured beside, for
 * Compare's opening and its quick picks: of the runner's machines that measured the newest release
 * beside an older one, and of those older releases, the pair both sides of which measured the most
 * series (on a tie, the preferred machine, then the nearer release). A reference testbed's most
 * recent host may hold the newest release alone (a side-by-side run), and a release's nearest
 * predecessor may be a narrowing run's one scenario where a sweep's link (26.0.0 → 26.12.1)
 * measured every suite.
 */
function releasePairs(summaries: readonly TrendSummary[], ordered: readonly TestbedRef[], versions: CatalogData["versions"]): CatalogData["release_pairs"] {
  const seriesOf = groupBy(summaries, (summary) => summary.testbed.id);
  const holds = (summary: TrendSummary, side: Side) => summary.okVersions[side.runtime]?.includes(side.version) ?? false;
  const coverage = ({ testbed, base, head }: MachinePair) => (seriesOf.get(testbed) ?? []).filter((s) => holds(s, base) && holds(s, head)).length;
  const pairs: CatalogData["release_pairs"] = {};
  for (const runner of new Set(ordered.map((t) => t.runner))) {
    const machines = ordered.filter((t) => t.runner === runner && versions[t.id] !== undefined);
    for (const runtime of SITE_RUNTIMES) {
      const newest = machines.flatMap((t) => versions[t.id]![runtime] ?? []).sort(compareVersions).at(-1);
      const candidates = machines.flatMap((t) => {
        const list = versions[t.id]![runtime] ?? [];
        const older = newest === undefined || !list.includes(newest) ? [] : list.slice(0, list.indexOf(newest)).reverse();
        return older.map((version): MachinePair => ({ testbed: t.id, base: { runtime, version }, head: { runtime, version: newest! } }));
      });
      if (candidates.length === 0) continue;
      const best = candidates.map((pair) => ({ pair, covered: coverage(pair) })).reduce((top, next) => (next.covered > top.covered ? next : top)).pair;
      (pairs[runner] ??= {})[runtime] = best;
    }
  }
  return pairs;
}

/**
 * What the Compare page opens on: on the preferred machine's runner, the release pair of the first
 * runtime (Node, Bun, Deno) that has one; without one, the preferred machine's `defaultPair`.
 */
function compareDefault(ordered: readonly TestbedRef[], versions: CatalogData["versions"], pairs: CatalogData["release_pairs"]): MachinePair | null {
  const first = ordered.find((t) => Object.keys(versions[t.id] ?? {}).length > 0);
  if (first === undefined) return null;
  const released = DEFAULT_PAIR_ORDER.map((runtime) => pairs[first.runner]?.[runtime]).find((pair) => pair !== undefined);
  return released ?? { testbed: first.id, ...defaultPair(versions[first.id]!) };
}

/** The overview's cards and the catalog, from the summaries of every trend of every testbed. */
export function pagesData(summaries: readonly TrendSummary[], testbeds: Map<string, TestbedFacts>, infos: ReadonlyMap<string, ScenarioInfo>, generatedAt: string): { overview: OverviewData; catalog: CatalogData } {
  const byScenario = new Map<string, TrendSummary[]>();
  for (const trend of summaries) {
    const id = scenarioId(trend.series.suite, trend.series.scenario);
    const list = byScenario.get(id);
    if (list) list.push(trend);
    else byScenario.set(id, [trend]);
  }
  const scenarioIds = [...infos.keys()].filter((id) => byScenario.has(id)).sort(leadingSuitesFirst);
  const preferredOf = (id: string) => preferredFor(infos.get(id)!, testbeds);
  const versions = measuredVersions(summaries);
  const overview: OverviewData = {
    generated_at: generatedAt,
    most_versions: Math.max(0, ...Object.values(versions).flatMap((perRuntime) => Object.values(perRuntime).map((list) => list.length))),
    scenarios: scenarioIds.map((id) => {
      const scenarioTrends = byScenario.get(id)!;
      const headline = headlineSeries(scenarioTrends, infos.get(id)!.headline_params);
      const inOrder = preferredOf(id);
      const headlineTrends = scenarioTrends.filter((t) => seriesId(t.series) === seriesId(headline)).sort((a, b) => inOrder(a.testbed.id, b.testbed.id));
      const groupsByArch: OverviewGroup[] = [];
      for (const arch of ["x86_64", "arm64"] as const) {
        const trend = headlineTrends.find((t) => t.testbed.arch === arch);
        if (trend) groupsByArch.push(overviewGroup(trend, scenarioTrends));
      }
      return { ...infos.get(id)!, headline, series_count: new Set(scenarioTrends.map((t) => seriesId(t.series))).size, groups: groupsByArch };
    }),
  };
  const ordered = [...testbeds.keys()].sort(preferredFirst(testbeds)).map((id) => testbeds.get(id)!.ref);
  const pairs = releasePairs(summaries, ordered, versions);
  const catalog: CatalogData = {
    generated_at: generatedAt,
    testbeds: ordered,
    scenarios: scenarioIds.map((id) => ({ ...infos.get(id)!, series: catalogSeries(byScenario.get(id)!, preferredOf(id)) })),
    versions,
    release_pairs: pairs,
    compare_default: compareDefault(ordered, versions, pairs),
  };
  return { overview, catalog };
}

/** A scenario's series with the testbeds they are on, and those where any result is a figure. */
function catalogSeries(trends: readonly TrendSummary[], inOrder: (a: string, b: string) => number): CatalogData["scenarios"][number]["series"] {
  const seriesTestbeds = new Map<string, { key: SeriesKey; testbeds: string[]; measured: string[]; trending: string[] }>();
  for (const trend of trends) {
    const entry = seriesTestbeds.get(seriesId(trend.series)) ?? { key: trend.series, testbeds: [], measured: [], trending: [] };
    entry.testbeds.push(trend.testbed.id);
    if (Object.values(trend.okVersions).some((list) => list.length > 0)) entry.measured.push(trend.testbed.id);
    if (Object.values(trend.okVersions).some((list) => list.length > 1)) entry.trending.push(trend.testbed.id);
    seriesTestbeds.set(seriesId(trend.series), entry);
  }
  return [...seriesTestbeds.values()]
    .sort((a, b) => compareSeries(a.key, b.key))
    .map(({ key, testbeds, measured, trending }) => ({ app: key.app, params: key.params, testbeds: testbeds.sort(inOrder), measured: measured.sort(inOrder), trending: trending.sort(inOrder) }));
}

/** Cuts the loaded results into the per-page files in one go: overview, catalog, one trend per series and testbed. */
export function aggregate(
  loaded: { results: readonly SiteResult[]; testbeds: Map<string, TestbedFacts> },
  manifests: ReadonlyMap<string, ManifestFacts>,
  report: RegressionReport | null,
  environmentKeys: ReadonlyMap<string, string>,
  generatedAt: string,
): Aggregates {
  const infos = scenarioInfos([scenarioFacts(loaded.results)], manifests);
  const { trends, comparable } = testbedTrends(loaded, infos, report, environmentKeys, generatedAt);
  return { ...pagesData(trends.map(trendSummary), loaded.testbeds, infos, generatedAt), trends, comparable };
}
