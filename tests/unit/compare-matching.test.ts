import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareResults } from "../../src/compare/compare.ts";
import { compareMarkdown, compareTable, verdictText } from "../../src/compare/format.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { syntheticResult } from "../helpers/series.ts";

describe("compare: matching BASE and HEAD", () => {
  it("matches on suite, scenario version, app, params and metric, and skips results that are not ok", () => {
    const base = [
      syntheticResult({ index: 0, level: 30 }),
      makeResult({ scenario: "typescript", status: "failed", error: "exit 1", metrics: {} }),
      makeResult({ scenario: "import-graph", scenario_version: 2 }),
      makeResult({ app: "hono", params: { connections: 10 } }),
    ];
    const head = [
      syntheticResult({ index: 1, level: 30 }),
      makeResult({ scenario: "typescript" }),
      makeResult({ scenario: "import-graph", scenario_version: 3 }),
      makeResult({ app: "hono", params: { connections: 100 } }),
    ];
    const rows = compareResults(base, head);
    assert.deepEqual(rows.map((r) => `${r.scenario} ${r.metric}`), ["hello wall_ms"]);
  });

  it("judges no change where a side's median is at or below its measurement's resolution, and says so", () => {
    const rtt = (samples: number[]) => makeResult({ suite: "websocket", scenario: "echo", app: "native", metrics: { rate_rtt_p50_ms: { ...metricOf(samples), resolution: 1 } } });
    const [row] = compareResults([rtt([0, 0, 0])], [rtt([1, 1, 1])]);
    assert.equal(row!.verdict, "inconclusive");
    assert.equal(row!.ratio, null);
    assert.match(row!.reason!, /^below resolution: a median of 0 ms is at or below the measurement's 1 ms$/);
    assert.doesNotMatch(compareTable([row!]), /Infinity/);
  });

  it("pools repeated runs of one version on a side", () => {
    const base = [syntheticResult({ index: 0, level: 30 }), syntheticResult({ index: 1, level: 30 })];
    const head = [syntheticResult({ index: 2, level: 30 })];
    const [row] = compareResults(base, head);
    assert.deepEqual([row!.base_runs, row!.head_runs], [2, 1]);
  });

  it("pairs runtime with runtime when both sides hold several", () => {
    const base = [syntheticResult({ index: 0, level: 30, version: "22.10.0" }), syntheticResult({ index: 0, level: 13, runtime: "bun", version: "1.1.0" })];
    const head = [syntheticResult({ index: 1, level: 30, version: "22.11.0" }), syntheticResult({ index: 1, level: 13, runtime: "bun", version: "1.2.0" })];
    const pairs = compareResults(base, head).map((r) => `${r.base_runtime}@${r.base_version}→${r.head_runtime}@${r.head_version}`);
    assert.deepEqual(pairs, ["node@22.10.0→node@22.11.0", "bun@1.1.0→bun@1.2.0"]);
  });

  it("gives no ratio where a side has samples of 0 (a CPU time rounded to 0 s), and says so", () => {
    const base = [syntheticResult({ index: 0, level: 0, version: "26.10.0", metric: "database_cpu_s" })];
    const head = [syntheticResult({ index: 1, level: 0.4, runtime: "bun", version: "1.4.5", metric: "database_cpu_s" })];
    const [row] = compareResults(base, head);
    assert.equal(row!.base_median, 0);
    assert.deepEqual([row!.ratio, row!.ci95, row!.verdict, row!.reason], [null, null, "not comparable", "the base has samples of 0: no ratio"]);
    const [some] = compareResults([makeResult({ metrics: { database_cpu_s: { ...makeResult().metrics.wall_ms!, unit: "s", samples: [0, 0.01, 0.02], median: 0.01 } } })], head);
    assert.equal(some!.reason, "the base has samples of 0: no ratio", "a median above 0 with a sample of 0 has resamples of 0");
  });

  it("reports results from different machines as not comparable, with no ratio", () => {
    const base = syntheticResult({ index: 0, level: 30 });
    const otherRunner = syntheticResult({ index: 1, level: 30, runner: "bench-x64-2" });
    const otherCpu = { ...syntheticResult({ index: 1, level: 30 }), environment: { ...base.environment, cpu_model: "Other CPU", fingerprint: "fedcba9876543210" } };
    const byRunner = compareResults([base], [otherRunner])[0]!;
    assert.equal(byRunner.verdict, "not comparable");
    assert.equal(byRunner.ratio, null);
    assert.match(byRunner.reason!, /runner differs \(bench-x64-1 vs bench-x64-2\)/);
    assert.match(compareResults([base], [otherCpu])[0]!.reason!, /CPU model differs/);
  });

  it("prints a text table and a markdown table with every row", () => {
    const rows = compareResults([syntheticResult({ index: 0, level: 30 })], [syntheticResult({ index: 1, level: 12 })]);
    assert.match(compareTable(rows), /startup\/hello\s+wall_ms\s+node@22\.11\.0 29\.\d+ ms\s+node@22\.11\.0 11\.\d+ ms\s+0\.400× \(−60\.0 %\).*faster/);
    const markdown = compareMarkdown(rows).split("\n");
    assert.equal(markdown[0], "**HEAD against BASE**: 0 worse, 1 better, 0 inconclusive, 0 with no significant change.");
    assert.match(markdown[2]!, /^\| scenario \| metric \| BASE \| HEAD \|/);
    assert.match(markdown[4]!, /^\| startup\/hello \| wall_ms \|.*\| \*\*faster\*\* \|$/);
  });

  it("calls a change faster or slower only for a time or a rate; a memory or a count is lower or higher, better or worse", () => {
    const memory = { unit: "MB", better: "lower" } as const;
    assert.equal(verdictText({ ...memory, verdict: "faster" }), "lower (better)");
    assert.equal(verdictText({ ...memory, verdict: "slower" }), "higher (worse)");
    assert.equal(verdictText({ unit: "x", better: "higher", verdict: "slower" }), "lower (worse)", "a speed-up that fell");
    assert.equal(verdictText({ unit: "calls/op", better: "lower", verdict: "slower" }), "higher (worse)");
    for (const unit of ["ms", "µs", "s", "req/s", "MB/s"]) assert.equal(verdictText({ unit, better: unit.endsWith("/s") ? "higher" : "lower", verdict: "faster" }), "faster", unit);
    assert.equal(verdictText({ ...memory, verdict: "inconclusive" }), "inconclusive");
    const rss = (level: number, index: number) => makeResult({ run: { ...makeResult().run, id: `r${index}` }, metrics: { peak_rss_mb: metricOf([level, level * 1.01, level * 0.99, level * 1.005, level * 0.995], "MB") } });
    const rows = compareResults([rss(60, 0)], [rss(30, 1)], { defaultMinEffect: 0.05 });
    assert.match(compareTable(rows), /peak_rss_mb .*0\.500× .*lower \(better\)/);
    assert.match(compareMarkdown(rows), /^\*\*HEAD against BASE\*\*: 0 worse, 1 better, 0 inconclusive, 0 with no significant change\./);
  });
});
