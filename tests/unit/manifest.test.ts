import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { startupRunner } from "../../src/runners/startup.ts";
import { loadScenario } from "../../src/scenarios/manifest.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { tempDir } from "../helpers/cli.ts";

const valid = {
  description: "A scenario used by the manifest tests.",
  version: 1,
  runtimes: { node: { min_version: "22.6.0", flags: ["--no-warnings"] }, deno: {} },
  metrics: { wall_ms: { unit: "ms", better: "lower" } },
  profiles: {
    quick: { trials: 2, warmup: 1, runs: 3, memory_runs: 1 },
    full: { trials: 5, warmup: 2, runs: 10, memory_runs: 3 },
  },
  startup: { entry: "main.js", expect_stdout: "ready" },
};

function scenarioWith(manifest: unknown, raw?: string): string {
  const dir = join(tempDir("manifest"), "startup", "sample");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "scenario.json"), raw ?? JSON.stringify(manifest));
  return dir;
}

function loadError(manifest: unknown, raw?: string): string {
  try {
    loadScenario(scenarioWith(manifest, raw), "startup", startupRunner.schemas);
  } catch (error) {
    assert.ok(error instanceof UserError, "a manifest problem is a UserError");
    return error.message;
  }
  assert.fail("the manifest was accepted");
}

describe("scenario manifests", () => {
  it("loads a valid manifest with its suite block", () => {
    const scenario = loadScenario(scenarioWith(valid), "startup", startupRunner.schemas);
    assert.equal(scenario.name, "sample");
    assert.deepEqual(scenario.suiteConfig, valid.startup);
    assert.equal(scenario.manifest.profiles.quick.trials, 2);
  });

  it("names the file when the JSON is malformed", () => {
    assert.match(loadError(null, "{ not json"), /sample\/scenario\.json: not valid JSON/);
  });

  it("names the field that is wrong", () => {
    assert.match(loadError({ ...valid, version: "one" }), /scenario\.json: \/version: must be integer/);
    assert.match(loadError({ ...valid, runtimes: { python: {} } }), /\/runtimes: .*property name/);
    assert.match(loadError({ ...valid, metrics: { wall_ms: { unit: "ms", better: "faster" } } }), /\/metrics\/wall_ms\/better: must be equal to one of the allowed values \(lower, higher\)/);
    assert.match(loadError({ ...valid, startup: { entry: "main.js" } }), /\/startup\/: must have required property 'expect_stdout'/);
    assert.match(loadError({ ...valid, profiles: { ...valid.profiles, quick: { trials: 2 } } }), /\/profiles\/quick\/: must have required property 'warmup'/);
    assert.match(loadError({ ...valid, descripton: "typo" }), /must NOT have additional properties 'descripton'/);
    const { startup: _omitted, ...withoutBlock } = valid;
    assert.match(loadError(withoutBlock), /\/startup: missing/);
  });

  it("accepts every scenario in the repository", () => {
    const all = selectScenarios({ suites: [], scenarios: [] });
    assert.ok(all.some((s) => s.scenario.suite === "startup" && s.scenario.name === "hello"));
  });

  it("rejects an unknown suite or scenario by name", () => {
    assert.throws(() => selectScenarios({ suites: ["nope"], scenarios: [] }), /unknown suite 'nope'/);
    assert.throws(() => selectScenarios({ suites: ["startup"], scenarios: ["nope"] }), /unknown scenario 'nope'/);
  });
});
