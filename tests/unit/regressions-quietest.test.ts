import assert from "node:assert/strict";
import { test } from "node:test";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { judgeOnQuietest, quietestText } from "../../src/regressions/quietest.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { syntheticHistory } from "../helpers/series.ts";

const NOW = new Date("2026-12-01T00:00:00.000Z");

/** One cell whose metrics are three synthetic histories of the same runs, renamed. */
function cell(metrics: Record<string, { unit: string; docs: ResultDocument[] }>): ResultDocument[] {
  const [first] = Object.values(metrics);
  return first!.docs.map((doc, i) => ({
    ...doc,
    metrics: Object.fromEntries(Object.entries(metrics).map(([name, { unit, docs }]) => [name, { ...docs[i]!.metrics.wall_ms!, unit }])),
  }));
}

test("a cell is judged on its least noisy speed metric, which is named, and sees the step the noisy one hides", () => {
  const docs = cell({
    wall_ms: { unit: "ms", docs: syntheticHistory({ seed: 3, runNoise: 0.2, step: 0.1, stepAt: 6 }) },
    cpu_s: { unit: "s", docs: syntheticHistory({ seed: 1, runNoise: 0.01, step: 0.1, stepAt: 6 }) },
    // Quieter still, but memory says nothing about speed.
    peak_rss_mb: { unit: "MB", docs: syntheticHistory({ seed: 5, runNoise: 0.001 }) },
  });
  const report = detectRegressions(docs, { now: NOW });
  const wall = report.series.find((s) => s.metric === "wall_ms")!;
  const cpu = report.series.find((s) => s.metric === "cpu_s")!;
  assert.ok(cpu.noise_floor! < wall.noise_floor!, `cpu_s ${cpu.noise_floor} quieter than wall_ms ${wall.noise_floor}`);
  assert.ok(!report.changes.some((c) => c.metric === "wall_ms" && c.status === "confirmed"), "the noisy metric confirms no step");

  const [judgement, ...more] = judgeOnQuietest(report);
  assert.equal(more.length, 0);
  assert.equal(judgement!.cell, "node startup/hello on bench-x64-1");
  assert.equal(judgement!.metric, "cpu_s");
  assert.equal(judgement!.noise_floor, cpu.noise_floor);
  assert.deepEqual(Object.keys(judgement!.noisier), ["wall_ms"], "memory is never a candidate");
  assert.deepEqual(judgement!.changes.map((c) => [c.status, c.kind, c.from_version, c.to_version]), [["confirmed", "regression", "22.5.0", "22.6.0"]]);
  assert.match(quietestText([judgement!]), /node startup\/hello on bench-x64-1 +cpu_s +\d\.\d % +wall_ms \d+\.\d % +confirmed regression 22\.5\.0 → 22\.6\.0/);
});

test("a cell with one speed metric, or without history, has nothing to choose from", () => {
  const report = detectRegressions(syntheticHistory({ seed: 2, runNoise: 0.01 }), { now: NOW });
  assert.deepEqual(judgeOnQuietest(report), []);
  assert.equal(quietestText([]), "no cell has two speed metrics with a known noise floor yet");
});
