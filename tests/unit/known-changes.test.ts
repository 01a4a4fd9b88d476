import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import semver from "semver";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { KNOWN_CHANGES_FILE, cellRow, loadKnownChanges, outcomeOf, runArgs, standingRow, tally, type KnownChange } from "../../benchmarks/lib/known-changes.ts";
import type { CompareRow, Verdict } from "../../src/compare/types.ts";
import { UserError } from "../../src/core/errors.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { describeDocumented, documentedChanges } from "../../src/core/known-changes.ts";

const corpus = loadKnownChanges();
const changes = corpus.filter((entry) => entry.kind === "change");
const controls = corpus.filter((entry) => entry.kind === "control");

describe("the corpus of documented changes (docs/known-changes.json)", () => {
  it("holds at least 15 documented changes and 3 controls, each with its source", () => {
    assert.ok(changes.length >= 15, `${changes.length} changes`);
    assert.ok(controls.length >= 3, `${controls.length} controls`);
    for (const entry of corpus) {
      const { pull, issue, release_notes } = entry.documented.source;
      assert.ok(pull ?? issue ?? release_notes, `${entry.id} names no pull request, issue or release notes`);
    }
  });

  it("covers all seven suites and the three runtimes with documented changes", () => {
    const suites = new Set(changes.map((entry) => entry.cell.suite));
    assert.deepEqual([...suites].sort(), ["database", "fileio", "http", "install", "startup", "websocket", "workers"]);
    assert.deepEqual([...new Set(changes.map((entry) => entry.runtime))].sort(), ["bun", "deno", "node"]);
  });

  it("spans sizes from about 5 % to at most 10×, at least a third of them below 20 %", () => {
    const factors = changes.map((entry) => entry.documented.factor!);
    assert.ok(Math.min(...factors) <= 1.06, `the smallest documented change is ×${Math.min(...factors)}`);
    assert.ok(Math.max(...factors) >= 3 && Math.max(...factors) <= 10, `the largest documented change is ×${Math.max(...factors)}`);
    const small = factors.filter((factor) => factor < 1.2).length;
    assert.ok(3 * small >= factors.length, `${small} of ${factors.length} below 20 %`);
  });

  it("names every entry once; Bun's pairs are releases its package carries (1.0 on)", () => {
    assert.equal(new Set(corpus.map((entry) => entry.id)).size, corpus.length);
    for (const entry of corpus.filter((e) => e.runtime === "bun")) assert.ok(semver.gte(entry.base, "1.0.0"), `${entry.id}: bun ${entry.base}`);
  });
});

describe("loading a corpus", () => {
  const broken = (edit: (entry: Record<string, unknown>) => void): string => {
    const raw = JSON.parse(readFileSync(join(REPO_ROOT, KNOWN_CHANGES_FILE), "utf8")) as { entries: Record<string, unknown>[] };
    edit(raw.entries[0]!);
    const file = join(tempDir("known-changes"), "corpus.json");
    writeFileSync(file, JSON.stringify(raw));
    return file;
  };
  const rejects = (file: string, pattern: RegExp) => assert.throws(() => loadKnownChanges(file), (error: unknown) => error instanceof UserError && pattern.test(error.message));

  it("rejects releases out of order, a Deno release without a package, a cell the harness lacks, a change without its size", () => {
    rejects(
      broken((entry) => Object.assign(entry, { base: "99.0.0" })),
      /base 99\.0\.0 is not older than head/,
    );
    rejects(
      broken((entry) => Object.assign(entry, { runtime: "deno", base: "1.45.0", head: "1.46.0", cell: { suite: "startup", scenario: "hello", metric: "wall_ms" } })),
      /Deno's packages start at 1\.46\.0/,
    );
    rejects(
      broken((entry) => Object.assign(entry, { cell: { suite: "http", scenario: "json", app: "no-such-app", metric: "rps" } })),
      /no app 'no-such-app'/,
    );
    rejects(
      broken((entry) => Object.assign(entry, { cell: { suite: "http", scenario: "json", metric: "rps" } })),
      /has apps: name one/,
    );
    rejects(
      broken((entry) => delete (entry.documented as Record<string, unknown>).factor),
      /factor/,
    );
  });
});

const entry = changes.find((e) => e.id === "deno-worker-message-passing")!;
const control = controls[0]!;
function row(verdict: Verdict, params: CompareRow["params"], of: KnownChange = entry): CompareRow {
  return {
    suite: of.cell.suite,
    scenario: of.cell.scenario,
    scenario_version: 1,
    app: of.cell.app ?? null,
    params,
    metric: of.cell.metric,
    unit: "µs",
    better: "lower",
    base_runtime: of.runtime,
    base_version: of.base,
    head_runtime: of.runtime,
    head_version: of.head,
    base_runner: "local-vm",
    head_runner: "local-vm",
    base_runs: 1,
    head_runs: 1,
    base_median: 100,
    head_median: 80,
    ratio: 0.8,
    ci95: [0.7, 0.9],
    noise_floor: null,
    min_effect: 0.01,
    min_effect_source: "paired",
    rule: "sequential",
    verdict,
  };
}

