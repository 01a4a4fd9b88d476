/**
 * One part of a site build: the results of some runners (a testbed's results all lie below its
 * runner's folder), loaded, cut into their testbeds' trend and compare files, which the part writes
 * itself, and summarised for what the build makes from every part: the overview, the catalog, the
 * findings and the methodology. The build runs a part per core, each in a worker thread
 * (src/site/part-worker.ts), so that five years of two machines' history is read, cut and written
 * by both cores at once; with one part it runs in the build's own thread.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { environmentKey } from "../compare/series-key.ts";
import { findFindings, findingDocs, type Finding } from "../findings/detect.ts";
import type { RegressionReport } from "../regressions/types.ts";
import type { ResultDocument } from "../results/types.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import { measuredVersions, scenarioFacts, testbedTrends, trendSummary, type ScenarioFacts, type TrendSummary } from "./aggregate.ts";
import { bundleOf, compareBundlePath, compareHistoryPath, historyOf } from "./compare-data.ts";
import { loadResults, placeInPools, type LoadedData, type SiteResult, type TestbedFacts } from "./load.ts";
import { trendPath, type PoolMembership, type ScenarioInfo, type TestbedRef } from "./model.ts";

export interface PartInput {
  readonly dataDir: string;
  readonly outDir: string;
  readonly runners: readonly string[];
}

/** What a loaded part tells the build before anything is written. */
export interface PartFacts {
  readonly results: number;
  readonly skipped: readonly string[];
  readonly scenarios: ScenarioFacts;
  readonly testbeds: Map<string, TestbedFacts>;
}

/** What the build tells every part once all have loaded. */
export interface PartPlan {
  /** Each scenario's newest version and metrics over every part. */
  readonly infos: ReadonlyMap<string, ScenarioInfo>;
  /** The pool of each dedicated runner in one, by runner name (`placeInPools`). */
  readonly pools: ReadonlyMap<string, PoolMembership>;
  readonly report: RegressionReport | null;
  readonly generatedAt: string;
}

/** What a part made, for the pages. */
export interface PartSummary {
  readonly trends: TrendSummary[];
  /** Each finding's cell, with the results a reproduction of it is made from. */
  readonly findings: { cell: Finding; docs: ResultDocument[] }[];
  readonly files: number;
}

/** Writes each file as it is made, so that the part never holds its whole output. */
class FileWriter {
  private readonly folders = new Set<string>();
  count = 0;

  constructor(private readonly outDir: string) {}

  write(path: string, text: string): void {
    const file = join(this.outDir, path);
    const folder = dirname(file);
    if (!this.folders.has(folder)) {
      mkdirSync(folder, { recursive: true });
      this.folders.add(folder);
    }
    writeFileSync(file, text);
    this.count += 1;
  }
}

/** The compare page's files of one testbed: per runtime and suite its history, per version and suite its results. */
function writeCompareFiles(writer: FileWriter, testbed: TestbedRef, versions: Partial<Record<RuntimeName, string[]>>, suites: readonly string[], results: readonly SiteResult[]): void {
  for (const [runtime, list] of Object.entries(versions) as [RuntimeName, string[]][]) {
    const bySuite = new Map(suites.map((suite) => [suite, new Map(list.map((v) => [v, [] as ResultDocument[]]))]));
    for (const { series, doc } of results) if (doc.runtime.name === runtime) bySuite.get(series.suite)?.get(doc.runtime.version)?.push(doc);
    for (const [suite, byVersion] of bySuite) {
      writer.write(compareHistoryPath(testbed.id, runtime, suite), JSON.stringify(historyOf(testbed, runtime, [...byVersion.values()].flat())));
      for (const [version, docs] of byVersion) writer.write(compareBundlePath(testbed.id, runtime, version, suite), JSON.stringify(bundleOf(testbed.id, runtime, version, docs)));
    }
  }
}

export class BuildPart {
  private constructor(
    private readonly input: PartInput,
    private readonly loaded: LoadedData,
  ) {}

  static load(input: PartInput): BuildPart {
    return new BuildPart(input, loadResults(input.dataDir, input.runners));
  }

  facts(): PartFacts {
    const { results, skipped, testbeds } = this.loaded;
    return { results: results.length, skipped, scenarios: scenarioFacts(results), testbeds };
  }

  /** Writes the part's trend and compare files, and finds its findings. */
  build(plan: PartPlan): PartSummary {
    const { loaded } = this;
    placeInPools(loaded.testbeds, plan.pools);
    const writer = new FileWriter(this.input.outDir);
    const environmentKeys = new Map<string, string>();
    for (const r of loaded.results) if (!environmentKeys.has(r.testbed)) environmentKeys.set(r.testbed, environmentKey(r.doc));
    const { trends, comparable } = testbedTrends(loaded, plan.infos, plan.report, environmentKeys, plan.generatedAt);
    for (const trend of trends) writer.write(trendPath(trend.testbed.id, trend.series), JSON.stringify(trend));
    const summaries = trends.map(trendSummary);
    const versions = measuredVersions(summaries);
    for (const [testbed, results] of comparable) {
      const suites = [...new Set(trends.filter((t) => t.testbed.id === testbed).map((t) => t.series.suite))];
      writeCompareFiles(writer, loaded.testbeds.get(testbed)!.ref, versions[testbed] ?? {}, suites, results);
    }
    const docs = loaded.results.map((r) => r.doc);
    const findings = findFindings(docs).map((cell) => ({ cell, docs: findingDocs(cell, docs) }));
    return { trends: summaries, findings, files: writer.count };
  }
}
