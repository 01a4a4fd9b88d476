import assert from "node:assert/strict";
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { resultPath } from "../../src/results/store.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { bench, runProcess, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

describe("scripts/bench validate", () => {
  it("on a fresh clone, passes its committed history; with no data/, checks every scenario and app manifest and exits 0", async () => {
    const clone = join(tempDir("validate-clone"), "repo");
    assert.equal((await runProcess("git", ["clone", "--quiet", "--shared", REPO_ROOT, clone])).code, 0);
    // The clone shares the installed harness dependencies instead of installing them again.
    symlinkSync(join(REPO_ROOT, "node_modules"), join(clone, "node_modules"));
    const history = await runProcess(join(clone, "scripts/bench"), ["validate"], { cwd: clone });
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /^[1-9]\d* scenario and [1-9]\d* app manifests valid; [1-9]\d* result files checked, 0 problems$/m);
    rmSync(join(clone, "data"), { recursive: true, force: true });
    const result = await runProcess(join(clone, "scripts/bench"), ["validate"], { cwd: clone });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^no data\/ folder: no results to check yet$/m);
    assert.match(result.stdout, /^[1-9]\d* scenario and [1-9]\d* app manifests valid; 0 result files checked, 0 problems$/m);
  });

  it("warns about a scenario folder with no manifest, naming it, and every command still runs", async () => {
    const suites = tempDir("stray-suites");
    cpSync(join(REPO_ROOT, "suites/startup/hello"), join(suites, "startup/hello"), { recursive: true });
    mkdirSync(join(suites, "startup/left-behind/node_modules"), { recursive: true });
    // Results would be held to these suites' manifests: an empty data folder.
    for (const command of [["list"], ["validate", tempDir("stray-data")]]) {
      const result = await bench(command, { RUNTIME_BENCH_SUITES_DIR: suites });
      assert.equal(result.code, 0, `${command[0]}: ${result.stderr}`);
      assert.match(result.stderr, /^runtime-bench: warning: .*startup\/left-behind: no scenario\.json, so not a scenario/m);
    }
  });

  it("holds results to their suite's metrics and units, finite numbers and a depth, naming each file and field", async () => {
    const data = tempDir("validate-limits");
    const wall = makeResult().metrics.wall_ms!;
    const write = (doc: ResultDocument, text = JSON.stringify(doc)) => {
      const path = resultPath(data, doc);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    };
    const unit = write(makeResult({ run: { id: "20261101T000000Z-000001" }, metrics: { wall_ms: { ...wall, unit: "<img src=x>" } } }));
    const name = write(makeResult({ run: { id: "20261101T000000Z-000002" }, metrics: { rps: wall } }));
    const infinite = makeResult({ run: { id: "20261101T000000Z-000003" } });
    const overflow = write(infinite, JSON.stringify(infinite).replace('"median":', '"median":1e999,"was":'));
    const nested = makeResult({ run: { id: "20261101T000000Z-000004" } });
    const deep = write(nested, JSON.stringify({ ...nested, details: {} }).replace('"details":{}', `"details":${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`));
    write(makeResult({ run: { id: "20261101T000000Z-000005" } }));
    const result = await bench(["validate", data]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, new RegExp(`${unit}: /metrics/wall_ms/unit: '<img src=x>', but the startup suite declares 'ms'`));
    assert.match(result.stderr, new RegExp(`${name}: /metrics/rps: the startup suite records no metric 'rps'`));
    assert.match(result.stderr, new RegExp(`${overflow}: /metrics/wall_ms/median: Infinity is not a finite number`));
    assert.match(result.stderr, new RegExp(`${deep}: /details(/a)+: nested deeper than 32 levels`));
    assert.match(result.stdout, /5 result files checked, 4 problems/);
  });

  it("names the app manifest and the field that is wrong, and exits 1 as its help says", async () => {
    const result = await bench(["validate"], { RUNTIME_BENCH_APPS_DIR: join(REPO_ROOT, "tests/fixtures/apps-malformed") });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /tests\/fixtures\/apps-malformed\/http\/bad-processes\/app\.json: \/processes: must be integer/);
    // Whether a database driver prepares its statements is declared, never defaulted.
    assert.match(result.stderr, /tests\/fixtures\/apps-malformed\/database\/no-prepared-statements\/app\.json: \/: must have required property 'prepared_statements'/);
    assert.match((await bench(["validate", "--help"])).stdout, /1 when a manifest or a result is not/);
  });

  it("takes suites/ or apps/ for what they are, manifests and their packages, not a pile of bad results", async () => {
    for (const path of ["suites", "apps/database"]) {
      const result = await bench(["validate", path]);
      assert.equal(result.code, 2, result.stdout);
      assert.equal(result.stderr, `runtime-bench: ${path}: scenario or app manifests (and their packages), not results: validate checks every manifest without being asked; give it result files or folders\n`);
    }
  });
});