describe("judging a replay", () => {
  it("finds the cell's row by its load point and calls the outcome against the documented direction", () => {
    const rows = [row("slower", { batch: 1, payload: "string" }), row("faster", { batch: 1, payload: "number" })];
    assert.equal(outcomeOf(entry, cellRow(entry, "quick", rows)), "detected");
    assert.equal(outcomeOf(entry, cellRow(entry, "quick", [row("no significant change", { batch: 1, payload: "number" })])), "missed");
    assert.equal(outcomeOf(entry, cellRow(entry, "quick", [row("inconclusive", { batch: 1, payload: "number" })])), "missed");
    assert.equal(outcomeOf(entry, cellRow(entry, "quick", [row("slower", { batch: 1, payload: "number" })])), "reversed");
    assert.equal(outcomeOf(entry, cellRow(entry, "quick", [row("faster", { batch: 10, payload: "number" })])), "not measured");
    assert.equal(outcomeOf(control, row("inconclusive", {}, control)), "held");
    assert.equal(outcomeOf(control, row("faster", {}, control)), "alarmed");
    assert.equal(outcomeOf(control, row("not comparable", {}, control)), "not measured");
  });

  it("refuses a cell whose params match several load points", () => {
    const loose = { ...entry, cell: { ...entry.cell, params: { batch: 1 } } };
    assert.throws(() => cellRow(loose, "quick", [row("faster", { batch: 1, payload: "number" }), row("faster", { batch: 1, payload: "string" })]), /2 load points match/);
  });

  it("measures both releases in one run under the labels compare reads, and tallies outcomes per kind", () => {
    const args = runArgs(entry, "full", "/tmp/out");
    assert.deepEqual(args.slice(args.indexOf("--runtime"), args.indexOf("--runtime") + 4), ["--runtime", "base=deno@2.7.13", "--runtime", "head=deno@2.7.14"]);
    assert.equal(args[args.indexOf("--profile") + 1], "full");
    const counts = tally([
      { entry, profile: "quick", outcome: "detected" },
      { entry, profile: "quick", outcome: "missed" },
      { entry: control, profile: "quick", outcome: "alarmed" },
      { entry: control, profile: "quick", outcome: "not measured" },
    ]);
    assert.deepEqual(counts, { changes: 2, detected: 1, controls: 2, alarmed: 1, unmeasured: 1 });
  });
});

describe("a replay recorded before", () => {
  const recorded = { profile: "full", entry: entry.id, pair: "deno 2.7.13 → 2.7.14", cell: "workers/round-trip/web-worker rtt_us", outcome: "missed" };

  it("stands for its entry in its profile while the entry names the same pair and cell", () => {
    assert.equal(standingRow([recorded], entry, "full"), recorded);
    assert.equal(standingRow([recorded], entry, "quick"), undefined);
    assert.equal(standingRow([recorded], control, "full"), undefined);
  });

  it("no longer stands once the entry moved to another cell, metric or pair", () => {
    assert.equal(standingRow([recorded], { ...entry, cell: { ...entry.cell, scenario: "throughput" } }, "full"), undefined);
    assert.equal(standingRow([recorded], { ...entry, cell: { ...entry.cell, metric: "rtt_p99_us" } }, "full"), undefined);
    assert.equal(standingRow([recorded], { ...entry, head: "2.7.15" }, "full"), undefined);
  });
});

describe("the source beside the verdict", () => {
  const readText = { runtime: "node", suite: "startup", scenario: "read-text", app: null, params: {}, metric: "wall_ms" };

  it("names the documented change a step between two releases takes in, with its source", () => {
    const [named, ...rest] = documentedChanges({ ...readText, from: "20.4.0", to: "20.5.0" });
    assert.equal(rest.length, 0);
    assert.deepEqual([named!.id, named!.direction, named!.source, named!.url], ["node-readfilesync-utf8", "faster", "nodejs/node#48658", "https://nodejs.org/en/blog/release/v20.5.0"]);
    assert.match(describeDocumented(named!), /^nodejs\/node#48658: faster ×1\.726$/);
    assert.equal(documentedChanges({ ...readText, from: "20.0.0", to: "22.0.0" })[0]?.id, "node-readfilesync-utf8", "a step of a coarse link takes in every release between");
  });

  it("names nothing for another cell, runtime, metric or range, a step backwards, a canary, or a control", () => {
    for (const step of [
      { ...readText, scenario: "hello", from: "20.4.0", to: "20.5.0" },
      { ...readText, runtime: "bun", from: "20.4.0", to: "20.5.0" },
      { ...readText, metric: "peak_rss_mb", from: "20.4.0", to: "20.5.0" },
      { ...readText, from: "20.5.0", to: "20.6.0" },
      { ...readText, from: "20.5.0", to: "20.4.0" },
      { ...readText, from: "20.4.0", to: "20.5.0-nightly20230701abc" },
      { ...readText, scenario: "hello", from: "22.10.0", to: "22.11.0" },
    ]) {
      assert.deepEqual(documentedChanges(step), [], JSON.stringify(step));
    }
  });

  it("holds a load point the entry names: a cell at another point is not the documented one", () => {
    const worker = { runtime: "deno", suite: "workers", scenario: "round-trip", app: "web-worker", metric: "rtt_us", from: "2.7.13", to: "2.7.14" };
    assert.equal(documentedChanges({ ...worker, params: { batch: 1, payload: "number" } }).length, 1);
    assert.equal(documentedChanges({ ...worker, params: { batch: 10, payload: "number" } }).length, 0);
  });
});
