import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CompareRow } from "../../src/compare/types.ts";
import { readResults } from "../../src/results/store.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";

/** Runs startup/hello on the given runtimes (interleaved) into a fresh folder. */
async function runHello(label: string, runtimes: readonly string[], profile: "quick" | "full"): Promise<string> {
  const out = tempDir(label);
  const result = await bench(["run", "--suite", "startup", "--scenario", "hello", ...runtimes.flatMap((r) => ["--runtime", r]), "--profile", profile, "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  return out;
}

/** `compare --json`, with an empty history so the repository's data/ cannot change the minimum effect. */
async function compareJson(base: string, head: string): Promise<CompareRow[]> {
  const result = await bench(["compare", base, head, "--json", "--history", tempDir("no-history")]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as CompareRow[];
}

/**
 * What a row must say whatever the machine measured: its ratio is HEAD's median over BASE's, its
 * interval is ordered, and its verdict follows from them (tests never assert which runtime is
 * faster: that is a timing outcome, measured by benchmarks/).
 */
function assertConsistent(row: CompareRow): void {
  const where = `${row.metric}: ${row.verdict}, ratio ${row.ratio}, ci95 ${row.ci95}, min effect ${row.min_effect}`;
  // A count of 0 (no major fault) has no ratio: the row says why instead.
  if (row.ratio === null) {
    assert.ok(row.reason && row.verdict !== "faster" && row.verdict !== "slower", where);
    return;
  }
  assert.ok(Math.abs(row.ratio! - row.head_median / row.base_median) < 1e-9 * row.ratio!, where);
  assert.ok(row.ci95![0] <= row.ci95![1], where);
  assert.ok(["faster", "slower", "no significant change", "inconclusive"].includes(row.verdict), where);
  if (row.verdict === "faster" || row.verdict === "slower") {
    assert.ok(row.ci95![0] > 1 || row.ci95![1] < 1, `${where}: a verdict needs an interval that excludes 1`);
    assert.ok(Math.abs(Math.log(row.ratio!)) > Math.log1p(row.min_effect), `${where}: a verdict needs a change beyond the minimum effect`);
    assert.equal(row.verdict === "faster", (row.ratio! < 1) === (row.better === "lower"), where);
  }
  if (row.verdict === "inconclusive") assert.ok(row.reason, `${where}: an inconclusive row says why`);
}

describe("compare on real startup runs", () => {
  it("compares two quick runs of the same node metric by metric, without history held to startup's run-to-run shift", async () => {
    const first = await runHello("same-a", ["node@22.11.0"], "quick");
    const second = await runHello("same-b", ["node@22.11.0"], "quick");
    const rows = await compareJson(first, second);
    // The timed metrics and the counts (docs/methodology.md, "Counts").
    assert.deepEqual(rows.map((r) => r.metric).sort(), Object.keys(readResults([first])[0]!.doc.metrics).sort());
    assert.ok(["cpu_s", "peak_rss_mb", "wall_ms", "syscalls", "minor_faults"].every((metric) => rows.some((r) => r.metric === metric)));
    for (const row of rows) {
      assert.deepEqual([row.base_version, row.head_version], ["22.11.0", "22.11.0"]);
      assert.equal(row.min_effect_source, "run-to-run shift");
      assertConsistent(row);
    }
  });

  it("pairs node's and bun's results of hello into one row per metric, BASE node and HEAD bun", async () => {
    const out = await runHello("node-bun", ["node@22.11.0", "bun@1.2.0"], "quick");
    const files = new Map(readResults([out]).map((r) => [r.doc.runtime.name, r.path]));
    const rows = await compareJson(files.get("node")!, files.get("bun")!);
    assert.deepEqual(rows.map((r) => r.metric).sort(), Object.keys(readResults([out])[0]!.doc.metrics).sort());
    for (const row of rows) {
      assert.deepEqual([row.suite, row.scenario, row.app], ["startup", "hello", null]);
      assert.deepEqual([row.base_runtime, row.base_version, row.head_runtime, row.head_version], ["node", "22.11.0", "bun", "1.2.0"]);
      assertConsistent(row);
    }
  });
});
