import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceFile } from "../core/json-file.ts";
import { cacheDir } from "../core/paths.ts";
import type { SeriesChange, SeriesSummary } from "./types.ts";

/** What detection finds in one series: all a report needs of it. */
export interface SeriesResult {
  readonly changes: SeriesChange[];
  readonly summary: SeriesSummary;
}

/**
 * Results of earlier detections, keyed by a hash of everything a series' result depends on (see
 * `seriesInputKey` in detect.ts). A series whose runs did not change costs a lookup instead of its
 * bootstraps; one that changed has a new key and is computed again.
 */
export interface SeriesCache {
  get(key: string): SeriesResult | undefined;
  set(key: string, result: SeriesResult): void;
}

/** The folders whose code decides a series' result: a change to any of them is a change of every key. */
const DETECTION_SOURCES = ["regressions", "compare", "stats"].map((folder) => fileURLToPath(new URL(`../${folder}/`, import.meta.url)));

let codeHash: string | undefined;

/** Hash of the detection code itself, so an edited rule never serves a result of the old one. */
export function detectionCodeHash(): string {
  if (codeHash === undefined) {
    const hash = createHash("sha256");
    for (const folder of DETECTION_SOURCES) {
      for (const file of readdirSync(folder).filter((name) => name.endsWith(".ts")).sort()) {
        hash.update(`${file}\0`).update(readFileSync(join(folder, file))).update("\0");
      }
    }
    codeHash = hash.digest("hex");
  }
  return codeHash;
}

const CACHE_FORMAT = 1;

interface CacheFile {
  format: typeof CACHE_FORMAT;
  entries: Record<string, SeriesResult>;
}

/**
 * A cache kept in one file per data folder, below the per-user cache (RUNTIME_BENCH_CACHE). It is
 * rewritten after each detection with the entries that detection used, so it holds one entry per
 * series of the newest history and never grows beyond that. An unreadable file is an empty cache.
 */
export class FileSeriesCache implements SeriesCache {
  private readonly known: Map<string, SeriesResult>;
  private readonly used = new Map<string, SeriesResult>();
  hits = 0;
  misses = 0;

  constructor(readonly path: string) {
    this.known = new Map(Object.entries(FileSeriesCache.load(path)));
  }

  /** The cache file of a data folder: named by a hash of its absolute path. */
  static forDataDir(dataDir: string): FileSeriesCache {
    const name = createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 16);
    return new FileSeriesCache(join(cacheDir(), "regressions", `${name}.json`));
  }

  private static load(path: string): Record<string, SeriesResult> {
    try {
      const file = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
      return file.format === CACHE_FORMAT && typeof file.entries === "object" && file.entries !== null ? file.entries : {};
    } catch {
      return {};
    }
  }

  get(key: string): SeriesResult | undefined {
    const result = this.known.get(key);
    if (result === undefined) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    this.used.set(key, result);
    return result;
  }

  set(key: string, result: SeriesResult): void {
    this.used.set(key, result);
  }

  /** Writes the entries of this detection; a rename, so a reader never sees half a file. */
  save(): void {
    const file: CacheFile = { format: CACHE_FORMAT, entries: Object.fromEntries(this.used) };
    replaceFile(this.path, JSON.stringify(file));
  }
}
