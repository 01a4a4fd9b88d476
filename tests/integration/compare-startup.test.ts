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

describe("compare on real startup runs", () => {
  it("gives no verdict between two quick runs of the same node, and says why where the interval alone would", async () => {
    const first = await runHello("same-a", ["node@22.11.0"], "quick");
    const second = await runHello("same-b", ["node@22.11.0"], "quick");
    const rows = await compareJson(first, second);
    assert.deepEqual(rows.map((r) => r.metric).sort(), ["peak_rss_mb", "wall_ms"]);
    for (const row of rows) {
      assert.ok(row.verdict === "no significant change" || row.verdict === "inconclusive", `${row.metric}: ${row.verdict}, ratio ${row.ratio}, ci95 ${row.ci95}`);
      if (row.verdict === "inconclusive") assert.match(row.reason!, /within the .* run-to-run shift of startup/);
      assert.deepEqual([row.base_version, row.head_version], ["22.11.0", "22.11.0"]);
    }
  });

  // Ten interleaved trials: with the quick profile's three, a machine shared by several jobs can
  // make one trial of either runtime 2× slower, and three trials then cannot exclude 1 honestly.
  it("finds bun faster than node at starting hello, with an interval that excludes 1", async () => {
    const out = await runHello("node-bun", ["node@22.11.0", "bun@1.2.0"], "full");
    const files = new Map(readResults([out]).map((r) => [r.doc.runtime.name, r.path]));
    const rows = await compareJson(files.get("node")!, files.get("bun")!);
    const wall = rows.find((r) => r.metric === "wall_ms")!;
    assert.deepEqual([wall.suite, wall.scenario, wall.app], ["startup", "hello", null]);
    assert.deepEqual([wall.base_runtime, wall.base_version, wall.head_runtime, wall.head_version], ["node", "22.11.0", "bun", "1.2.0"]);
    assert.equal(wall.verdict, "faster", `ratio ${wall.ratio}, ci95 ${wall.ci95}`);
    assert.ok(wall.ci95![1] < 1, `ci95 ${wall.ci95} excludes 1`);
  });
});
