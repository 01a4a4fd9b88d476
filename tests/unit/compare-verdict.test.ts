import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareResults } from "../../src/compare/compare.ts";
import { runToRunShift } from "../../src/compare/noise.ts";
import { ratioOfMedians, trialClusters } from "../../src/compare/ratio.ts";
import { measurementsOf } from "../../src/compare/series-key.ts";
import { formatInterval, judge } from "../../src/compare/verdict.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { syntheticResult, syntheticSamples } from "../helpers/series.ts";

const excludesOne = ([low, high]: [number, number]) => low > 1 || high < 1;

describe("compare: verdicts", () => {
  it("finds no significant change between two runs of one version a few per cent apart", () => {
    const base = syntheticResult({ index: 0, level: 30, shape: { sampleNoise: 0.1 } });
    const head = syntheticResult({ index: 1, level: 31, shape: { sampleNoise: 0.1 } });
    const [row] = compareResults([base], [head]);
    assert.equal(row!.verdict, "no significant change");
    assert.ok(Math.abs(row!.ratio! - 31 / 30) < 0.03, `ratio ${row!.ratio}`);
  });

  it("calls a much faster HEAD faster, with an interval that excludes 1, and the reverse slower", () => {
    const node = syntheticResult({ index: 0, level: 34, runtime: "node", version: "22.11.0", shape: { sampleNoise: 0.2 } });
    const bun = syntheticResult({ index: 0, level: 13, runtime: "bun", version: "1.2.0", shape: { sampleNoise: 0.2, seed: 99 } });
    const [faster] = compareResults([node], [bun]);
    assert.equal(faster!.verdict, "faster");
    assert.ok(excludesOne(faster!.ci95!) && faster!.ci95![1] < 1);
    assert.deepEqual([faster!.base_runtime, faster!.base_version, faster!.head_runtime, faster!.head_version], ["node", "22.11.0", "bun", "1.2.0"]);
    assert.equal(compareResults([bun], [node])[0]!.verdict, "slower");
  });

  it("reads faster in the metric's own direction: more requests per second is faster", () => {
    const base = syntheticResult({ index: 0, level: 1000, metric: "requests_per_s", better: "higher" });
    const head = syntheticResult({ index: 1, level: 2500, metric: "requests_per_s", better: "higher" });
    const [row] = compareResults([base], [head]);
    assert.equal(row!.verdict, "faster");
    assert.ok(row!.ratio! > 2.4);
  });

  it("needs the change to exceed the minimum effect even when the interval excludes 1", () => {
    const base = syntheticResult({ index: 0, level: 100, shape: { sampleNoise: 0.002 } });
    const head = syntheticResult({ index: 1, level: 103, shape: { sampleNoise: 0.002 } });
    const [row] = compareResults([base], [head]);
    assert.ok(excludesOne(row!.ci95!), "tight samples: the interval excludes 1");
    assert.equal(row!.verdict, "inconclusive", "3 % is within the run-to-run shift of a machine without history");
    assert.deepEqual([row!.min_effect, row!.min_effect_source], [runToRunShift("startup", "dedicated", "quick", "wall_ms"), "run-to-run shift"]);
    assert.equal(compareResults([base], [head], { defaultMinEffect: 0.05 })[0]!.verdict, "no significant change", "3 % is below a 5 % setting");
    assert.equal(compareResults([base], [head], { defaultMinEffect: 0.01 })[0]!.verdict, "slower");
  });

  it("does not mistake trial-to-trial drift for a change: trials, not samples, are resampled", () => {
    // Each trial sits at its own level (±15 %), samples inside a trial agree within 1 %.
    const shape = { trialNoise: 0.15, sampleNoise: 0.01 };
    const base = syntheticResult({ index: 0, level: 30, shape: { ...shape, seed: 1 } });
    const head = syntheticResult({ index: 1, level: 30, shape: { ...shape, seed: 2 } });
    const [row] = compareResults([base], [head]);
    assert.ok(Math.abs(Math.log(row!.ratio!)) > Math.log(1.05), `the medians differ by more than 5 % (${row!.ratio})`);
    assert.equal(row!.verdict, "no significant change");
    const [m] = measurementsOf([base]);
    assert.deepEqual(trialClusters(m!).map((c) => c.length), [10, 10, 10]);
  });

  it("treats samples as independent when they do not split evenly into trials", () => {
    const doc = makeResult({ run: { trials: 3 }, metrics: { wall_ms: metricOf([1, 2, 3, 4]) } });
    assert.deepEqual(trialClusters(measurementsOf([doc])[0]!), [[1], [2], [3], [4]]);
  });

  it("gives the same interval for the same samples", () => {
    const base = measurementsOf([syntheticResult({ index: 0, level: 30 })]);
    const head = measurementsOf([syntheticResult({ index: 1, level: 33 })]);
    assert.deepEqual(ratioOfMedians(base, head), ratioOfMedians(base, head));
  });

  it("never reaches a verdict on a single sample or a single trial, and says why", () => {
    const base = makeResult({ run: { trials: 1 }, metrics: { wall_ms: metricOf([10]) } });
    const head = makeResult({ run: { trials: 1 }, metrics: { wall_ms: metricOf([20]) } });
    const [row] = compareResults([base], [head]);
    assert.deepEqual([row!.verdict, row!.reason], ["inconclusive", "too few trials: BASE has 1 trial (1 sample), a verdict needs 2 on each side"]);
    // Thirty samples of one trial each: far apart, yet the spread between trials is unknown.
    const oneTrial = (level: number) => makeResult({ run: { trials: 1 }, metrics: { wall_ms: metricOf(syntheticSamples(level, { seed: level, trials: 1, perTrial: 30 })) } });
    const [single] = compareResults([oneTrial(10)], [oneTrial(30)], { defaultMinEffect: 0.05 });
    assert.equal(single!.verdict, "inconclusive");
    assert.match(single!.reason!, /BASE has 1 trial \(30 samples\)/);
  });

  it("judges by interval and minimum effect together, with three outcomes", () => {
    const verdict = (ratio: number, ci95: [number, number], better: "lower" | "higher", minEffect: number) => judge({ ratio, ci95 }, better, minEffect).verdict;
    assert.equal(verdict(1.2, [1.1, 1.3], "lower", 0.05), "slower");
    assert.equal(verdict(0.8, [0.7, 0.9], "lower", 0.2), "faster", "0.8 is below 1 / 1.2");
    assert.equal(verdict(0.8, [0.7, 0.9], "higher", 0.05), "slower");
    // No significant change only when the whole interval lies within ±e.
    assert.equal(verdict(1.01, [0.98, 1.04], "lower", 0.05), "no significant change");
    assert.equal(verdict(1.04, [1.01, 1.045], "lower", 0.05), "no significant change", "a change the interval shows, but smaller than e");
    // An interval reaching beyond ±e rules out nothing: inconclusive, with the interval in its reason.
    assert.deepEqual(judge({ ratio: 1.2, ci95: [0.9, 1.5] }, "lower", 0.05), {
      verdict: "inconclusive",
      reason: "the 95 % interval [0.900, 1.500] reaches beyond ±5.0 %: it neither shows a change nor rules one out",
    });
    assert.equal(verdict(1.2, [1.1, 1.3], "lower", 0.25), "inconclusive", "within e, yet the interval reaches past 1.25");
    assert.equal(verdict(3.71, [0, 98664.9], "higher", 0.01), "inconclusive", "the default run's 3.7× gap on two pairs at 0.08 %");
    assert.match(judge({ ratio: 3.71, ci95: [0, Infinity] }, "higher", 0.01).reason!, /\[0, ∞\]/);
  });

  it("prints an interval's bounds in few digits however far they reach", () => {
    assert.equal(formatInterval([0.9, 1.5]), "[0.900, 1.500]");
    assert.equal(formatInterval([0, 98664.9]), "[0, 9.87e+4]");
    // Two counted pairs at the sequential rule's first look: toFixed alone printed 8.677241593113953e+21.
    assert.equal(formatInterval([1.2e-22, 8.677241593113953e21]), "[0.000, 8.68e+21]");
    assert.equal(formatInterval([-0.1, Infinity]), "[0, ∞]");
  });
});

describe("compare: a single outlying sample", () => {
  it("does not move the verdict", () => {
    const samples = syntheticSamples(30, { seed: 5 });
    const withOutlier = [...samples];
    withOutlier[7] = 300;
    const base = makeResult({ metrics: { wall_ms: metricOf(samples) } });
    const head = makeResult({ run: { id: "20261101T010000Z-000001" }, metrics: { wall_ms: metricOf(withOutlier) } });
    assert.equal(compareResults([base], [head])[0]!.verdict, "no significant change");
  });
});
