import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { missingBackfillCells } from "../../src/releases/cells.ts";
import { toMatrix } from "../../src/releases/matrix.ts";
import type { RunnerWork } from "../../src/releases/pools.ts";
import type { BenchRunner } from "../../src/releases/runners.ts";
import type { PlannedBenchmark } from "../../src/releases/select.ts";

const X64: BenchRunner = { name: "bench-x64-1", arch: "x86_64", labels: ["self-hosted", "bench-x64-1"] };
const ARM: BenchRunner = { name: "bench-arm64-1", arch: "arm64", labels: ["self-hosted", "bench-arm64-1"] };
const covers = ["http/json", "http/crud", "startup/hello"];
const work = new Map<string, RunnerWork>([X64, ARM].map((r) => [r.name, { suites: ["http", "startup"], scenarios: covers, apps: [], covers }]));
const job = (runner: BenchRunner, version: string): PlannedBenchmark => ({ runtime: "node", version, published: new Date("2026-10-01T00:00:00Z"), runner, predecessor: null });

/** What data/ holds: `runner scenario` → node versions with a result. */
const DATA: Record<string, string[]> = {
  "bench-x64-1 http/json": ["24.1.0", "22.20.0"],
  "bench-x64-1 http/crud": ["24.1.0"],
  "bench-x64-1 startup/hello": ["24.1.0"],
  "bench-arm64-1 http/json": ["22.20.0"],
};
const measured = (runner: string, scenario: string) => new Set(DATA[`${runner} ${scenario}`] ?? []);

describe("a backfill of named scenarios, cell by cell", () => {
  it("drops the jobs whose every cell has a result and narrows the others to their missing scenarios", () => {
    const planned = [job(X64, "24.1.0"), job(X64, "22.20.0"), job(ARM, "24.1.0"), job(ARM, "22.20.0")];
    const cells = missingBackfillCells(planned, work, measured);
    assert.deepEqual(cells.map((p) => [p.runner.name, p.version, p.scenarios]), [
      ["bench-x64-1", "22.20.0", ["http/crud", "startup/hello"]],
      ["bench-arm64-1", "24.1.0", covers],
      ["bench-arm64-1", "22.20.0", ["http/crud", "startup/hello"]],
    ]);
    const matrix = toMatrix(cells, work);
    assert.deepEqual(matrix.include.map((e) => [e.runner, e.version, e.suites, e.scenarios]), [
      ["bench-x64-1", "22.20.0", "http startup", "http/crud startup/hello"],
      ["bench-arm64-1", "24.1.0", "http startup", "http/json http/crud startup/hello"],
      ["bench-arm64-1", "22.20.0", "http startup", "http/crud startup/hello"],
    ]);
  });

  it("plans nothing once every cell is measured, however often it is asked", () => {
    const everything = (runner: string, scenario: string) => new Set(runner && scenario ? ["24.1.0", "22.20.0"] : []);
    assert.deepEqual(missingBackfillCells([job(X64, "24.1.0"), job(ARM, "22.20.0")], work, everything), []);
  });
});
