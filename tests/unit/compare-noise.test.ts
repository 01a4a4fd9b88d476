import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareResults } from "../../src/compare/compare.ts";
import {
  DEFAULT_MIN_EFFECT,
  MIN_HISTORY_RUNS,
  RUN_TO_RUN_SHIFT,
  defaultMinEffect,
  minEffectSetting,
  noiseFloor,
  parseMinEffect,
  runToRunShift,
  widestDefault,
  runToRunSpread,
} from "../../src/compare/noise.ts";
import { measurementsOf } from "../../src/compare/series-key.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { syntheticResult } from "../helpers/series.ts";

/** Runs of one version whose medians are exactly the given levels. */
const runsAt = (levels: number[]) => levels.map((level, index) => syntheticResult({ index, level, shape: { sampleNoise: 0 } }));

describe("noise floor of a series", () => {
  it("needs enough runs before it replaces the default", () => {
    assert.equal(runToRunSpread(measurementsOf(runsAt([30, 31, 30, 31, 30]))), null);
    assert.equal(MIN_HISTORY_RUNS, 6);
    assert.deepEqual(Object.keys(runToRunSpread(measurementsOf(runsAt([30, 31, 30, 31, 30, 31])))!), ["sigma", "df"]);
  });

  it("is exp(t √2 σ) − 1 for one series, t taken for the history's degrees of freedom", () => {
    assert.ok(Math.abs(noiseFloor({ sigma: 0.01, df: 40 }) - (Math.exp(2.0215 * Math.SQRT2 * 0.01) - 1)) < 1e-4);
    assert.ok(Math.abs(noiseFloor({ sigma: 0.03, df: 5 }, { sigma: 0.04, df: 9 }) - (Math.exp(2.571 * 0.05) - 1)) < 1e-12);
    assert.ok(noiseFloor({ sigma: 0.01, df: 5 }) > noiseFloor({ sigma: 0.01, df: 50 }), "a short history gives a wider floor");
  });

  it("measures the run-to-run spread, and one real step barely moves it", () => {
    const flat = [100, 102, 99, 101, 100, 98, 101, 100, 102, 99, 100, 101];
    const stepped = flat.map((v, i) => (i >= 6 ? v * 1.3 : v));
    const flatSpread = runToRunSpread(measurementsOf(runsAt(flat)))!;
    const steppedSpread = runToRunSpread(measurementsOf(runsAt(stepped)))!;
    assert.equal(flatSpread.df, 11);
    assert.ok(flatSpread.sigma > 0.005 && flatSpread.sigma < 0.03, `σ ${flatSpread.sigma}`);
    assert.ok(Math.abs(steppedSpread.sigma - flatSpread.sigma) < flatSpread.sigma * 0.3, `σ with a step ${steppedSpread.sigma}`);
  });
});

describe("compare: minimum effect from history", () => {
  const base = syntheticResult({ index: 100, level: 30, shape: { sampleNoise: 0.005 } });
  const head = syntheticResult({ index: 101, level: 33, shape: { sampleNoise: 0.005 } });

  it("holds a 10 % change without history to the suite's run-to-run shift on the machine's kind: inconclusive, with the reason", () => {
    const [row] = compareResults([base], [head]);
    assert.deepEqual([row!.verdict, row!.min_effect_source, row!.noise_floor], ["inconclusive", "run-to-run shift", null]);
    assert.equal(row!.min_effect, runToRunShift("startup", "dedicated", "quick", "wall_ms"));
    assert.match(row!.reason!, /^\+\d+\.\d % is within the 50\.0 % run-to-run shift of startup wall_ms on a dedicated machine/);
  });

  it("takes the user's minimum effect in place of the shift", () => {
    const [row] = compareResults([base], [head], { defaultMinEffect: 0.05 });
    assert.deepEqual([row!.verdict, row!.min_effect, row!.min_effect_source], ["slower", 0.05, "setting"]);
  });

  it("holds the same change to a series that swings ±15 % from run to run", () => {
    const noisy = [30, 34, 26, 33, 27, 35, 25, 31, 28, 34].map((level, index) => syntheticResult({ index, level }));
    const [row] = compareResults([base], [head], { history: noisy });
    assert.equal(row!.min_effect_source, "noise floor");
    assert.ok(row!.noise_floor! > 0.15, `noise floor ${row!.noise_floor}`);
    assert.equal(row!.verdict, "no significant change");
  });

  it("flags it in a series that stays within 1 %", () => {
    const quiet = [30, 30.2, 29.9, 30.1, 30, 29.8, 30.2, 30.1].map((level, index) => syntheticResult({ index, level }));
    const [row] = compareResults([base], [head], { history: quiet });
    assert.ok(row!.noise_floor! < 0.03, `noise floor ${row!.noise_floor}`);
    assert.equal(row!.verdict, "slower");
  });

  it("only uses history of the same series (runner, runtime, scenario, metric)", () => {
    const elsewhere = [30, 34, 26, 33, 27, 35, 25].map((level, index) => syntheticResult({ index, level, runner: "bench-x64-2" }));
    assert.equal(compareResults([base], [head], { history: elsewhere })[0]!.min_effect_source, "run-to-run shift");
  });
});

