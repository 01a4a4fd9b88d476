import { existsSync, readFileSync, readdirSync } from "node:fs";
import { copyFile, cp, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { environmentKey } from "../compare/series-key.ts";
import { UserError } from "../core/errors.ts";
import { FEED_ATOM_FILE } from "../regressions/feed-atom.ts";
import { FEED_JSON_FILE } from "../regressions/feed-json.ts";
import type { ResultDocument } from "../results/types.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import type { DescribedScenario } from "../scenarios/manifest.ts";
import { aggregate, preferredFirst, type ManifestFacts } from "./aggregate.ts";
import { bundleAssets, SITE_SOURCE_DIR } from "./bundle.ts";
import { bundleOf, compareBundlePath, compareHistoryPath, compareSuites, historyOf } from "./compare-data.ts";
import { html } from "./html.ts";
import { loadResults, type SiteResult } from "./load.ts";
import { methodologyBody } from "./methodology.ts";
import { overviewCardPath, trendPath, type CatalogData, type PoolMembership, type TestbedRef } from "./model.ts";
import { compareBody, overviewBody, renderPage, scenarioBody, type PageFrame } from "./pages.ts";
import { readFeed, regressionsBody } from "./regressions.ts";
import { findingsBody, profilesPath, reproductionPath } from "./findings.ts";
import { FINDINGS_ATOM_FILE, findingsAtom, type FindingAttachments } from "../findings/feed-atom.ts";
import { PROFILE_SUMMARY, PROFILES_SUBDIR, type RuntimeProfile } from "../findings/profile/run.ts";
import { findFindings, findingDocs, type Finding } from "../findings/detect.ts";
import { findingAnchor } from "../findings/format.ts";
import { groupFindings, type FindingGroup } from "../findings/group.ts";

/** Marks a folder as a built site, so a rebuild may empty it and nothing else ever is. */
const SITE_MARKER = ".runtime-bench-site";

export interface SiteBuildOptions {
  readonly dataDir: string;
  readonly outDir: string;
  /** The scenarios of this checkout, described by their suites (the methodology page, headline metrics). */
  readonly scenarios: readonly DescribedScenario[];
  /** Where `scripts/bench regressions --feed-dir` wrote the feed; without it the Regressions page says none is computed. */
  readonly feedDir?: string;
  /** The pool of each dedicated runner in one (.github/bench-runners.json), by runner name: a suite's series is shown from the member that runs it. */
  readonly pools?: ReadonlyMap<string, PoolMembership>;
  /**
   * Writes a finding's reproduction as a .tar.gz (its results given, one per runtime version);
   * false where the suite has none. The CLI gives it, so the site imports no suite code.
   */
  readonly reproductionArchive?: (docs: readonly ResultDocument[], file: string) => Promise<boolean>;
  /** Where `scripts/bench findings --profile` wrote each finding's CPU profiles; the site shows and links them. */
  readonly profilesDir?: string;
  /** The build's timestamp (tests pass a fixed one). */
  readonly now?: Date;
}

export interface SiteBuildSummary {
  readonly outDir: string;
  readonly results: number;
  readonly testbeds: number;
  readonly scenarios: number;
  readonly files: number;
  readonly feed: boolean;
  /** Files below the data folder that are not result documents. */
  readonly skipped: readonly string[];
  readonly seconds: number;
}

/** Empties the output folder, refusing one that holds anything but an earlier build. */
async function prepareOutDir(outDir: string): Promise<void> {
  if (existsSync(outDir)) {
    const entries = readdirSync(outDir);
    if (entries.length > 0 && !entries.includes(SITE_MARKER)) throw new UserError(`${outDir}: not empty and not a site built by runtime-bench; choose another --out`);
    await rm(outDir, { recursive: true, force: true });
  }
  await mkdir(outDir, { recursive: true });
  // GitHub Pages would otherwise run Jekyll, which drops files whose names start with "_".
  await Promise.all([writeFile(join(outDir, SITE_MARKER), ""), writeFile(join(outDir, ".nojekyll"), "")]);
}

/** Writes files below `outDir`, creating folders as needed; returns how many. */
async function writeFiles(outDir: string, files: ReadonlyMap<string, string>): Promise<number> {
  const folders = new Set([...files.keys()].map((path) => dirname(join(outDir, path))));
  for (const folder of folders) await mkdir(folder, { recursive: true });
  await Promise.all([...files].map(([path, text]) => writeFile(join(outDir, path), text)));
  return files.size;
}

/** What the site published beside a cell, for its group's feed entry. */
function attachments(cell: Finding, downloads: ReadonlySet<string>, profiles: ReadonlyMap<string, unknown>): FindingAttachments {
  const anchor = findingAnchor(cell);
  return {
    ...(downloads.has(anchor) ? { reproduction: reproductionPath(cell) } : {}),
    ...(profiles.has(anchor) ? { profiles: `${profilesPath(cell)}/${PROFILE_SUMMARY}` } : {}),
  };
}

/** Copies the profiles of each group's first cell (from `findings --profile`) into the site; returns their summaries by cell anchor. */
async function publishProfiles(outDir: string, groups: readonly FindingGroup[], profilesDir: string | undefined): Promise<Map<string, RuntimeProfile[]>> {
  const published = new Map<string, RuntimeProfile[]>();
  if (profilesDir === undefined) return published;
  for (const { representative } of groups) {
    const source = join(profilesDir, findingAnchor(representative), PROFILES_SUBDIR);
    const summary = join(source, PROFILE_SUMMARY);
    if (!existsSync(summary)) continue;
    await cp(source, join(outDir, profilesPath(representative)), { recursive: true });
    published.set(findingAnchor(representative), JSON.parse(readFileSync(summary, "utf8")) as RuntimeProfile[]);
  }
  return published;
}

/** Each cell's reproduction archive, where the suite has one; returns the anchors written. */
async function writeReproductions(outDir: string, findings: readonly Finding[], docs: readonly ResultDocument[], archive: SiteBuildOptions["reproductionArchive"]): Promise<Set<string>> {
  const written = new Set<string>();
  if (!archive) return written;
  for (const finding of findings) {
    const file = join(outDir, reproductionPath(finding));
    await mkdir(dirname(file), { recursive: true });
    if (await archive(findingDocs(finding, docs), file)) written.add(findingAnchor(finding));
  }
  return written;
}

/** The compare page's files of one testbed: per runtime and suite its history, per version and suite its results. */
function compareFiles(files: Map<string, string>, catalog: CatalogData, testbed: TestbedRef, results: readonly SiteResult[]): void {
  const suites = compareSuites(catalog, testbed.id);
  for (const [runtime, versions] of Object.entries(catalog.versions[testbed.id] ?? {}) as [RuntimeName, string[]][]) {
    const bySuite = new Map(suites.map((suite) => [suite, new Map(versions.map((v) => [v, [] as ResultDocument[]]))]));
    for (const r of results) if (r.reduced.runtime === runtime) bySuite.get(r.series.suite)?.get(r.reduced.version)?.push(r.doc);
    for (const [suite, byVersion] of bySuite) {
      files.set(compareHistoryPath(testbed.id, runtime, suite), JSON.stringify(historyOf(testbed, runtime, [...byVersion.values()].flat())));
      for (const [version, docs] of byVersion) files.set(compareBundlePath(testbed.id, runtime, version, suite), JSON.stringify(bundleOf(testbed.id, runtime, version, docs)));
    }
  }
}

/** Builds the static site from the results in `dataDir` into `outDir`. */
export async function buildSite(options: SiteBuildOptions): Promise<SiteBuildSummary> {
  const started = performance.now();
  const dataDir = resolve(options.dataDir);
  const outDir = resolve(options.outDir);
  const generatedAt = (options.now ?? new Date()).toISOString();

  const loaded = loadResults(dataDir, options.pools);
  const scenarios = options.scenarios;
  const manifests = new Map<string, ManifestFacts>(
    scenarios.map(({ scenario, metrics }) => [`${scenario.suite}/${scenario.name}`, { description: scenario.manifest.description, metrics }]),
  );
  const environmentKeys = new Map<string, string>();
  for (const r of loaded.results) if (!environmentKeys.has(r.testbed)) environmentKeys.set(r.testbed, environmentKey(r.doc));
  const feed = options.feedDir === undefined ? null : readFeed(resolve(options.feedDir));
  const { overview, catalog, trends, comparable } = aggregate(loaded, manifests, feed?.report ?? null, environmentKeys, generatedAt);

  await prepareOutDir(outDir);
  const assets = await bundleAssets(outDir);

  const files = new Map<string, string>();
  files.set("data/overview.json", JSON.stringify(overview));
  files.set("data/catalog.json", JSON.stringify(catalog));
  for (const card of overview.scenarios) {
    files.set(overviewCardPath(card.suite, card.scenario), JSON.stringify(card));
  }
  for (const trend of trends) {
    files.set(trendPath(trend.testbed.id, trend.series), JSON.stringify(trend));
  }
  for (const [testbed, results] of comparable) compareFiles(files, catalog, loaded.testbeds.get(testbed)!.ref, results);

  const testbeds = [...loaded.testbeds.keys()].sort(preferredFirst(loaded.testbeds)).map((id) => loaded.testbeds.get(id)!);
  const frame: PageFrame = {
    template: readFileSync(join(SITE_SOURCE_DIR, "templates/page.html"), "utf8"),
    assetVersion: assets.version,
    head: html`${feed?.atomPath ? html`<link rel="alternate" type="application/atom+xml" title="runtime-bench regressions" href="${FEED_ATOM_FILE}">` : ""}<link rel="alternate" type="application/atom+xml" title="runtime-bench findings" href="${FINDINGS_ATOM_FILE}">`,
    footer: html`<p>Built ${generatedAt.slice(0, 16).replace("T", " ")} UTC from ${loaded.results.length} results on ${loaded.testbeds.size} machine${loaded.testbeds.size === 1 ? "" : "s"}. Every chart's data can be downloaded as JSON and CSV. <a href="methodology.html">How we measure</a>.</p>`,
  };
  files.set("index.html", renderPage(frame, "overview", "Overview", overviewBody));
  files.set("scenario.html", renderPage(frame, "scenario", "Trends", scenarioBody));
  files.set("compare.html", renderPage(frame, "compare", "Compare", compareBody));
  const findings = findFindings(loaded.results.map((r) => r.doc));
  const groups = groupFindings(findings);
  const downloads = await writeReproductions(outDir, findings, loaded.results.map((r) => r.doc), options.reproductionArchive);
  const profiles = await publishProfiles(outDir, groups, options.profilesDir);
  files.set("findings.html", renderPage(frame, "findings", "Findings", findingsBody(groups, downloads, profiles)));
  files.set(FINDINGS_ATOM_FILE, findingsAtom(groups, (cell) => attachments(cell, downloads, profiles), generatedAt));
  files.set("regressions.html", renderPage(frame, "regressions", "Regressions", regressionsBody(feed)));
  files.set("methodology.html", renderPage(frame, "methodology", "Methodology", methodologyBody(scenarios, testbeds, catalog)));
  let written = await writeFiles(outDir, files);
  if (feed) {
    await copyFile(feed.jsonPath, join(outDir, FEED_JSON_FILE));
    if (feed.atomPath) await copyFile(feed.atomPath, join(outDir, FEED_ATOM_FILE));
    written += feed.atomPath ? 2 : 1;
  }
  return {
    outDir,
    results: loaded.results.length,
    testbeds: loaded.testbeds.size,
    scenarios: overview.scenarios.length,
    files: written + assets.files + downloads.size,
    feed: feed !== null,
    skipped: loaded.skipped,
    seconds: (performance.now() - started) / 1000,
  };
}
