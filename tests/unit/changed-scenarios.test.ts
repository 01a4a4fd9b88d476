import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT, SUITES_DIR } from "../../src/core/paths.ts";

/** What scenario-pr.yml passes to `scripts/bench run` for a pull request's changed paths. */
function selection(...changed: string[]): string[] {
  const result = spawnSync(join(REPO_ROOT, "scripts/ci/changed-scenarios"), { input: changed.map((p) => `${p}\n`).join(""), encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split("\n").filter(Boolean);
}

const startupScenarios = readdirSync(join(SUITES_DIR, "startup"))
  .filter((name) => existsSync(join(SUITES_DIR, "startup", name, "scenario.json")))
  .sort()
  .flatMap((name) => ["--scenario", `startup/${name}`]);

describe("the scenarios a pull request touches", () => {
  it("a file inside a scenario folder selects that scenario, once", () => {
    assert.deepEqual(selection("suites/startup/hello/scenario.json", "suites/startup/hello/hello.js"), ["--scenario", "startup/hello"]);
  });

  it("a suite's own file or one of its apps selects every scenario of the suite", () => {
    assert.ok(startupScenarios.length > 2);
    assert.deepEqual(selection("suites/startup/README.md"), startupScenarios);
    assert.deepEqual(selection("apps/startup/some-app/server.js", "suites/startup/hello/hello.js"), startupScenarios);
  });

  it("a change to one app runs every scenario of its suite with that app alone", () => {
    const http = readdirSync(join(SUITES_DIR, "http")).filter((name) => existsSync(join(SUITES_DIR, "http", name, "scenario.json"))).sort();
    const scenarios = http.flatMap((name) => ["--scenario", `http/${name}`]);
    assert.deepEqual(selection("apps/http/hono/app.js", "apps/http/hono/package.json"), [...scenarios, "--app", "hono"]);
    assert.deepEqual(selection("apps/http/hono/app.js", "apps/http/express/server.mjs"), [...scenarios, "--app", "express", "--app", "hono"]);
    assert.deepEqual(selection("apps/http/hono/app.js", "suites/startup/hello/main.js"), [...scenarios, "--scenario", "startup/hello", "--app", "hono"], "a suite without apps runs as it is");
  });

  it("a scenario or shared app code of the same suite runs every app", () => {
    assert.ok(!selection("apps/http/hono/app.js", "suites/http/json/scenario.json").includes("--app"));
    assert.ok(!selection("apps/http/shared/workload.js").includes("--app"));
  });

  it("has a --help", () => {
    const result = spawnSync(join(REPO_ROOT, "scripts/ci/changed-scenarios"), ["--help"], { encoding: "utf8" });
    assert.equal(result.status, 0);
    assert.match(result.stdout, /^usage: git diff --name-only BASE\.\.\.HEAD \| scripts\/ci\/changed-scenarios/);
  });

  it("deleted scenarios, unknown suites and other paths select nothing", () => {
    assert.deepEqual(selection("suites/startup/removed-scenario/scenario.json", "suites/no-such-suite/x/scenario.json", "src/cli/main.ts", "apps/README.md", "suites"), []);
  });
});
