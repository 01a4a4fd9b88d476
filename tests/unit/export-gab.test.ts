import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gabEntries, gabTool, versionLine } from "../../src/export/gab.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { syntheticResult } from "../helpers/series.ts";

/** github-action-benchmark's custom input: an array of {name, unit, value, range?, extra?} with these types. */
function assertCustomFormat(entries: unknown): void {
  assert.ok(Array.isArray(entries));
  for (const entry of entries as Record<string, unknown>[]) {
    assert.deepEqual(Object.keys(entry).sort(), ["extra", "name", "range", "unit", "value"]);
    assert.equal(typeof entry.name, "string");
    assert.equal(typeof entry.unit, "string");
    assert.ok(typeof entry.value === "number" && Number.isFinite(entry.value));
    assert.match(entry.range as string, /^± \d/);
    assert.equal(typeof entry.extra, "string");
  }
}

describe("github-action-benchmark export", () => {
  it("writes the custom format, one direction per file", () => {
    const docs = [
      makeResult({ metrics: { wall_ms: metricOf([30, 31, 29]), peak_rss_mb: metricOf([47, 47.1, 47.2], "MB") } }),
      makeResult({ suite: "http", scenario: "json", app: "hono", params: { connections: 50 }, metrics: { rps: metricOf([900, 950, 1000], "req/s", "higher") } }),
    ];
    const lower = gabEntries(docs, "lower");
    const higher = gabEntries(docs, "higher");
    assertCustomFormat(JSON.parse(JSON.stringify(lower)));
    assertCustomFormat(JSON.parse(JSON.stringify(higher)));
    assert.deepEqual(lower.map((e) => e.name), ["node 22.x · startup/hello · peak_rss_mb · bench-x64-1", "node 22.x · startup/hello · wall_ms · bench-x64-1"]);
    assert.deepEqual(higher.map((e) => [e.name, e.unit, e.value]), [["node 22.x · http/json · hono · connections=50 · rps · bench-x64-1", "req/s", 950]]);
    assert.deepEqual([gabTool("higher"), gabTool("lower")], ["customBiggerIsBetter", "customSmallerIsBetter"]);
  });

  it("leaves out a median at or below its measurement's resolution, and any zero: a ratio to a clock's tick reads Infinity× worse", () => {
    const ws = makeResult({
      suite: "websocket",
      scenario: "echo",
      app: "native",
      metrics: {
        rate_rtt_p50_ms: { ...metricOf([0, 0]), resolution: 1 },
        rate_rtt_p99_ms: { ...metricOf([1, 1]), resolution: 1 },
        rtt_p50_ms: metricOf([0.21, 0.23]),
      },
    });
    const db = makeResult({
      suite: "database",
      scenario: "point-select",
      app: "pg",
      params: { concurrency: 10 },
      metrics: { server_cpu_s: { ...metricOf([0, 0], "s"), resolution: 0.01 }, latency_p50_ms: metricOf([0, 0]), wall_ms: { ...metricOf([0.02, 0.03], "s"), resolution: 0.01 } },
    });
    const entries = gabEntries([ws, db], "lower");
    assert.deepEqual(entries.map((e) => e.name.split(" · ").at(-2)), ["wall_ms", "rtt_p50_ms"]);
    assert.ok(entries.every((e) => e.value > 0));
  });

  it("puts the exact version and the confidence interval in extra, and its half-width in range", () => {
    const doc = makeResult({ metrics: { wall_ms: { ...metricOf([30, 31, 29, 30, 32]), ci95: [29, 31.5] } } });
    const [entry] = gabEntries([doc], "lower");
    assert.equal(entry!.range, "± 1.25");
    assert.match(entry!.extra, /^node 22\.11\.0 \(sha256 a{12}\)\nmedian 30\.00 ms, 95 % CI \[29\.00, 31\.50\], n=5\nrun 20261101T000000Z-abcdef on bench-x64-1$/);
  });

  it("gives every series its own name: runtime, version line, runner, scenario, app, params, metric", () => {
    const docs = [
      syntheticResult({ index: 0, level: 30, version: "20.18.0" }),
      syntheticResult({ index: 0, level: 30, version: "22.11.0" }),
      syntheticResult({ index: 0, level: 30, runner: "bench-arm-1" }),
      syntheticResult({ index: 0, level: 13, runtime: "bun", version: "1.2.0" }),
      syntheticResult({ index: 0, level: 30, scenario: "typescript" }),
      makeResult({ scenario_version: 2 }),
      makeResult({ app: "hono", params: { connections: 50 } }),
      makeResult({ app: "hono", params: { connections: 256 } }),
      makeResult({ app: "express", params: { connections: 50 } }),
    ];
    const names = gabEntries(docs, "lower").map((e) => e.name);
    assert.equal(new Set(names).size, names.length, `duplicate names in ${names.join("\n")}`);
    assert.equal(names.length, 9);
    assert.ok(names.includes("node 20.x · startup/hello · wall_ms · bench-x64-1"));
    assert.ok(names.includes("node 22.x · startup/hello v2 · wall_ms · bench-x64-1"));
  });

  it("lets the newest version's latest run stand for a line holding several", () => {
    const docs = [
      syntheticResult({ index: 0, level: 30, version: "22.12.0" }),
      syntheticResult({ index: 1, level: 31, version: "22.9.0" }),
      syntheticResult({ index: 2, level: 32, version: "22.12.0" }),
    ];
    const entries = gabEntries(docs, "lower");
    assert.equal(entries.length, 1);
    assert.match(entries[0]!.extra, /^node 22\.12\.0 .*\n.*\nrun 20261101T020000Z-000002 /);
  });

  it("reads a version line as the major version", () => {
    assert.deepEqual([versionLine("22.11.0"), versionLine("1.2.0"), versionLine("2.1.4"), versionLine("canary")], ["22.x", "1.x", "2.x", "canary"]);
  });

  it("leaves out results that are not ok", () => {
    assert.deepEqual(gabEntries([makeResult({ status: "failed", error: "exit 1" })], "lower"), []);
  });
});
