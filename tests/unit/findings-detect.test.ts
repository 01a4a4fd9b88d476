import assert from "node:assert/strict";
import { test } from "node:test";
import { findFindings, findOutliers, findSteps } from "../../src/findings/detect.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

const around = (value: number) => [value * 0.98, value * 1.01, value, value * 1.02, value * 0.99, value * 1.005];

function throughput(runtime: string, version: string, value: number, run = "20261101T000000Z-aaaaaa") {
  return makeResult({
    run: { id: run, trials: 3 },
    runtime: { name: runtime as "node", version },
    suite: "workers",
    scenario: "throughput",
    app: "worker-threads",
    params: { payload: "bytes", size: 1048576 },
    metrics: { throughput_mb_s: metricOf(around(value), "MB/s", "higher"), peak_rss_mb: metricOf(around(50), "MB") },
  });
}

test("a runtime 3× below both others on the headline metric is an outlier, the others are not", () => {
  const findings = findOutliers([throughput("node", "26.10.0", 6400), throughput("bun", "1.4.5", 6300), throughput("deno", "2.9.6", 24)]);
  assert.equal(findings.length, 1);
  const [finding] = findings;
  assert.equal(finding!.runtime, "deno");
  assert.equal(finding!.direction, "slower");
  assert.equal(finding!.metric, "throughput_mb_s");
  assert.ok(finding!.factor > 250 && finding!.factor < 270, `factor ${finding!.factor}`);
  assert.deepEqual(finding!.figures.map((f) => f.runtime), ["deno", "node", "bun"]);
  assert.ok(finding!.ci95[1] < 1, "deno / its nearest other excludes 1 from below");
});

test("the gap is measured against the others' level: 4.9× off one and 2.9× off the other is a finding", () => {
  const compute = (runtime: string, rps: number) =>
    makeResult({ runtime: { name: runtime as "node" }, run: { trials: 3 }, suite: "http", scenario: "compute", metrics: { rps: metricOf(around(rps), "req/s", "higher") } });
  const findings = findOutliers([compute("node", 16_337), compute("deno", 27_421), compute("bun", 5_570)]);
  assert.deepEqual(findings.map((f) => f.runtime), ["bun"]);
  assert.ok(Math.abs(findings[0]!.factor - Math.sqrt((16_337 / 5_570) * (27_421 / 5_570))) < 0.05, `factor ${findings[0]!.factor}, the geometric mean of 2.93× and 4.92×`);
  assert.ok(findings[0]!.ci95[1] < 1 / 2.8, "the interval is bun's ratio to its nearest other, node");
  // Off the field's level, but only 2.4× and 2.6× off each: under 3× either way, no finding.
  assert.deepEqual(findOutliers([compute("node", 12_000), compute("deno", 13_000), compute("bun", 5_000)]), []);
});

test("a figure its load generator set stands only on the better side of a gap", () => {
  // rps measured with oha at full speed; `bound`: oha used all its CPU in a trial.
  const json = (runtime: string, version: string, rps: number, bound: boolean) =>
    makeResult({
      runtime: { name: runtime as "node", version },
      run: { trials: 3 },
      suite: "http",
      scenario: "json",
      metrics: { rps: { ...metricOf(around(rps), "req/s", "higher"), client_limited: "oha" } },
      details: { client_bound: bound, client_bound_by: bound ? ["oha"] : [] },
    });
  // The far-off runtime is the worse one and unbound; the better ones are at least as fast as their figures: it stands.
  assert.deepEqual(findOutliers([json("node", "26.10.0", 15_000, false), json("bun", "1.4.5", 56_000, true), json("deno", "2.9.6", 50_000, true)]).map((f) => f.runtime), ["node"]);
  // The far-off runtime is the worse one, and its own figure is only oha's ceiling: no finding.
  assert.deepEqual(findOutliers([json("node", "26.10.0", 15_000, true), json("bun", "1.4.5", 56_000, false), json("deno", "2.9.6", 50_000, false)]), []);
  // A release 3× faster than the one before whose figure is oha's ceiling is faster still: the step stands; 3× slower with its ceiling, no.
  assert.deepEqual(findSteps([json("bun", "1.4.4", 20_000, false), json("bun", "1.4.5", 60_000, true)]).map((f) => f.direction), ["faster"]);
  assert.deepEqual(findSteps([json("bun", "1.4.4", 60_000, false), json("bun", "1.4.5", 20_000, true)]), []);
});

