import assert from "node:assert/strict";
import { describe, it } from "node:test";
import semver from "semver";
import type { GithubMatrix, MatrixEntry } from "../../src/releases/matrix.ts";
import { loadBenchConfig, loadBenchRunners } from "../../src/releases/runners.ts";
import { SUITES } from "../../src/suites/index.ts";
import { RUNTIME_NAMES } from "../../src/runtimes/catalog.ts";
import { writeResult } from "../../src/results/store.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

/** What the release watch runs, against the registry npm is configured with. */
async function watch(data: string, ...extra: string[]): Promise<GithubMatrix> {
  const out = await bench(["releases", "--missing", "--json", "--data", data, ...extra]);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout) as GithubMatrix;
}

/** The results a benchmark job leaves for one matrix entry (status does not matter: any result counts). */
async function benchmark(data: string, entry: MatrixEntry, index: number): Promise<void> {
  await writeResult(
    data,
    makeResult({
      run: { runner: entry.runner, id: `20261201T000000Z-${index.toString(16).padStart(6, "0")}` },
      runtime: { name: entry.runtime, version: entry.version },
      environment: { arch: entry.arch },
    }),
  );
}

describe("the release watch against the real registry", () => {
  it("prints a valid GitHub matrix for an empty data folder, then nothing once those results are in", async () => {
    const data = tempDir("watch");
    const first = await watch(data);
    const runners = loadBenchRunners();
    assert.deepEqual(Object.keys(first), ["include"]);
    assert.ok(first.include.length > 0, "a first watch has releases to benchmark");
    assert.ok(first.include.length <= 256);
    for (const entry of first.include) {
      assert.deepEqual(Object.keys(entry).sort(), ["apps", "arch", "channel", "labels", "predecessor", "runner", "runtime", "scenarios", "suites", "version"]);
      assert.ok(RUNTIME_NAMES.includes(entry.runtime));
      assert.ok(semver.valid(entry.version) && semver.prerelease(entry.version) === null, `${entry.version} is a stable release`);
      const runner = runners.find((r) => r.name === entry.runner);
      assert.ok(runner, `${entry.runner} is in .github/bench-runners.json`);
      assert.deepEqual([entry.arch, entry.labels], [runner.arch, runner.labels]);
    }
    for (const runtime of RUNTIME_NAMES) {
      for (const runner of runners) {
        const versions = first.include.filter((e) => e.runtime === runtime && e.runner === runner.name).length;
        assert.ok(versions >= 1 && versions <= 3, `${runtime} on ${runner.name}: the newest release of at most 3 lines, got ${versions}`);
      }
    }

    await Promise.all(first.include.map((entry, index) => benchmark(data, entry, index)));
    assert.deepEqual(await watch(data), { include: [] }, "a second watch starts nothing new");
  });

  it("groups the list into benchmark.yml calls whose plans, with missing-only, are exactly the list", async () => {
    const data = tempDir("watch-calls");
    const listed = await watch(data);
    await benchmark(data, listed.include[0]!, 0);
    const expected = (await watch(data)).include;
    const calls = await bench(["releases", "--missing", "--calls", "--data", data]);
    assert.equal(calls.code, 0, calls.stderr);
    const planned: MatrixEntry[] = [];
    for (const call of (JSON.parse(calls.stdout) as { include: { runners: string; runtimes: string }[] }).include) {
      // What benchmark.yml's plan job runs for the call.
      const args = [...call.runtimes.split(" ").flatMap((spec) => ["--runtime", spec]), ...call.runners.split(" ").flatMap((name) => ["--runner", name])];
      planned.push(...(await watch(data, ...args)).include);
    }
    const key = (e: MatrixEntry) => `${e.runtime}@${e.version}@${e.runner}`;
    assert.deepEqual(planned.map(key).sort(), expected.map(key).sort());
  });

  it("narrows to one runtime and one runner, and lists exact versions whatever the window", async () => {
    const runner = loadBenchRunners()[0]!;
    const { include } = await watch(tempDir("watch-one"), "--runtime", "bun@1.2.0", "--runner", runner.name);
    assert.deepEqual(include, [{ runtime: "bun", version: "1.2.0", runner: runner.name, arch: runner.arch, labels: runner.labels, suites: SUITES.map((s) => s.name).join(" "), scenarios: "", apps: "", channel: "release", predecessor: "" }]);
  });

  it("narrows a backfill to a scenario: the newest release of the last backfill_lines lines, on every runner", async () => {
    const { include } = await watch(tempDir("watch-backfill"), "--backfill", "--runtime", "bun", "--scenario", "http/json", "--app", "native");
    const lines = loadBenchConfig().backfillLines;
    for (const runner of loadBenchRunners()) {
      const versions = include.filter((e) => e.runner === runner.name).map((e) => e.version);
      assert.equal(versions.length, lines, `bun on ${runner.name}: ${versions.join(", ")}`);
      assert.equal(new Set(versions.map((v) => v.split(".").slice(0, 2).join("."))).size, lines, "one release per line");
    }
    assert.ok(include.every((e) => e.suites === "http" && e.scenarios === "http/json" && e.apps === "native"));
  });

  it("answers bad input with one line and exit status 2", async () => {
    for (const args of [["--lines", "0"], ["--runner", "nowhere"], ["--runtime", "node@99.0.0"], ["--since", "soon"], ["--scenario", "json"], ["--backfill", "--lines", "2"]]) {
      const out = await bench(["releases", ...args]);
      assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
      assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
    }
  });
});
