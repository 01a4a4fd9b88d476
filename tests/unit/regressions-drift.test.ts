import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { measurementsOf } from "../../src/compare/series-key.ts";
import { checkAgainst } from "../../src/core/schema.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { isSentinel, judgeDrift } from "../../src/regressions/drift.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { syntheticResult } from "../helpers/series.ts";

const SENTINEL = "node@22.11.0";
const shape = (seed: number) => ({ seed, sampleNoise: 0.02, trialNoise: 0.005 });

/**
 * Runs 0–10, each measuring bun 1.1.<run> (1.1.9 twice: runs 9 and 10) beside the pinned sentinel.
 * In runs 9 and 10 bun is 20 % slower; `machineSlowdown` says how much slower the sentinel is there too.
 */
function history(machineSlowdown: number): ResultDocument[] {
  return Array.from({ length: 11 }, (_, index) => {
    const late = index >= 9;
    const bunVersion = `1.1.${Math.min(index, 9)}`;
    return [
      syntheticResult({ index, level: 40 * (late ? 1 + machineSlowdown : 1), sentinel: SENTINEL, shape: shape(1000 + index) }),
      syntheticResult({ index, level: 13 * (late ? 1.2 : 1), runtime: "bun", version: bunVersion, sentinel: SENTINEL, shape: shape(2000 + index) }),
    ];
  }).flat();
}

describe("drift sentinel", () => {
  it("recognises the sentinel by its spec or by name@version", () => {
    assert.equal(isSentinel(makeResult({ run: { sentinel: "node@22.11.0" } })), true);
    assert.equal(isSentinel(makeResult({ run: { sentinel: "node@22.11.0" }, runtime: { spec: "node@22" } })), true);
    assert.equal(isSentinel(makeResult({ run: { sentinel: "node@20.18.0" } })), false);
    assert.equal(isSentinel(makeResult({ run: { sentinel: null } })), false);
  });

  it("marks no run while the sentinel holds steady", () => {
    assert.deepEqual(judgeDrift(measurementsOf(history(0)), 0.05), []);
  });

  it("marks the runs whose sentinel moved beyond its noise, saying what moved", () => {
    const drifted = judgeDrift(measurementsOf(history(0.2)), 0.05);
    assert.deepEqual(drifted.map((d) => d.run_id.slice(-6)), ["000009", "00000a"]);
    const [moved] = drifted[0]!.moved;
    assert.deepEqual([drifted[0]!.sentinel, moved!.scenario, moved!.metric], [SENTINEL, "hello", "wall_ms"]);
    assert.ok(moved!.ratio > 1.15 && moved!.ci95[0] > 1);
  });

  it("confirms a regression seen in two clean runs", () => {
    const report = detectRegressions(history(0));
    const bun = report.changes.filter((c) => c.runtime === "bun");
    assert.deepEqual(bun.map((c) => [c.kind, c.to_version, c.status, c.environment_drift]), [["regression", "1.1.9", "confirmed", false]]);
    assert.deepEqual(report.drifted_runs, []);
  });

  it("holds back the same regression as unconfirmed when the runs that show it drifted", () => {
    const report = detectRegressions(history(0.2));
    const bun = report.changes.filter((c) => c.runtime === "bun");
    assert.deepEqual(bun.map((c) => [c.kind, c.to_version, c.status, c.environment_drift]), [["regression", "1.1.9", "unconfirmed", true]]);
    assert.match(bun[0]!.reason, /^held back: measured while the machine drifted \(run 20261101T090000Z-000009 on bench-x64-1: sentinel node@22\.11\.0 moved \(startup\/hello wall_ms \+2\d\.\d %\); run 20261101T100000Z-00000a/);
    assert.equal(report.drifted_runs.length, 2);
    assert.deepEqual(checkAgainst("regressions.schema.json", report), [], "the feed's schema allows drifted runs");
    assert.equal(report.changes.filter((c) => c.status === "confirmed").length, 0, "nothing from a drifting run is alerted");
  });
});
