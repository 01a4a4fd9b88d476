import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { DEFAULT_MIN_EFFECT, defaultMinEffect } from "../../compare/noise.ts";
import { measurementsOf } from "../../compare/series-key.ts";
import { FileSeriesCache } from "../../regressions/cache.ts";
import { detectRegressions } from "../../regressions/detect.ts";
import { isSentinel, judgeDrift } from "../../regressions/drift.ts";
import { DEFAULT_FEED_PAGE, FEED_ATOM_FILE } from "../../regressions/feed-atom.ts";
import { chainedTrends } from "../../regressions/chains.ts";
import { CHAINS_JSON_FILE, writeChains, writeFeed } from "../../regressions/feed-files.ts";
import { FEED_JSON_FILE, regressionsJson } from "../../regressions/feed-json.ts";
import { chainsText, describeDrift, regressionsText } from "../../regressions/format.ts";
import { judgeOnQuietest, quietestText } from "../../regressions/quietest.ts";
import { stableReleases } from "../../releases/published.ts";
import { loadBenchMachines } from "../../releases/runners.ts";
import { readIndexedDocuments } from "../../results/run-index.ts";
import { readRunnerResults } from "../../results/store.ts";
import type { ResultDocument } from "../../results/types.ts";
import { defineCommand } from "../command.ts";

/**
 * After a run with a sentinel: a warning when the sentinel moved beyond its noise against the
 * earlier runs of the same runner in `outDir`, or null. Only the sentinel's own files are read,
 * so a long history stays quick.
 */
export function sentinelDriftWarning(outDir: string, runDocs: readonly ResultDocument[]): string | null {
  const sentinels = runDocs.filter(isSentinel);
  const run = sentinels[0]?.run;
  if (run === undefined) return null;
  const history = readRunnerResults(outDir, run.runner, new Set(sentinels.map((doc) => `${doc.runtime.name}-${doc.runtime.version}`)));
  const drift = judgeDrift(measurementsOf(history), defaultMinEffect(undefined)).find((d) => d.run_id === run.id);
  if (!drift) return null;
  return `runtime-bench: warning: environment drift: ${describeDrift(drift)}; regressions measured in this run are held back as unconfirmed`;
}

/**
 * The runtimes' published releases, for the feed to say which changes lie between adjacent
 * releases, each machine's of its own architecture; without the registry, a warning and a feed
 * that does not say.
 */
export async function publishedForFeed(): Promise<ReadonlyMap<string, readonly string[]> | undefined> {
  const published = await stableReleases(loadBenchMachines());
  if ("releases" in published) return published.releases;
  process.stderr.write(`runtime-bench: warning: ${published.unknown}; the feed does not say which releases lie between each change's two versions\n`);
  return undefined;
}

export const regressionsSubcommand = defineCommand({
  name: "regressions",
  summary: "Find regressions and improvements over the history: each new version of every series against the one before, judged by the series' own noise.",
  usage: "regressions [--data DIR] [--json] [--series] [--quietest] [--chains] [--feed-dir DIR] [--feed-page URL] [--min-effect PCT] [--no-cache]",
  help: [
    "  --data DIR        results to read (default: data/)",
    "  --json            print the report as JSON (what the feed's regressions.json holds)",
    "  --series          also list every series with its versions, runs and noise floor",
    "  --quietest        also judge each cell on the least noisy of its speed metrics (wall time, CPU time, instructions…), naming it",
    "  --chains          the chained trends instead: each release against the first of its chain, the product of the",
    "                    paired ratios of the releases measured beside each other, across changes of machine (docs/history.md);",
    `                    with --json as JSON, with --feed-dir also written there as ${CHAINS_JSON_FILE}`,
    `  --feed-dir DIR    write the feed there: ${FEED_JSON_FILE} (the whole report), ${FEED_ATOM_FILE} (confirmed changes, Atom 1.0) and ${CHAINS_JSON_FILE} (the chained trends)`,
    `  --feed-page URL   the page Atom entries link to, relative to the feed or absolute (default: ${DEFAULT_FEED_PAGE})`,
    `  --min-effect PCT  the change needed where a series has too little history (default ${DEFAULT_MIN_EFFECT * 100}, or RUNTIME_BENCH_MIN_EFFECT)`,
    "  --no-cache        compute every series again, and neither read nor write the cache of series results",
    "",
    "A series is runner × runtime × suite × scenario × app × load parameters × metric, ordered by runtime version.",
    "Only confirmed changes are alerts; changes measured in runs whose drift sentinel moved stay unconfirmed.",
    "Each change says how many published releases lie between its two versions (read from the registry): a sweep's",
    "step not narrowed to one release came with one of them; where a release between was measured beside both ends,",
    "the change also says what its two halves gave (neither showed it alone), and is held back as unconfirmed where",
    "the two, compounded, contradict it: one run's figure that the runs of its halves did not repeat. A change on a",
    "version of its scenario that the results also hold a newer version of says so (replaced_by): its series ends there,",
    "and a sweep narrows only the newer version's steps.",
    "Each series' result is cached (below RUNTIME_BENCH_CACHE) by a hash of its runs and of the detection code: a series",
    "that did not change is not computed again, and the report is the same either way.",
  ],
  options: {
    data: { type: "string" },
    json: { type: "boolean" },
    series: { type: "boolean" },
    quietest: { type: "boolean" },
    "feed-dir": { type: "string" },
    "feed-page": { type: "string" },
    "min-effect": { type: "string" },
    "no-cache": { type: "boolean" },
    chains: { type: "boolean" },
  },
  async run(values) {
    const dataDir = values.data ?? DEFAULT_DATA_DIR;
    const docs = readIndexedDocuments(dataDir);
    if (docs.length === 0) throw new UserError(`regressions: no results in ${dataDir}`);
    if (values.chains) {
      const trends = chainedTrends(docs);
      const written = values["feed-dir"] === undefined ? null : await writeChains(trends, values["feed-dir"]);
      process.stdout.write(values.json ? `${JSON.stringify(trends, null, 1)}\n` : `${chainsText(trends)}\n${written ? `\nchains written: ${written}\n` : ""}`);
      return 0;
    }
    const cache = values["no-cache"] ? undefined : FileSeriesCache.forDataDir(dataDir);
    const report = detectRegressions(docs, { defaultMinEffect: defaultMinEffect(values["min-effect"]), cache, published: await publishedForFeed() });
    cache?.save();
    const feedDir = values["feed-dir"];
    const written = feedDir === undefined ? null : await writeFeed(report, chainedTrends(docs), feedDir, values["feed-page"]);
    process.stdout.write(values.json ? regressionsJson(report) : `${regressionsText(report, values.series ?? false)}\n`);
    if (values.quietest && !values.json) process.stdout.write(`\neach cell on its quietest speed metric:\n${quietestText(judgeOnQuietest(report))}\n`);
    if (written && !values.json) process.stdout.write(`\nfeed written: ${written.json}, ${written.atom}, ${written.chains}\n`);
    return 0;
  },
});
