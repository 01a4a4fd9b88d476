import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RegressionReport, SeriesChange } from "../../src/regressions/types.ts";
import { regressionsBody } from "../../src/site/regressions.ts";

/** A confirmed change of one release on `reference`: `ratio` on `scenario`'s metric, measured at `updated`. */
function change(runtime: string, from: string, to: string, scenario: string, metric: string, ratio: number, updated: string, headline = true): SeriesChange {
  return {
    series: `${runtime} ${scenario} ${metric}`, runner: "reference", runtime, headline, suite: scenario.split("/")[0]!, scenario: scenario.split("/")[1]!, scenario_version: 1, app: null, params: {}, metric,
    unit: "ms", better: "lower", kind: ratio > 1 ? "regression" : "improvement", from_version: from, to_version: to, ratio, ci95: [ratio * 0.98, ratio * 1.02],
    noise_floor: null, min_effect: 0.01, min_effect_source: "paired", status: "confirmed", reason: "paired", environment_drift: false, run_ids: [], updated, between: { releases: 0 },
  };
}

const report = (changes: SeriesChange[]): RegressionReport => ({ schema: "runtime-bench/regressions/v1", generated_at: "2026-12-06T00:00:00.000Z", changes, drifted_runs: [], series: [] });

/** The page's text with its tags gone and its spaces folded, from `start` to `end`. */
function textBetween(page: string, start: string, end: string): string {
  const from = page.indexOf(start);
  assert.ok(from >= 0, `the page holds ${start}`);
  return page.slice(from, page.indexOf(end, from)).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

describe("regressions page, release by release", () => {
  const changes = [
    change("node", "22.6.0", "22.7.0", "startup/hello", "peak_rss_mb", 0.97, "2026-12-03T00:00:00.000Z", false),
    change("node", "22.6.0", "22.7.0", "startup/hello", "wall_ms", 0.5, "2026-12-01T00:00:00.000Z"),
    change("node", "22.6.0", "22.7.0", "startup/hello", "cpu_s", 0.4, "2026-12-01T00:00:00.000Z", false),
    change("node", "22.7.0", "22.8.0", "startup/hello", "peak_rss_mb", 1.02, "2026-11-30T00:00:00.000Z", false),
    change("deno", "2.9.4", "2.9.5", "workers/round-trip", "rtt_us", 0.8, "2026-11-29T00:00:00.000Z"),
    change("deno", "2.9.4", "2.9.5", "workers/round-trip", "rtt_us", 1.3, "2026-11-29T00:00:00.000Z"),
    change("deno", "2.9.4", "2.9.5", "workers/round-trip", "rtt_us", 0.7, "2026-11-29T00:00:00.000Z"),
  ];
  const page = regressionsBody({ report: report(changes), jsonPath: "regressions.json", atomPath: null }).text;

  it("indexes each release once, the runtime measured last first and each runtime's newest version first, with what it changed on a headline metric", () => {
    assert.match(page, /<h2>Confirmed changes, release by release <span class="count">7<\/span><\/h2>/);
    const rows = textBetween(page, '<table class="data stacked releases"', "</table>").split(" release notes · commits").map((row) => row.trim()).filter(Boolean);
    const index = rows.map((row) => row.replace(/^release runner regressions improvements on a headline metric what changed /, ""));
    assert.deepEqual(index, [
      "node 22.7.0 → 22.8.0 reference 1 0 none",
      "node 22.6.0 → 22.7.0 reference 0 3 startup/hello, wall time: −50.0 %",
      "deno 2.9.4 → 2.9.5 reference 1 2 workers/round-trip, round-trip time: −30.0 % to −20.0 % in 2 cells workers/round-trip, round-trip time: +30.0 %",
    ]);
    assert.match(page, /<a href="#release-node-22\.6\.0-22\.7\.0-reference">/);
  });

  it("lists each release's changes under its heading, its headline metric first, then the largest", () => {
    const section = textBetween(page, '<section class="release" id="release-node-22.6.0-22.7.0-reference">', "</section>");
    assert.match(section, /^node 22\.6\.0 → 22\.7\.0 on reference 0 regressions, 3 improvements /);
    assert.deepEqual([...section.matchAll(/(Wall time|CPU time|Peak memory \(RSS\)) \(ms, lower is better\) ([+−]\d+\.\d %)/g)].map((m) => `${m[1]} ${m[2]}`), ["Wall time −50.0 %", "CPU time −60.0 %", "Peak memory (RSS) −3.0 %"]);
    assert.ok(page.indexOf('id="release-node-22.7.0-22.8.0-reference"') < page.indexOf('id="release-node-22.6.0-22.7.0-reference"'), "sections in the index's order");
  });

  it("says so where no change is confirmed", () => {
    const empty = regressionsBody({ report: report([]), jsonPath: "regressions.json", atomPath: null }).text;
    assert.doesNotMatch(empty, /release by release/);
    assert.match(empty, /No significant change in 0 series/);
  });
});
