import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { failureLines, fullTable, summaryTable } from "../../src/ui/summary.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

const node = makeResult({ metrics: { wall_ms: metricOf([40, 41, 39, 40, 42]), peak_rss_mb: metricOf([50, 50, 51], "MB") } });
const bun = makeResult({ runtime: { name: "bun", version: "1.2.0" }, metrics: { wall_ms: metricOf([16, 17, 16, 18, 17]), peak_rss_mb: metricOf([30, 31, 30], "MB") } });
const deno = makeResult({ runtime: { name: "deno", version: "2.1.4" }, metrics: { wall_ms: metricOf([16, 30, 17, 40, 18]) } });
const unsupported = makeResult({ runtime: { name: "deno", version: "2.1.4" }, scenario: "typescript", status: "unsupported", error: "needs deno >= 9", metrics: {} });

describe("the run's summary", () => {
  it("is one line per scenario with the runtimes side by side on the headline metric", () => {
    const lines = summaryTable([node, bun, deno, unsupported]).split("\n");
    assert.equal(lines.length, 2 + 2, "a header, a rule, and one line per scenario");
    assert.match(lines[0]!, /^scenario\s+headline\s+node@22\.11\.0\s+bun@1\.2\.0\s+deno@2\.1\.4\s+vs best/);
    assert.match(lines[2]!, /^startup\/hello\s+wall_ms \(lower\)\s+40\.00 ms\s+17\.00 ms\s+18\.00 ms\s+bun best; node 2\.35×\*, deno 1\.06×$/, "node's interval lies apart from bun's, deno's overlaps it");
    assert.match(lines[3]!, /^startup\/typescript\s+unsupported\s+nothing measured$/);
  });

  it("marks a figure its load generator set as the bound it is, and each ratio to it", () => {
    const json = (runtime: string, rps: number, bound: boolean) =>
      makeResult({
        runtime: { name: runtime as "node", version: "1.0.0" },
        suite: "http",
        scenario: "json",
        metrics: { rps: { ...metricOf([rps, rps * 1.01, rps * 0.99], "req/s", "higher"), client_limited: "oha" } },
        details: { client_bound: bound, client_bound_by: bound ? ["oha"] : [] },
      });
    const [header, , line, note] = summaryTable([json("node", 15_000, false), json("bun", 56_000, true), json("deno", 50_000, true)]).split("\n");
    assert.match(header!, /node@1\.0\.0\s+bun@1\.0\.0\s+deno@1\.0\.0/);
    assert.match(line!, /^http\/json\s+rps \(higher\)\s+15000 req\/s\s+≥ 56000 req\/s\s+≥ 50000 req\/s\s+bun best; node ≥ 3\.73×\*?, deno \? \(both at their client's limit\)$/);
    assert.match(note!, /^≥ \/ ≤: the load generator used all its CPU/);
    // The best unbound, a slower one bound: at most that far behind.
    assert.match(summaryTable([json("node", 15_000, true), json("bun", 56_000, false)]), /bun best; node ≤ 3\.73×\*?$/m);
    assert.equal(summaryTable([json("node", 15_000, false), json("bun", 56_000, false)]).split("\n").length, 3, "no note where no figure is bound");
  });

  it("says a cell was interrupted, with the trials it kept, rather than that nothing was measured", () => {
    const interrupted = makeResult({
      scenario: "typescript",
      status: "failed",
      error: "interrupted after 1 of 3 trials",
      metrics: { wall_ms: metricOf([40]) },
      details: { interrupted_after_trials: 1 },
    });
    const line = summaryTable([interrupted]).split("\n")[2]!;
    assert.match(line, /^startup\/typescript\s+interrupted, 1 of 3 trials kept\s+interrupted$/);
    assert.match(fullTable([interrupted]), /interrupted, 1 of 3 trials kept\s+interrupted after 1 of 3 trials/);
  });

  it("keeps every metric of every cell in the full table", () => {
    const table = fullTable([node, bun]);
    assert.equal(table.split("\n").length, 2 + 4);
    assert.match(table, /peak_rss_mb\s+50\.00 ± \S+ MB\s+n=3\s+1\.67×/);
  });

  it("names each failed result with its cell, runtime and the first line of its reason, and nothing else", () => {
    const crashed = makeResult({ runtime: { name: "bun", version: "1.2.0" }, app: "loopback-http", params: { batch: 8 }, status: "failed", error: "trial 2: the app failed: EADDRINUSE\n    at listen (server.js:4)", metrics: {} });
    assert.deepEqual(failureLines([node, unsupported, crashed]), ["startup/hello loopback-http batch=8 bun@1.2.0: trial 2: the app failed: EADDRINUSE … (1 more line in the result's error)"]);
  });
});