test("a gap under the factor, or one only a secondary metric shows, is no finding", () => {
  assert.deepEqual(findOutliers([throughput("node", "26.10.0", 6400), throughput("deno", "2.9.6", 2200)]), []);
  const rss = (runtime: string, mb: number) =>
    makeResult({ runtime: { name: runtime as "node" }, metrics: { wall_ms: metricOf(around(30)), peak_rss_mb: metricOf(around(mb), "MB") } });
  assert.deepEqual(findOutliers([rss("node", 40), rss("bun", 400)]), []);
});

test("with two runtimes the worse one carries the gap; each runtime is judged by its newest version", () => {
  const findings = findOutliers([throughput("node", "26.10.0", 6400), throughput("deno", "2.9.6", 100), throughput("deno", "2.1.4", 6400)]);
  assert.equal(findings.length, 1);
  assert.equal(findings[0]!.version, "2.9.6");
  assert.equal(findings[0]!.runtime, "deno");
});

test("a gap the samples cannot back (intervals overlapping 1) is no finding", () => {
  const wild = (runtime: string, samples: number[]) =>
    makeResult({ runtime: { name: runtime as "node" }, run: { trials: 3 }, metrics: { wall_ms: metricOf(samples) } });
  // Medians 5× apart (10 and 52.5), but one trial of each side reaches the other's values.
  const sides = [wild("node", [10, 10, 10, 10, 70, 70]), wild("bun", [10, 35, 35, 70, 70, 70])];
  assert.deepEqual(findOutliers(sides, { outlierFactor: 3, stepFactor: 2 }), []);
  // The same medians with tight trials are a finding: the interval, not the factor, held it back.
  assert.equal(findOutliers([wild("node", around(10)), wild("bun", around(52.5))]).length, 1);
});

test("adjacent releases 2× apart are a step, in the metric's direction; a smaller move is not", () => {
  const versions = [
    ["22.9.0", 30],
    ["22.10.0", 31],
    ["22.11.0", 64],
    ["22.12.0", 80],
  ] as const;
  const docs = versions.map(([version, ms]) => makeResult({ run: { id: `run-${version}` }, runtime: { version }, metrics: { wall_ms: metricOf(around(ms)) } }));
  const steps = findSteps(docs);
  assert.equal(steps.length, 1);
  assert.equal(steps[0]!.from_version, "22.10.0");
  assert.equal(steps[0]!.version, "22.11.0");
  assert.equal(steps[0]!.direction, "slower");
  assert.ok(Math.abs(steps[0]!.factor - 64 / 31) < 0.05);
});

test("findings are ranked by size, largest first, with stable ids", () => {
  const docs = [throughput("node", "26.10.0", 6400), throughput("bun", "1.4.5", 6300), throughput("deno", "2.9.6", 24)];
  const steps = ["1.0.0", "1.1.0"].map((version, i) => makeResult({ runtime: { version }, run: { id: `r${i}` }, metrics: { wall_ms: metricOf(around(i === 0 ? 10 : 50)) } }));
  const all = findFindings([...docs, ...steps]);
  assert.deepEqual(all.map((f) => f.kind), ["outlier", "step"]);
  assert.deepEqual(findFindings([...docs, ...steps]).map((f) => f.id), all.map((f) => f.id));
});

test("of three spread-out runtimes, the best and the worst stand apart; the one between them does not", () => {
  const findings = findOutliers([throughput("node", "26.10.0", 605), throughput("bun", "1.4.5", 2062), throughput("deno", "2.9.6", 7.5)]);
  assert.deepEqual(findings.map((f) => [f.runtime, f.direction]).sort(), [["bun", "faster"], ["deno", "slower"]]);
});
