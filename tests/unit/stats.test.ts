import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pairedOrder, rotate } from "../../src/orchestrate/order.ts";
import { pairedRatio } from "../../src/stats/paired.ts";
import { bootstrapInterval, median, quantile, stddev, summarize } from "../../src/stats/summary.ts";

describe("summary statistics", () => {
  it("computes median, quantiles and sample standard deviation", () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(quantile([1, 2, 3, 4, 5], 0.9), 4.6);
    // Sorted as numbers (a typed array's sort), never as strings, and the input left as it was.
    const values = [10, 9, 100, 2.5, -1];
    assert.equal(median(values), 9);
    assert.deepEqual(values, [10, 9, 100, 2.5, -1]);
    assert.equal(median(new Float64Array([3, 1, 2])), 2);
    assert.equal(stddev([7]), 0);
    assert.ok(Math.abs(stddev([2, 4, 4, 4, 5, 5, 7, 9]) - 2.138089935) < 1e-9);
  });

  it("gives a bootstrap interval that holds the median and depends only on the samples", () => {
    const samples = Array.from({ length: 40 }, (_, i) => 100 + ((i * 37) % 11));
    const first = bootstrapInterval(samples, median);
    const again = bootstrapInterval([...samples], median);
    assert.deepEqual(first, again);
    const m = median(samples);
    assert.ok(first[0] <= m && m <= first[1], `${first} should hold ${m}`);
    assert.ok(first[1] - first[0] < 11, "narrower than the whole range");
  });

  it("narrows as the sample grows", () => {
    const noisy = (n: number) => Array.from({ length: n }, (_, i) => 50 + Math.sin(i * 12.9898) * 5);
    const width = ([lo, hi]: [number, number]) => hi - lo;
    assert.ok(width(bootstrapInterval(noisy(200), median)) < width(bootstrapInterval(noisy(10), median)));
  });

  it("summarizes every field and refuses an empty sample", () => {
    const s = summarize([3, 1, 2]);
    assert.deepEqual([s.median, s.mean, s.min, s.max], [2, 2, 1, 3]);
    assert.throws(() => summarize([]), /empty/);
  });
});

describe("paired ratio of two measurements taken round by round", () => {
  it("is the geometric mean of the per-round ratios, so a drift shared by both sides cancels", () => {
    const drift = [100, 80, 120, 60, 90];
    const paired = pairedRatio(drift.map((v, i) => v * (i % 2 === 0 ? 1.1 : 0.9)), drift);
    assert.ok(Math.abs(paired.ratio - Math.exp((3 * Math.log(1.1) + 2 * Math.log(0.9)) / 5)) < 1e-12);
    assert.equal(paired.median, 1.1);
    assert.deepEqual([paired.min, paired.max].map((v) => Number(v.toFixed(9))), [0.9, 1.1]);
    assert.ok(paired.ci95[0] >= 0.9 && paired.ci95[0] < paired.ratio && paired.ratio < paired.ci95[1] && paired.ci95[1] <= 1.1);
  });

  it("gives a point interval for identical sides and refuses unpaired rounds", () => {
    const same = pairedRatio([5, 7, 9], [5, 7, 9]);
    assert.deepEqual([same.ratio, ...same.ci95], [1, 1, 1]);
    assert.throws(() => pairedRatio([1, 2], [1]), /equal, non-empty/);
  });
});

describe("trial order", () => {
  it("rotates one place per trial so each runtime takes each position", () => {
    assert.deepEqual(rotate(["a", "b", "c"], 0), ["a", "b", "c"]);
    assert.deepEqual(rotate(["a", "b", "c"], 1), ["b", "c", "a"]);
    assert.deepEqual(rotate(["a", "b", "c"], 2), ["c", "a", "b"]);
    assert.deepEqual(rotate(["a", "b", "c"], 3), ["a", "b", "c"]);
    assert.deepEqual(rotate([], 4), []);
  });

  it("runs the subjects of one load point back to back, each group and each subject in turn first", () => {
    // Node's and Bun's cells of two load points, listed runtime by runtime as the suites give them.
    const cells = ["node b=1", "node b=10", "bun b=1", "bun b=10"];
    const load = (cell: string) => cell.split(" ")[1]!;
    assert.deepEqual(pairedOrder(cells, load, 0), ["node b=1", "bun b=1", "node b=10", "bun b=10"]);
    assert.deepEqual(pairedOrder(cells, load, 1), ["bun b=10", "node b=10", "bun b=1", "node b=1"]);
    assert.deepEqual(pairedOrder(cells, load, 2), ["node b=1", "bun b=1", "node b=10", "bun b=10"]);
    assert.deepEqual(pairedOrder(["a", "b", "c"], (x) => x, 1), rotate(["a", "b", "c"], 1), "cells compared with none are rotated as before");
  });
});
