import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { loadScenario, scenarioDirs, strayFolders } from "../../src/scenarios/manifest.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { startupSuite } from "../../src/suites/startup/index.ts";
import { narrowedAway, resolveScenarios } from "../../src/suites/resolve.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

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
    resolveScenarios([loadScenario(scenarioWith(manifest, raw), "startup")], "quick");
  } catch (error) {
    assert.ok(error instanceof UserError, "a manifest problem is a UserError");
    return error.message;
  }
  assert.fail("the manifest was accepted");
}

describe("scenario manifests", () => {
  it("loads a valid manifest with its suite block", () => {
    const scenario = loadScenario(scenarioWith(valid), "startup");
    assert.equal(scenario.name, "sample");
    assert.deepEqual(scenario.suiteConfig, valid.startup);
    const [resolved] = resolveScenarios([scenario], "quick");
    assert.deepEqual(resolved!.scenario.profileParams, valid.profiles.quick);
    assert.deepEqual(resolved!.scenario.config, valid.startup);
  });

  it("takes metrics and profiles from the suite, the manifest overriding key by key", () => {
    const { metrics: _m, profiles: _p, ...bare } = valid;
    const [plain] = resolveScenarios([loadScenario(scenarioWith(bare), "startup")], "full");
    assert.deepEqual(plain!.scenario.metrics, startupSuite.metrics);
    assert.deepEqual(plain!.scenario.profileParams, startupSuite.profiles.full);
    const [tuned] = resolveScenarios([loadScenario(scenarioWith({ ...bare, profiles: { full: { runs: 50 } } }), "startup")], "full");
    assert.deepEqual(tuned!.scenario.profileParams, { ...startupSuite.profiles.full, runs: 50 });
  });

  it("narrows and overrides the suite's metrics, and says which it leaves out", () => {
    const scenario = loadScenario(scenarioWith({ ...valid, metrics: { wall_ms: { unit: "s" } } }), "startup");
    const [resolved] = resolveScenarios([scenario], "quick");
    assert.deepEqual(resolved!.scenario.metrics, { wall_ms: { unit: "s", better: "lower" } });
    assert.deepEqual(narrowedAway(startupSuite, scenario), Object.keys(startupSuite.metrics).filter((name) => name !== "wall_ms"));
    assert.match(loadError({ ...valid, metrics: { rps: {} } }), /\/metrics: rps not recorded by the startup suite \(it records wall_ms, peak_rss_mb, cpu_s, syscalls, /);
  });

  it("names the file when the JSON is malformed", () => {
    assert.match(loadError(null, "{ not json"), /sample\/scenario\.json: not valid JSON/);
  });

  it("names the field that is wrong", () => {
    assert.match(loadError({ ...valid, version: "one" }), /scenario\.json: \/version: must be integer/);
    assert.match(loadError({ ...valid, runtimes: { python: {} } }), /\/runtimes: .*property name/);
    assert.match(loadError({ ...valid, metrics: { wall_ms: { unit: "ms", better: "faster" } } }), /\/metrics\/wall_ms\/better: must be equal to one of the allowed values \(lower, higher\)/);
    assert.match(loadError({ ...valid, startup: { entry: "main.js" } }), /\/startup\/: must have required property 'expect_stdout'/);
    assert.match(loadError({ ...valid, profiles: { ...valid.profiles, quick: { trials: 2, warmup: "no" } } }), /\/profiles\/quick\/warmup: must be integer/);
    assert.match(loadError({ ...valid, descripton: "typo" }), /must NOT have additional properties 'descripton'/);
    assert.match(loadError({ ...valid, headline: { state: ["clean"] } }), /\/headline\/state: must be string,number,boolean/);
    const { startup: _omitted, ...withoutBlock } = valid;
    assert.match(loadError(withoutBlock), /\/startup: missing/);
  });

  it("accepts every scenario in the repository", () => {
    const all = selectScenarios({ suites: [], scenarios: [] });
    assert.ok(all.some((s) => s.suite === "startup" && s.name === "hello"));
    assert.equal(resolveScenarios(all, "full").length, all.length, "every manifest resolves against its suite");
  });

  it("chooses a suite named twice once", () => {
    const once = selectScenarios({ suites: ["startup"], scenarios: [] }).map((s) => s.name);
    assert.deepEqual(selectScenarios({ suites: ["startup", "startup"], scenarios: [] }).map((s) => s.name), once);
  });

  it("rejects an unknown suite or scenario by name", () => {
    assert.throws(() => selectScenarios({ suites: ["nope"], scenarios: [] }), /unknown suite 'nope'/);
    assert.throws(() => selectScenarios({ suites: ["startup"], scenarios: ["nope"] }), /unknown scenario 'nope'/);
  });
});

describe("folders of suites/", () => {
  it("takes only folders with a manifest for scenarios, and names the others for a warning", () => {
    const suites = tempDir("stray");
    const real = join(suites, "startup", "hello");
    mkdirSync(real, { recursive: true });
    writeFileSync(join(real, "scenario.json"), JSON.stringify(valid));
    mkdirSync(join(suites, "startup", "old-branch", "node_modules"), { recursive: true });
    assert.deepEqual(scenarioDirs("startup", suites), [real]);
    const warnings = strayFolders(suites);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /startup\/old-branch: no scenario\.json, so not a scenario/);
  });
});
