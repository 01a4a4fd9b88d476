import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FEED_ATOM_FILE, regressionsAtom } from "./feed-atom.ts";
import { FEED_JSON_FILE, regressionsJson } from "./feed-json.ts";
import type { ChainedTrends } from "./chains.ts";
import type { RegressionReport } from "./types.ts";

/** The chained trends' file beside the feed, for the site. */
export const CHAINS_JSON_FILE = "chains.json";

/**
 * Writes the feed into `dir`: the whole report as JSON, confirmed changes as Atom, and the chained
 * trends the site draws beside each absolute trend. Returns the three paths.
 */
export async function writeFeed(report: RegressionReport, chains: ChainedTrends, dir: string, page?: string): Promise<{ json: string; atom: string; chains: string }> {
  await mkdir(dir, { recursive: true });
  const json = join(dir, FEED_JSON_FILE);
  const atom = join(dir, FEED_ATOM_FILE);
  await writeFile(json, regressionsJson(report));
  await writeFile(atom, regressionsAtom(report, page));
  return { json, atom, chains: await writeChains(chains, dir) };
}

/** Writes the chained trends into `dir` beside the feed; returns the path. */
export async function writeChains(trends: ChainedTrends, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, CHAINS_JSON_FILE);
  await writeFile(path, `${JSON.stringify(trends, null, 1)}\n`);
  return path;
}
