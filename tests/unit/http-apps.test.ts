import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { appsDir, dependencyVersions, loadApps, selectApps } from "../../src/http/apps.ts";
import { httpRunner } from "../../src/runners/http.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";

const FIXTURES = join(REPO_ROOT, "tests/fixtures");

test("every app in apps/http has a valid manifest; native, hono, express and fastify run on all three runtimes", () => {
  const apps = loadApps(join(REPO_ROOT, "apps/http"));
  const names = apps.map((a) => a.name);
  for (const name of ["native", "hono", "express", "fastify", "elysia"]) assert.ok(names.includes(name), name);
  assert.ok(!names.includes("shared"), "a folder without app.json is shared code, not an app");
  for (const app of apps.filter((a) => a.name !== "elysia")) {
    assert.deepEqual(Object.keys(app.manifest.runtimes).sort(), ["bun", "deno", "node"], app.name);
  }
  for (const app of apps) assert.equal(app.manifest.processes, 1, `${app.name} is single-process`);
});

test("framework versions come from each app's lockfile, exactly as pinned", () => {
  const apps = loadApps(join(REPO_ROOT, "apps/http"));
  const express = apps.find((a) => a.name === "express")!;
  assert.match(dependencyVersions(express).express ?? "", /^5\.\d+\.\d+$/);
  const native = apps.find((a) => a.name === "native")!;
  assert.deepEqual(dependencyVersions(native), {}, "native has no dependencies");
});

test("a malformed app manifest is a UserError naming the file and the field", () => {
  const error = (() => {
    try {
      loadApps(join(FIXTURES, "http-apps-malformed"));
    } catch (caught) {
      return caught;
    }
    return null;
  })();
  assert.ok(error instanceof UserError);
  assert.match(error.message, /^tests\/fixtures\/http-apps-malformed\/bad-processes\/app\.json: \/processes: must be integer/);
  assert.ok(!error.message.includes("\n"), "one line");
});

test("an unknown app is a UserError that lists the apps", () => {
  const apps = loadApps(join(FIXTURES, "http-apps"));
  assert.throws(() => selectApps(apps, ["nope"]), (e: unknown) => e instanceof UserError && /unknown app 'nope': apps are broken-body, crashes-under-load, hangs-under-load, hello/.test(e.message));
  assert.deepEqual(selectApps(apps, ["hello"]).map((a) => a.name), ["hello"]);
  assert.equal(selectApps(apps, []).length, 4);
});

test("RUNTIME_BENCH_APPS_DIR moves the apps folder, so fixtures never join a default run", () => {
  assert.equal(appsDir({}), join(REPO_ROOT, "apps/http"));
  assert.equal(appsDir({ RUNTIME_BENCH_APPS_DIR: "tests/fixtures/http-apps" }), join(process.cwd(), "tests/fixtures/http-apps"));
});

test("every HTTP scenario declares the suite's metrics, and crud one load point per operation", () => {
  const scenarios = selectScenarios({ suites: ["http"], scenarios: [] });
  assert.deepEqual(scenarios.map((s) => s.scenario.name), ["compute", "crud", "json", "json-large", "plaintext", "static"]);
  for (const { scenario } of scenarios) {
    assert.deepEqual(Object.keys(scenario.manifest.metrics).sort(), [
      "client_cpu_s", "latency_p50_ms", "latency_p90_ms", "latency_p999_ms", "latency_p99_ms", "rps", "server_cpu_s", "server_peak_rss_mb", "success_rate",
    ]);
    assert.equal(scenario.manifest.metrics.rps?.better, "higher");
  }
  const crud = scenarios.find((s) => s.scenario.name === "crud")!.scenario;
  const runtime = { identity: { name: "node" } } as Parameters<typeof httpRunner.subjects>[1];
  const context = { profile: "quick" as const, profileParams: crud.manifest.profiles.quick, workDir: "/tmp", log: () => {}, apps: ["native"] };
  const subjects = httpRunner.subjects(crud, runtime, context);
  assert.deepEqual(subjects.map((s) => s.params.operation), ["create", "get-all", "get-one", "update", "delete"]);
  assert.deepEqual(subjects[0]!.params, { connections: 10, keepalive: true, rate: 500, operation: "create" });
  assert.deepEqual(subjects[0]!.flags, []);
});
