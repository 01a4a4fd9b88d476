import assert from "node:assert/strict";
import { test } from "node:test";
import { LoadError, ohaArgs, parseOhaReport } from "../../src/suites/http/oha.ts";

const base = {
  request: { method: "GET", url: "http://127.0.0.1:1234/json" },
  connections: 10,
  keepalive: true,
  durationS: 0.8,
  threads: 1,
  pin: ["taskset", "-c", "1"],
};

test("oha always asks for identity encoding, waits for in-flight requests and prints JSON", () => {
  const args = ohaArgs(base);
  const header = args.indexOf("-H");
  assert.equal(args[header + 1], "Accept-Encoding: identity");
  assert.deepEqual(args.slice(args.indexOf("--output-format"), args.indexOf("--output-format") + 2), ["--output-format", "json"]);
  assert.ok(args.includes("-w"));
  assert.equal(args[args.indexOf("-z") + 1], "800ms");
  assert.equal(args[args.indexOf("-c") + 1], "10");
  assert.ok(!args.includes("--disable-keepalive"));
  assert.ok(!args.includes("-q"), "throughput load is not rate limited");
  assert.equal(args.at(-1), "http://127.0.0.1:1234/json");
});

test("a fixed rate turns on latency correction; no keep-alive closes from the client side; bodies are JSON", () => {
  const args = ohaArgs({ ...base, keepalive: false, rate: 500, request: { method: "POST", url: "http://h/items", body: '{"a":1}' } });
  assert.equal(args[args.indexOf("-q") + 1], "500");
  assert.ok(args.includes("--latency-correction"));
  assert.ok(args.includes("--disable-keepalive"));
  assert.equal(args[args.indexOf("-m") + 1], "POST");
  assert.equal(args[args.indexOf("-T") + 1], "application/json");
  assert.equal(args[args.indexOf("-d") + 1], '{"a":1}');
});

test("oha's JSON is read for total time, percentiles, statuses and errors", () => {
  const report = parseOhaReport(
    JSON.stringify({
      summary: { successRate: 1, total: 1.5, requestsPerSec: 1000 },
      latencyPercentiles: { p50: 0.0002, p90: 0.0005, p99: 0.002, "p99.9": 0.01 },
      statusCodeDistribution: { "200": 1490, "500": 10 },
      errorDistribution: { "connection closed": 2 },
    }),
  );
  assert.equal(report.totalS, 1.5);
  assert.deepEqual(report.latencyS, { p50: 0.0002, p90: 0.0005, p99: 0.002, p999: 0.01 });
  assert.deepEqual(report.statusCodes, { "200": 1490, "500": 10 });
  assert.deepEqual(report.errors, { "connection closed": 2 });
});

test("a run where nothing answered has no percentiles; text instead of JSON is a LoadError", () => {
  const report = parseOhaReport(JSON.stringify({ summary: { total: 1 }, latencyPercentiles: {}, statusCodeDistribution: {}, errorDistribution: { refused: 5 } }));
  assert.ok(Number.isNaN(report.latencyS.p99));
  assert.throws(() => parseOhaReport("Summary:\n  Success rate: 100.00%"), LoadError);
  assert.throws(() => parseOhaReport(JSON.stringify({ statusCodeDistribution: { "200": 1 } })), /summary.total/);
});
