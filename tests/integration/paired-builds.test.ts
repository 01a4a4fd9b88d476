import assert from "node:assert/strict";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { CompareRow } from "../../src/compare/types.ts";
import { readResults } from "../../src/results/store.ts";
import { provision } from "../../src/runtimes/provision.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";

/** A run of startup/hello on node 22.11.0 and the same node behind a wrapper script (another build, by its bytes), into a fresh folder. */
async function twoBuildsOfHello(name: string): Promise<{ out: string; args: string[] }> {
  const node = (await provision("node@22.11.0")).binary;
  const dir = tempDir(name);
  const wrapper = join(dir, "node-wrapped");
  writeFileSync(wrapper, `#!/bin/sh\nexec ${node} "$@"\n`, { mode: 0o755 });
  const out = join(dir, "out");
  return { out, args: ["run", "--suite", "startup", "--scenario", "hello", "--runtime", "base=node@22.11.0", "--runtime", `head=node@path:${wrapper}`, "--out", out] };
}

describe("two builds of node 22.11.0 side by side", () => {
  it("refuses the same binary under two paths, runs two builds, writes and validates both results, and compares them paired", async () => {
    const node = (await provision("node@22.11.0")).binary;
    const dir = tempDir("paired-builds");
    const copy = join(dir, "node-copy");
    copyFileSync(node, copy);
    const out = join(dir, "out");
    const refused = await bench(["run", "--suite", "startup", "--scenario", "hello", "--runtime", "node@22.11.0", "--runtime", `node@path:${copy}`, "--out", out]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /are the same binary/);
    // One line of error (after the note naming the first runtime), no stack, and nothing measured.
    assert.equal(refused.stderr.split("\n").filter((line) => line.startsWith("runtime-bench:")).length, 1, refused.stderr);
    assert.doesNotMatch(refused.stderr, /\n\s+at /);
    assert.equal(existsSync(out), false);

    // A second build: the same node behind a wrapper script, so its bytes (and sha256) differ.
    const wrapper = join(dir, "node-wrapped");
    writeFileSync(wrapper, `#!/bin/sh\nexec ${node} "$@"\n`, { mode: 0o755 });
    // No adaptive trials: each build at its profile's 3 trials, not up to 10; the adaptive rule's reach
    // is the workers test's below, and compare's pairs are checked here at whatever count was run.
    const run = await bench(["run", "--suite", "startup", "--scenario", "hello", "--runtime", "base=node@22.11.0", "--runtime", `head=node@path:${wrapper}`, "--trial-budget", "0", "--out", out]);
    assert.equal(run.code, 0, run.stderr);
    const results = readResults([out]);
    assert.deepEqual(results.map((r) => r.doc.label).sort(), ["base", "head"]);
    assert.ok(results.every((r) => r.doc.runtime.version === "22.11.0" && r.doc.sequential !== undefined));
    const validated = await bench(["validate", out]);
    assert.equal(validated.code, 0, validated.stderr);

    const runFolder = join(out, results[0]!.doc.run.runner, results[0]!.doc.run.id);
    const compared = await bench(["compare", runFolder, "--base", "base", "--head", "head", "--json"]);
    assert.equal(compared.code, 0, compared.stderr);
    const rows = JSON.parse(compared.stdout) as CompareRow[];
    // A binary given by path has no package: every metric both record (docs/methodology.md, "Counts").
    const both = Object.keys(results[0]!.doc.metrics).filter((metric) => metric in results[1]!.doc.metrics);
    assert.deepEqual(rows.map((r) => r.metric).sort(), both.sort(), "a paired row for every metric both record");
    const head = results.find((r) => r.doc.label === "head")!.doc;
    assert.equal((head.details?.counts_unavailable as Record<string, string>).package_mb, "a binary given by path has no package");
    assert.ok(rows.some((r) => r.metric === "wall_ms"));
    for (const row of rows) {
      assert.deepEqual([row.base_label, row.head_label, row.rule, row.alpha], ["base", "head", "single look", 0.05], "two labelled builds: a one-off question");
      // A metric read in ticks (CPU time) is held to one tick where that is more than the paired minimum.
      const summary = results[0]!.doc.metrics[row.metric]!;
      assert.equal(row.min_effect_source, row.min_effect > 0.01 && summary.resolution !== undefined && !summary.exact ? "resolution" : "paired", row.metric);
      // A count has trials of its own: its counting pass's runs.
      assert.equal(row.pairs, results[0]!.doc.metrics[row.metric]!.trial_samples!.length);
    }
    const sequential = await bench(["compare", runFolder, "--base", "base", "--head", "head", "--rule", "sequential", "--json"]);
    assert.equal(sequential.code, 0, sequential.stderr);
    for (const row of JSON.parse(sequential.stdout) as CompareRow[]) {
      assert.equal(row.rule, "sequential");
      assert.ok(row.alpha! > 0 && row.alpha! <= 0.0008, "the release job's rule: a share of 0.08 %");
    }
  });

  it("in the workers quick profile, whose one trial gives no pair, reach the pairs a verdict needs and get one", async () => {
    const node = (await provision("node@22.11.0")).binary;
    const dir = tempDir("paired-workers");
    // The head build spins 2 ms before every message it posts to a worker: a round trip several times slower.
    const slow = join(dir, "slow-post.cjs");
    writeFileSync(slow, 'const { Worker } = require("node:worker_threads");\nconst post = Worker.prototype.postMessage;\nWorker.prototype.postMessage = function (...args) {\n  const end = performance.now() + 2;\n  while (performance.now() < end);\n  return post.apply(this, args);\n};\n');
    const wrapper = join(dir, "node-slow");
    writeFileSync(wrapper, `#!/bin/sh\nexec ${node} --require ${slow} "$@"\n`, { mode: 0o755 });
    const out = join(dir, "out");
    const run = await bench(
      ["run", "--suite", "workers", "--scenario", "round-trip", "--app", "worker-threads", "--runtime", "base=node@22.11.0", "--runtime", `head=node@path:${wrapper}`, "--profile", "quick", "--out", out],
      { RUNTIME_BENCH_SUITES_DIR: join(REPO_ROOT, "tests/fixtures/suites") },
    );
    assert.equal(run.code, 0, run.stderr);
    const results = readResults([out]);
    assert.equal(results.length, 2);
    for (const { doc } of results) assert.ok(doc.run.trials >= 2 && doc.sequential !== undefined, `${doc.run.trials} trials, though the profile asks for one`);
    const runFolder = join(out, results[0]!.doc.run.runner, results[0]!.doc.run.id);
    const compared = await bench(["compare", runFolder, "--base", "base", "--head", "head", "--json"]);
    assert.equal(compared.code, 0, compared.stderr);
    const rtt = (JSON.parse(compared.stdout) as CompareRow[]).find((row) => row.metric === "rtt_us")!;
    assert.equal(rtt.verdict, "slower", JSON.stringify(rtt));
    assert.ok(rtt.pairs! >= 2 && rtt.ratio! > 2, JSON.stringify(rtt));
  });

  it("a time limit the plan's estimate already fills keeps every cell at its profile's minimum", async () => {
    const { out, args } = await twoBuildsOfHello("paired-time-limit");
    const wrong = await bench([...args, "--time-limit", "soon"]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--time-limit must be a duration such as 6h/);
    assert.equal(existsSync(out), false);

    const run = await bench([...args, "--time-limit", "1s"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /time limit 1 s: the plan's estimate at each profile's minimum trials is already [^,]+, so no cell gets more than its minimum/);
    const results = readResults([out]);
    assert.equal(results.length, 2);
    for (const { doc } of results) {
      assert.equal(doc.run.trials, 3, "startup's quick minimum");
      // Futility may rule first at that look (an A/A pair's narrow interval that cannot reach a verdict by the last look); either way no later look is taken.
      assert.ok(["budget", "futile"].includes(doc.sequential?.stopped ?? ""), `stopped: ${doc.sequential?.stopped}, an A/A pair undecided after 3 trials stops for its budget or as futile`);
    }
  });

  it("--trials sets each scenario's minimum, and the results' reproduce line says so", async () => {
    const built = await twoBuildsOfHello("paired-trials");
    const { out } = built;
    const args = [...built.args, "--time-limit", "1s"];
    const wrong = await bench([...args, "--trials", "0"]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--trials must be a whole number of trials from 1 to 100, not '0'/);
    assert.equal(existsSync(out), false);

    const run = await bench([...args, "--trials", "5"]);
    assert.equal(run.code, 0, run.stderr);
    const results = readResults([out]);
    assert.equal(results.length, 2);
    for (const { doc } of results) {
      assert.equal(doc.run.trials, 5, "the minimum given, not quick's 3: the time limit leaves no more");
      assert.match(doc.reproduce, /--profile quick --trials 5$/);
    }
  });
});
