import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FileSeriesCache, type SeriesCache, type SeriesResult } from "../../src/regressions/cache.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { syntheticResult } from "../helpers/series.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

const NOW = new Date("2026-12-01T00:00:00.000Z");

/** Ten versions of node on one runner, with a 10 % step at the sixth: a series with changes to cache. */
function series(runner: string, seed: number): ResultDocument[] {
  return Array.from({ length: 10 }, (_, i) =>
    syntheticResult({ index: seed * 100 + i, level: 30 * (i >= 6 ? 1.1 : 1), runner, version: `22.${i}.0`, shape: { seed: seed * 100 + i, sampleNoise: 0.03, trialNoise: 0.005 } }),
  );
}

/** An in-memory cache that counts what detection asked of it. */
class CountingCache implements SeriesCache {
  readonly entries = new Map<string, SeriesResult>();
  hits = 0;
  computed = 0;
  get(key: string): SeriesResult | undefined {
    const result = this.entries.get(key);
    if (result) this.hits += 1;
    return result;
  }
  set(key: string, result: SeriesResult): void {
    this.computed += 1;
    this.entries.set(key, result);
  }
}

const history = [...series("bench-x64-1", 1), ...series("bench-x64-2", 2), ...series("bench-arm-1", 3)];

describe("regressions: the cache of series results", () => {
  it("computes every series once, then none, with the same report as without a cache", () => {
    const fresh = detectRegressions(history, { now: NOW });
    assert.equal(fresh.series.length, 3);
    assert.ok(fresh.changes.length >= 3, "each series has its step");
    const cache = new CountingCache();
    assert.deepEqual(detectRegressions(history, { now: NOW, cache }), fresh);
    assert.deepEqual([cache.computed, cache.hits], [3, 0]);
    assert.deepEqual(detectRegressions(history, { now: NOW, cache }), fresh);
    assert.deepEqual([cache.computed, cache.hits], [3, 3]);
  });

  it("computes again exactly the series that changed", () => {
    const cache = new CountingCache();
    detectRegressions(history, { now: NOW, cache });
    const newRun = syntheticResult({ index: 500, level: 45, runner: "bench-x64-2", version: "22.10.0", shape: { seed: 500, sampleNoise: 0.03 } });
    const grown = [...history, newRun];
    const report = detectRegressions(grown, { now: NOW, cache });
    assert.deepEqual([cache.computed, cache.hits], [4, 2]);
    assert.deepEqual(report, detectRegressions(grown, { now: NOW }));
    assert.ok(report.changes.some((c) => c.runner === "bench-x64-2" && c.to_version === "22.10.0"), "the new version's step is found");
  });

  it("computes again when a sample differs or the default minimum effect does", () => {
    const cache = new CountingCache();
    detectRegressions(history, { now: NOW, cache });
    const edited = structuredClone(history);
    edited[3]!.metrics.wall_ms!.samples[0]! *= 1.0001;
    detectRegressions(edited, { now: NOW, cache });
    assert.equal(cache.computed, 4);
    detectRegressions(history, { now: NOW, cache, defaultMinEffect: 0.07 });
    assert.equal(cache.computed, 7);
  });

  it("keeps its entries in a file, holding only those of the last detection", () => {
    const path = join(tempDir("regressions-cache"), "cache.json");
    const first = new FileSeriesCache(path);
    const fresh = detectRegressions(history, { now: NOW, cache: first });
    first.save();
    assert.equal(Object.keys(JSON.parse(readFileSync(path, "utf8")).entries).length, 3);

    const second = new FileSeriesCache(path);
    assert.deepEqual(detectRegressions(history, { now: NOW, cache: second }), fresh);
    assert.deepEqual([second.hits, second.misses], [3, 0]);

    const third = new FileSeriesCache(path);
    detectRegressions(series("bench-x64-1", 1), { now: NOW, cache: third });
    third.save();
    assert.equal(Object.keys(JSON.parse(readFileSync(path, "utf8")).entries).length, 1, "entries of series no longer read are dropped");

    writeFileSync(path, "{ not json");
    const broken = new FileSeriesCache(path);
    assert.deepEqual(detectRegressions(history, { now: NOW, cache: broken }), fresh);
    assert.deepEqual([broken.hits, broken.misses], [0, 3]);
  });
});
