/**
 * The chained trends on the site: the feed's chains.json (src/regressions/chains.ts) split into one
 * file per runner and series, the files the trend page fetches, and an index of them, so the page
 * offers the chained view only where a chain exists; and the README's picture drawn from them.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UserError } from "../core/errors.ts";
import { readDerivedFile } from "../core/json-file.ts";
import { paramsSlug } from "../core/params.ts";
import { CHAINS_SCHEMA_ID, type ChainedTrends } from "../regressions/chains.ts";
import { CHAINS_JSON_FILE } from "../regressions/feed-files.ts";
import { CHAIN_INDEX_PATH, chainPath, type ChainData, type ChainIndex } from "./model.ts";
import { PICTURE_FILE, historyPicture } from "./picture.ts";

function readChains(feedDir: string): ChainedTrends | null {
  const trends = readDerivedFile<ChainedTrends>(join(feedDir, CHAINS_JSON_FILE), { id: CHAINS_SCHEMA_ID, file: "chains.schema.json" }, "scripts/bench regressions --feed-dir");
  if (trends !== null && !Array.isArray(trends.chains)) throw new UserError(`${join(feedDir, CHAINS_JSON_FILE)}: its chains are not a list (run scripts/bench regressions --feed-dir again)`);
  return trends;
}

/** The chains below `feedDir`, one file per runner and series, their index (empty without chains) and the picture; returns the files written. */
export async function writeChainFiles(feedDir: string | undefined, outDir: string): Promise<number> {
  const trends = feedDir === undefined ? null : readChains(feedDir);
  const files = new Map<string, ChainData>();
  for (const chain of trends?.chains ?? []) {
    const series = { suite: chain.suite, scenario: chain.scenario, app: chain.app, params: paramsSlug(chain.params) };
    const path = chainPath(chain.runner, series);
    const data = files.get(path) ?? { runner: chain.runner, series, runtimes: {} };
    const metrics = (data.runtimes[chain.runtime as keyof ChainData["runtimes"]] ??= {});
    (metrics[chain.metric] ??= []).push(chain.points);
    files.set(path, data);
  }
  for (const [path, data] of files) {
    await mkdir(dirname(join(outDir, path)), { recursive: true });
    await writeFile(join(outDir, path), JSON.stringify(data));
  }
  const index: ChainIndex = { files: [...files.keys()].sort() };
  await mkdir(dirname(join(outDir, CHAIN_INDEX_PATH)), { recursive: true });
  await writeFile(join(outDir, CHAIN_INDEX_PATH), JSON.stringify(index));
  const picture = trends === null ? null : historyPicture(trends);
  if (picture !== null) await writeFile(join(outDir, PICTURE_FILE), picture);
  return files.size + 1 + (picture === null ? 0 : 1);
}
