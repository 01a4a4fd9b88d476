import { existsSync, readFileSync } from "node:fs";
import { copyFile, cp, mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { FEED_ATOM_FILE } from "../regressions/feed-atom.ts";
import { FEED_JSON_FILE } from "../regressions/feed-json.ts";
import { writeChainFiles } from "./chains.ts";
import type { DescribedScenario } from "../scenarios/manifest.ts";
import { pagesData, preferredFirst, scenarioInfos, type ManifestFacts } from "./aggregate.ts";
import { bundleAssets, SITE_SOURCE_DIR } from "./bundle.ts";
import { html } from "./html.ts";
import { prepareOutDir } from "./folders.ts";
import { placeInPools, type TestbedFacts } from "./load.ts";
import { methodologyBody } from "./methodology.ts";
import { overviewCardPath, type CatalogData, type OverviewData, type PoolMembership } from "./model.ts";
import type { PartFacts, PartSummary } from "./part.ts";
import { startSiteBuild, type SiteStart } from "./parts.ts";
import { compareBody, overviewBody, renderPage, scenarioBody, type PageFrame } from "./pages.ts";
import { readFeed, regressionsBody } from "./regressions.ts";
import { findingsBody, profilesPath, reproductionPath, type Reproductions } from "./findings.ts";
import { FINDINGS_ATOM_FILE, findingsAtom, type FindingAttachments } from "../findings/feed-atom.ts";
import { PROFILE_SUMMARY, PROFILES_SUBDIR, type RuntimeProfile } from "../findings/profile/run.ts";
import type { Finding } from "../findings/detect.ts";
import type { ResultDocument } from "../results/types.ts";
import { findingAnchor } from "../findings/format.ts";
import { groupFindings, type FindingGroup } from "../findings/group.ts";

export interface SiteBuildOptions {
  readonly dataDir: string;
  readonly outDir: string;
  /**
   * The scenarios of this checkout, described by their suites (the methodology page, headline
   * metrics); or what describes them, called once the parts have started, so that describing them
   * (a third of a second) overlaps the parts' loading instead of preceding it.
   */
  readonly scenarios: readonly DescribedScenario[] | (() => readonly DescribedScenario[]);
  /** Where `scripts/bench regressions --feed-dir` wrote the feed; without it the Regressions page says none is computed. */
  readonly feedDir?: string;
  /** The pool of each dedicated runner in one (.github/bench-runners.json), by runner name: a suite's series is shown from the member that runs it. */
  readonly pools?: ReadonlyMap<string, PoolMembership>;
  /**
   * Writes a finding's reproduction as a .tar.gz (its results given, one per runtime version), or
   * says why there is none. The CLI gives it, so the site imports no suite code.
   */
  readonly reproductionArchive?: (docs: readonly ResultDocument[], file: string) => Promise<{ written: true } | { written: false; why: string }>;
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

/** Writes files below `outDir`, creating folders as needed; returns how many. */
async function writeFiles(outDir: string, files: ReadonlyMap<string, string>): Promise<number> {
  const folders = new Set([...files.keys()].map((path) => dirname(join(outDir, path))));
  for (const folder of folders) await mkdir(folder, { recursive: true });
  await Promise.all([...files].map(([path, text]) => writeFile(join(outDir, path), text)));
  return files.size;
}

/** What the site published beside a cell, for its group's feed entry. */
function attachments(cell: Finding, reproductions: Reproductions, profiles: ReadonlyMap<string, unknown>): FindingAttachments {
  const anchor = findingAnchor(cell);
  return {
    ...(reproductions.written.has(anchor) ? { reproduction: reproductionPath(cell) } : {}),
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

/** Each cell's reproduction archive, where it can have one; the anchors written, and why each other has none. */
async function writeReproductions(outDir: string, cells: PartSummary["findings"], archive: SiteBuildOptions["reproductionArchive"]): Promise<Reproductions> {
  const reproductions = { written: new Set<string>(), missing: new Map<string, string>() };
  if (!archive) return reproductions;
  for (const { cell, docs } of cells) {
    const file = join(outDir, reproductionPath(cell));
    await mkdir(dirname(file), { recursive: true });
    const outcome = await archive(docs, file);
    if (outcome.written) reproductions.written.add(findingAnchor(cell));
    else reproductions.missing.set(findingAnchor(cell), outcome.why);
  }
  return reproductions;
}

/** The parts' facts merged: how many results, which were skipped, each scenario at its newest version, every testbed (in its pool). */
function mergeFacts(facts: readonly PartFacts[], manifests: ReadonlyMap<string, ManifestFacts>, pools: ReadonlyMap<string, PoolMembership>) {
  const testbeds = new Map(facts.flatMap((f) => [...f.testbeds]));
  placeInPools(testbeds, pools);
  return {
    results: facts.reduce((n, f) => n + f.results, 0),
    skipped: facts.flatMap((f) => f.skipped),
    infos: scenarioInfos(facts.map((f) => f.scenarios), manifests),
    testbeds,
  };
}

/**
 * Builds the static site from the results in `dataDir` into `outDir`. The parts of the build
 * (src/site/parts.ts) load the results, one part per core, and write each testbed's trend and
 * compare files; this thread meanwhile empties the output folder and bundles the assets, then
 * writes what needs every part: the overview, the catalog and the pages. The parts may have been
 * started already (`startSiteBuild`, with the same folders), before this module was loaded.
 */
export async function buildSite(options: SiteBuildOptions, start: SiteStart = startSiteBuild(options)): Promise<SiteBuildSummary> {
  const { outDir } = start;
  const generatedAt = (options.now ?? new Date()).toISOString();
  const pools = options.pools ?? new Map<string, PoolMembership>();
  const parts = await start.parts;
  try {
    // While the parts load: the output folder emptied, the assets bundled (esbuild works in a process of its own).
    const assetsReady = prepareOutDir(outDir).then(() => bundleAssets(outDir));
    assetsReady.catch(() => {});
    const scenarios = typeof options.scenarios === "function" ? options.scenarios() : options.scenarios;
    const manifests = new Map<string, ManifestFacts>(
      scenarios.map(({ scenario, metrics }) => [`${scenario.suite}/${scenario.name}`, { description: scenario.manifest.description, metrics, ...(scenario.manifest.headline ? { headline: scenario.manifest.headline } : {}) }]),
    );
    const facts = mergeFacts(await Promise.all(parts.map((p) => p.facts)), manifests, pools);
    const feed = options.feedDir === undefined ? null : readFeed(resolve(options.feedDir));
    const assets = await assetsReady;
    const summaries = await Promise.all(parts.map((p) => p.build({ infos: facts.infos, pools, report: feed?.report ?? null, generatedAt })));
    const { overview, catalog } = pagesData(summaries.flatMap((s) => s.trends), facts.testbeds, facts.infos, generatedAt);
    const cells = summaries.flatMap((s) => s.findings).sort((a, b) => b.cell.factor - a.cell.factor || a.cell.id.localeCompare(b.cell.id));
    const pages = await writePages({ ...options, scenarios }, outDir, { overview, catalog, testbeds: facts.testbeds, results: facts.results, feed, assetVersion: assets.version, generatedAt, cells });
    const chainFiles = await writeChainFiles(options.feedDir === undefined ? undefined : resolve(options.feedDir), outDir);
    return {
      outDir,
      results: facts.results,
      testbeds: facts.testbeds.size,
      scenarios: overview.scenarios.length,
      files: pages.files + assets.files + chainFiles + summaries.reduce((n, s) => n + s.files, 0),
      feed: feed !== null,
      skipped: facts.skipped,
      seconds: (performance.now() - start.began) / 1000,
    };
  } finally {
    for (const part of parts) part.stop();
  }
}

interface PagesInput {
  readonly overview: OverviewData;
  readonly catalog: CatalogData;
  readonly testbeds: Map<string, TestbedFacts>;
  readonly results: number;
  readonly feed: ReturnType<typeof readFeed> | null;
  readonly assetVersion: string;
  readonly generatedAt: string;
  readonly cells: PartSummary["findings"];
}

/** The overview's and the catalog's files, the findings' reproductions and profiles, the feeds and every page. */
async function writePages(options: SiteBuildOptions & { readonly scenarios: readonly DescribedScenario[] }, outDir: string, input: PagesInput): Promise<{ files: number }> {
  const { overview, catalog, feed, generatedAt } = input;
  const files = new Map<string, string>();
  files.set("data/overview.json", JSON.stringify(overview));
  files.set("data/catalog.json", JSON.stringify(catalog));
  for (const card of overview.scenarios) files.set(overviewCardPath(card.suite, card.scenario), JSON.stringify(card));
  const testbeds = [...input.testbeds.keys()].sort(preferredFirst(input.testbeds)).map((id) => input.testbeds.get(id)!);
  const frame: PageFrame = {
    template: readFileSync(join(SITE_SOURCE_DIR, "templates/page.html"), "utf8"),
    assetVersion: input.assetVersion,
    head: html`${feed?.atomPath ? html`<link rel="alternate" type="application/atom+xml" title="runtime-bench regressions" href="${FEED_ATOM_FILE}">` : ""}<link rel="alternate" type="application/atom+xml" title="runtime-bench findings" href="${FINDINGS_ATOM_FILE}">`,
    footer: html`<p>Built ${generatedAt.slice(0, 16).replace("T", " ")} UTC from ${input.results} results on ${input.testbeds.size} machine${input.testbeds.size === 1 ? "" : "s"}. Every chart's data can be downloaded as JSON and CSV. <a href="methodology.html">How we measure</a>.</p>`,
  };
  files.set("index.html", renderPage(frame, "overview", "Overview", overviewBody));
  files.set("scenario.html", renderPage(frame, "scenario", "Trends", scenarioBody));
  files.set("compare.html", renderPage(frame, "compare", "Compare", compareBody));
  const groups = groupFindings(input.cells.map((c) => c.cell));
  const reproductions = await writeReproductions(outDir, input.cells, options.reproductionArchive);
  const profiles = await publishProfiles(outDir, groups, options.profilesDir);
  files.set("findings.html", renderPage(frame, "findings", "Findings", findingsBody(groups, reproductions, profiles)));
  files.set(FINDINGS_ATOM_FILE, findingsAtom(groups, (cell) => attachments(cell, reproductions, profiles), generatedAt));
  files.set("regressions.html", renderPage(frame, "regressions", "Regressions", regressionsBody(feed)));
  files.set("methodology.html", renderPage(frame, "methodology", "Methodology", methodologyBody(options.scenarios, testbeds, catalog)));
  let written = (await writeFiles(outDir, files)) + reproductions.written.size;
  if (feed) {
    await copyFile(feed.jsonPath, join(outDir, FEED_JSON_FILE));
    if (feed.atomPath) await copyFile(feed.atomPath, join(outDir, FEED_ATOM_FILE));
    written += feed.atomPath ? 2 : 1;
  }
  return { files: written };
}
