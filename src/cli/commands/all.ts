import { resolve } from "node:path";
import { DEFAULT_DATA_DIR, DEFAULT_PROFILES_DIR } from "../../core/paths.ts";
import { defaultMinEffect } from "../../compare/noise.ts";
import { FileSeriesCache } from "../../regressions/cache.ts";
import { chainedTrends } from "../../regressions/chains.ts";
import { detectRegressions } from "../../regressions/detect.ts";
import { writeFeed } from "../../regressions/feed-files.ts";
import { readIndexedDocuments } from "../../results/run-index.ts";
import { reproductionArchive } from "../../findings/repro/archive.ts";
import { buildSite } from "../../site/build.ts";
import { defaultSelection } from "../../suites/selection.ts";
import { defineCommand } from "../command.ts";
import { DEFAULT_RUNTIMES } from "../../runtimes/prepare.ts";
import { exitCodeOf, runBenchmarks } from "./run.ts";
import { setupAll } from "./setup.ts";
import { publishedForFeed } from "./regressions.ts";
import { allScenarios, benchPools } from "../site-inputs.ts";
import { DEFAULT_FEED_DIR, DEFAULT_SITE_DIR, describeBuild, openHint } from "./site.ts";

export const allSubcommand = defineCommand({
  name: "all",
  summary:
    "What `scripts/bench` with no arguments does: set up the newest Node, Deno and Bun, run every suite's default selection (each scenario, one representative app per runtime) in the quick profile into data/, print a summary, compute the regressions feed, and build the trend site from data/.",
  usage: "all",
  help: [],
  options: {},
  async run() {
    const runtimes = [...DEFAULT_RUNTIMES];
    await setupAll(runtimes);
    const outcome = await runBenchmarks({ ...defaultSelection(), runtimes, sentinel: null, profile: "quick", outDir: resolve(DEFAULT_DATA_DIR) });
    // After Ctrl-C the results are saved and the run stops: the feed and the site wait for `scripts/bench site`.
    if (outcome.interrupted) return exitCodeOf(outcome);
    const history = readIndexedDocuments(DEFAULT_DATA_DIR);
    const cache = FileSeriesCache.forDataDir(DEFAULT_DATA_DIR);
    await writeFeed(detectRegressions(history, { defaultMinEffect: defaultMinEffect(undefined), cache, published: await publishedForFeed() }), chainedTrends(history), DEFAULT_FEED_DIR);
    cache.save();
    const site = await buildSite({ dataDir: DEFAULT_DATA_DIR, feedDir: DEFAULT_FEED_DIR, outDir: DEFAULT_SITE_DIR, scenarios: allScenarios, pools: benchPools(), reproductionArchive, profilesDir: DEFAULT_PROFILES_DIR });
    process.stdout.write(`\n${describeBuild(site)}\n${openHint(site, "scripts/bench site --serve")}\n`);
    return exitCodeOf(outcome);
  },
});
