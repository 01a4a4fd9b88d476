import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FEED_ATOM_FILE, regressionsAtom } from "./feed-atom.ts";
import { FEED_JSON_FILE, regressionsJson } from "./feed-json.ts";
import type { ChainedTrends } from "./chains.ts";
import type { RegressionReport } from "./types.ts";

/** The chained trends' file beside the feed (`regressions --chains --feed-dir DIR`), for the site. */
export const CHAINS_JSON_FILE = "chains.json";

/** Writes the feed (the whole report as JSON, confirmed changes as Atom) into `dir`; returns both paths. */
export async function writeFeed(report: RegressionReport, dir: string, page?: string): Promise<{ json: string; atom: string }> {
  await mkdir(dir, { recursive: true });
  const json = join(dir, FEED_JSON_FILE);
  const atom = join(dir, FEED_ATOM_FILE);
  await writeFile(json, regressionsJson(report));
  await writeFile(atom, regressionsAtom(report, page));
  return { json, atom };
}

/** Writes the chained trends into `dir` beside the feed; returns the path. */
export async function writeChains(trends: ChainedTrends, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, CHAINS_JSON_FILE);
  await writeFile(path, `${JSON.stringify(trends, null, 1)}\n`);
  return path;
}
