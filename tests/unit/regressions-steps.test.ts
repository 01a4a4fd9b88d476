import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { syntheticHistory, syntheticResult } from "../helpers/series.ts";

const NOW = new Date("2026-12-01T00:00:00.000Z");

describe("regressions: steps in a series", () => {
  it("flags a 10 % step in a series with about 1 % noise, confirmed by the next version", () => {
    const report = detectRegressions(syntheticHistory({ seed: 1, runNoise: 0.01, step: 0.1, stepAt: 6 }), { now: NOW });
    assert.equal(report.changes.length, 1);
    const [change] = report.changes;
    assert.deepEqual(
      [change!.kind, change!.status, change!.from_version, change!.to_version, change!.reason],
      ["regression", "confirmed", "22.5.0", "22.6.0", "22.7.0 confirms it"],
    );
    assert.ok(change!.ratio > 1.06 && change!.ratio < 1.14, `ratio ${change!.ratio}`);
    assert.ok(change!.ci95[0] > 1, "the interval excludes 1");
    assert.equal(change!.min_effect_source, "noise floor");
    assert.ok(change!.noise_floor! < 0.05, `noise floor ${change!.noise_floor}`);
    assert.equal(report.series[0]!.noise_floor, change!.noise_floor);
  });

  it("holds back a step on a reference testbed that only runs apart show, and confirms the same step on a dedicated runner", () => {
    const history = syntheticHistory({ seed: 1, runNoise: 0.01, step: 0.1, stepAt: 6 });
    const onReference = history.map((doc) => ({ ...doc, run: { ...doc.run, runner: "reference-x64-2vcpu", runner_kind: "reference" as const } }));
    const held = detectRegressions(onReference, { now: NOW });
    assert.deepEqual(held.changes.map((c) => [c.status, c.from_version, c.to_version]), [["unconfirmed", "22.5.0", "22.6.0"]]);
    assert.match(held.changes[0]!.reason, /reference testbed.*beside its predecessor in one run/);
    assert.deepEqual(detectRegressions(history, { now: NOW }).changes.map((c) => c.status), ["confirmed"]);
  });

  it("calls a step the right way an improvement", () => {
    const report = detectRegressions(syntheticHistory({ seed: 1, runNoise: 0.01, step: -0.1, stepAt: 6 }));
    assert.deepEqual(report.changes.map((c) => [c.kind, c.to_version]), [["improvement", "22.6.0"]]);
  });

  it("does not flag the same step in series whose noise is ±15 %", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const report = detectRegressions(syntheticHistory({ seed, runNoise: 0.15, step: 0.1, stepAt: 6 }));
      assert.deepEqual(report.changes, [], `seed ${seed}`);
      assert.ok(report.series[0]!.noise_floor! > 0.15, `seed ${seed}: noise floor ${report.series[0]!.noise_floor}`);
    }
  });

  it("does not flag a single outlier, and holds the next version against the level before it", () => {
    const report = detectRegressions(syntheticHistory({ seed: 1, runNoise: 0.01, outlierAt: 4, outlier: 0.15 }));
    assert.deepEqual(report.changes, []);
    assert.deepEqual(report.series[0]!.outliers, ["22.4.0"]);
  });

  it("holds a change at the newest version as unconfirmed until a repeated run confirms it", () => {
    const history = syntheticHistory({ seed: 1, runNoise: 0.01, versions: 9 });
    const jump = (index: number) => syntheticResult({ index, level: 33, version: "22.9.0", shape: { seed: index, sampleNoise: 0.03, trialNoise: 0.005 } });
    const once = detectRegressions([...history, jump(20)]);
    assert.deepEqual(once.changes.map((c) => [c.to_version, c.status]), [["22.9.0", "unconfirmed"]]);
    assert.match(once.changes[0]!.reason, /newest measurement/);
    const twice = detectRegressions([...history, jump(20), jump(21)]);
    assert.deepEqual(twice.changes.map((c) => [c.to_version, c.status, c.reason]), [["22.9.0", "confirmed", "each of the 2 runs of 22.9.0 shows it"]]);
    assert.equal(twice.changes[0]!.run_ids.length, 2);
  });

  it("orders versions by semver, not as text", () => {
    const docs = ["22.9.0", "22.10.0", "22.2.0"].map((version, index) => syntheticResult({ index, level: 30, version }));
    assert.deepEqual(detectRegressions(docs).series[0]!.versions, ["22.2.0", "22.9.0", "22.10.0"]);
  });

  it("keeps series apart by runner, runtime and metric, and counts only ok results", () => {
    const docs = [
      syntheticResult({ index: 0, level: 30 }),
      syntheticResult({ index: 1, level: 30, runner: "bench-arm-1" }),
      syntheticResult({ index: 2, level: 13, runtime: "bun", version: "1.2.0" }),
      syntheticResult({ index: 3, level: 900, metric: "requests_per_s", better: "higher" }),
      makeResult({ status: "failed", error: "exit 1", metrics: {} }),
    ];
    const report = detectRegressions(docs, { now: NOW });
    assert.equal(report.series.length, 4);
    assert.equal(report.generated_at, NOW.toISOString());
    assert.ok(report.series.every((s) => s.noise_floor === null && s.runs === 1));
  });
});