describe("minimum effect setting", () => {
  it("reads percentages from the flag, then the environment, else 5 %", () => {
    assert.equal(parseMinEffect("7.5%", "x"), 0.075);
    assert.equal(parseMinEffect("10", "x"), 0.1);
    assert.throws(() => parseMinEffect("fast", "--min-effect"), /--min-effect: 'fast' is not a percentage/);
    assert.throws(() => parseMinEffect("-3", "x"), /not a percentage/);
    assert.equal(defaultMinEffect(undefined, {}), DEFAULT_MIN_EFFECT);
    assert.equal(defaultMinEffect(undefined, { RUNTIME_BENCH_MIN_EFFECT: "12" }), 0.12);
    assert.equal(defaultMinEffect("3", { RUNTIME_BENCH_MIN_EFFECT: "12" }), 0.03);
    assert.equal(minEffectSetting(undefined, {}), undefined, "compare: no setting, so the run-to-run shift applies");
  });

  it("gives a suite missing from the shift table the widest shift of its kind of machine", () => {
    const widest = Math.max(...Object.values(RUN_TO_RUN_SHIFT).flatMap((tables) => (tables.local ? [tables.local.default] : [])));
    assert.equal(widestDefault("local"), widest);
    assert.equal(runToRunShift("a-suite-added-later", "local", "full", "wall_ms"), widest);
    assert.ok(runToRunShift("startup", "local", "quick", "wall_ms") < widest);
  });

  it("gives a suite measured only on a quiet machine, under load, the wider of its quiet figure and the widest loaded default", () => {
    const quiet = RUN_TO_RUN_SHIFT.database!.dedicated!;
    assert.equal(RUN_TO_RUN_SHIFT.database!.local, undefined, "measured on a quiet machine only");
    assert.equal(runToRunShift("database", "dedicated", "quick", "latency_p99_ms"), quiet.metrics!.latency_p99_ms);
    assert.ok(quiet.metrics!.latency_p99_ms! > widestDefault("local"), "the case this rule is for");
    assert.equal(runToRunShift("database", "local", "quick", "latency_p99_ms"), quiet.metrics!.latency_p99_ms);
    assert.equal(runToRunShift("database", "hosted", "quick", "ops_per_s"), Math.max(widestDefault("hosted"), quiet.default));
  });

  it("holds each metric to its own shift: memory moves far less than time", () => {
    assert.ok(runToRunShift("startup", "local", "quick", "peak_rss_mb") < runToRunShift("startup", "local", "quick", "wall_ms"));
    assert.equal(runToRunShift("http", "hosted", "quick", "server_peak_rss_mb"), RUN_TO_RUN_SHIFT.http!.hosted!.metrics!.server_peak_rss_mb);
  });

  it("holds a full-profile run to its own shift where measured, and a quick one on either side to the quick shift", () => {
    assert.ok(runToRunShift("startup", "local", "full", "wall_ms") < runToRunShift("startup", "local", "quick", "wall_ms"));
    assert.equal(runToRunShift("http", "local", "full", "rps"), runToRunShift("http", "local", "quick", "rps"), "not measured apart");
    const quick = syntheticResult({ index: 0, level: 30, shape: { sampleNoise: 0.005 } });
    const full = { ...syntheticResult({ index: 1, level: 30, shape: { sampleNoise: 0.005 } }) };
    full.run = { ...full.run, profile: "full" };
    const [mixed] = compareResults([full], [quick]);
    assert.equal(mixed!.min_effect, runToRunShift("startup", "dedicated", "quick", "wall_ms"));
  });

  it("keeps a metric's own unit and direction", () => {
    const doc = makeResult({ metrics: { requests_per_s: metricOf([1, 2, 3], "req/s", "higher") } });
    assert.deepEqual(measurementsOf([doc]).map((m) => [m.metric, m.summary.better]), [["requests_per_s", "higher"]]);
  });
});
