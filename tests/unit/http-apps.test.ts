import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { appsDir, dependencyVersions, loadApps, selectApps, unsupportedApp } from "../../src/apps/manifest.ts";
import type { IdentifiedRuntime } from "../../src/runtimes/identify.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { httpSuite, type HttpConfig, type HttpProfile } from "../../src/suites/http/index.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";
import type { SuiteScenario } from "../../src/suites/suite.ts";

const FIXTURES = join(REPO_ROOT, "tests/fixtures");

test("every app in apps/http has a valid manifest; native, hono, express and fastify run on all three runtimes", () => {
  const apps = loadApps<{ processes: number }>("http");
  const names = apps.map((a) => a.name);
  for (const name of ["native", "hono", "express", "fastify", "elysia"]) assert.ok(names.includes(name), name);
  assert.ok(!names.includes("shared"), "a folder without app.json is shared code, not an app");
  for (const app of apps.filter((a) => !a.name.startsWith("elysia"))) {
    assert.deepEqual(Object.keys(app.manifest.runtimes).sort(), ["bun", "deno", "node"], app.name);
  }
  assert.deepEqual(Object.keys(apps.find((a) => a.name === "elysia-bunsql")!.manifest.runtimes), ["bun"]);
  for (const app of apps) assert.equal(app.manifest.processes, 1, `${app.name} is single-process`);
});

test("framework versions come from each app's lockfile, exactly as pinned", () => {
  const apps = loadApps("http");
  const express = apps.find((a) => a.name === "express")!;
  assert.match(dependencyVersions(express).express ?? "", /^5\.\d+\.\d+$/);
  const native = apps.find((a) => a.name === "native")!;
  assert.deepEqual(dependencyVersions(native), {}, "native has no dependencies");
});

test("a malformed app manifest is a UserError naming the file and the field", () => {
  const error = (() => {
    try {
      loadApps("http", join(FIXTURES, "apps-malformed/http"));
    } catch (caught) {
      return caught;
    }
    return null;
  })();
  assert.ok(error instanceof UserError);
  assert.match(error.message, /^tests\/fixtures\/apps-malformed\/http\/bad-processes\/app\.json: \/processes: must be integer/);
  assert.ok(!error.message.includes("\n"), "one line");
});

test("--app keeps the named apps of a suite, and all of them when it names none", () => {
  const apps = loadApps("http", join(FIXTURES, "apps/http"));
  assert.deepEqual(selectApps(apps, ["hello", "another-suites-app"]).map((a) => a.name), ["hello"]);
  assert.equal(selectApps(apps, []).length, 5);
  assert.deepEqual(httpSuite.options?.app?.values?.(), loadApps("http").map((a) => a.name), "run rejects an app no chosen suite has");
});

test("RUNTIME_BENCH_APPS_DIR moves the apps folder, so fixtures never join a default run", () => {
  assert.equal(appsDir("http", {}), join(REPO_ROOT, "apps/http"));
  assert.equal(appsDir("http", { RUNTIME_BENCH_APPS_DIR: "tests/fixtures/apps" }), join(process.cwd(), "tests/fixtures/apps/http"));
});

test("HTTP scenarios take the suite's metrics, and crud gives one load point per operation", () => {
  const scenarios = resolveScenarios(selectScenarios({ suites: ["http"], scenarios: [] }), "quick");
  assert.deepEqual(scenarios.map((s) => s.scenario.name), ["api-db", "compute", "crud", "fortunes", "json", "json-large", "plaintext", "ssr", "static"]);
  for (const { scenario } of scenarios.filter((s) => s.scenario.name !== "ssr")) {
    assert.deepEqual(Object.keys(scenario.metrics).sort(), [
      "client_cpu_s", "database_cpu_s", "first_second_rps", "latency_p50_ms", "latency_p90_ms", "latency_p999_ms", "latency_p99_ms", "max_sustained_rps", "reach_90_requests", "reach_90_s", "rps",
      "rss_growth_mb_per_10k", "server_cpu_s", "server_fds", "server_peak_rss_mb", "server_threads", "success_rate", "syscalls_per_request",
    ]);
    assert.equal(scenario.metrics.rps?.better, "higher");
  }
  const ssrMetrics = Object.keys(scenarios.find((s) => s.scenario.name === "ssr")!.scenario.metrics);
  assert.equal(ssrMetrics[0], "latency_p99_ms", "ssr's headline is latency at a fixed rate");
  assert.ok(!ssrMetrics.includes("database_cpu_s"));
  // The registry erases a suite's types; this test knows it holds the HTTP suite's scenario.
  const crud = scenarios.find((s) => s.scenario.name === "crud")!.scenario as SuiteScenario<HttpConfig, HttpProfile>;
  const runtime = { identity: { name: "node" } } as IdentifiedRuntime;
  const session = httpSuite.start({ profile: "quick", workDir: "/tmp", log: () => {}, options: { apps: ["native"] } });
  const subjects = session.subjects(crud, runtime);
  assert.deepEqual(subjects.map((s) => s.params.operation), ["create", "get-all", "get-one", "update", "delete"]);
  assert.deepEqual(subjects[0]!.params, { connections: 10, keepalive: true, rate: 500, operation: "create" });
  assert.deepEqual(subjects[0]!.flags, []);
  const json = scenarios.find((s) => s.scenario.name === "json")!.scenario as SuiteScenario<HttpConfig, HttpProfile>;
  const elysia = httpSuite.start({ profile: "quick", workDir: "/tmp", log: () => {}, options: { apps: ["elysia"] } }).subjects(json, runtime);
  assert.deepEqual(elysia.map((s) => s.params), [{ connections: 10, keepalive: true, rate: 1000 }], "an app a runtime cannot run keeps its load point, so its unsupported cell joins the series");
  assert.equal(subjects[0]!.scenario.metrics.database_cpu_s, undefined, "only a scenario with a database records its CPU");
  const ssr = scenarios.find((s) => s.scenario.name === "ssr")!.scenario as SuiteScenario<HttpConfig, HttpProfile>;
  const pages = httpSuite.start({ profile: "quick", workDir: "/tmp", log: () => {}, options: { apps: ["nextjs"] } }).subjects(ssr, runtime);
  assert.deepEqual(pages.map((s) => s.params.rate), [ssr.profileParams.rate].flat(), "each fixed rate is its own series");
  assert.ok(pages.length >= 2);
  assert.ok(pages[0]!.scenario.metrics.max_sustained_rps, "the first rate's series climbs the rate ladder");
  assert.equal(pages[1]!.scenario.metrics.max_sustained_rps, undefined, "the other rates' series do not repeat it");
  assert.equal(subjects[0]!.scenario.metrics.max_sustained_rps, undefined, "a scenario without a ladder records no sustained rate");
});

test("an app older runtimes cannot run is unsupported below its min_version, with the reason", () => {
  const [hello] = loadApps("http", join(FIXTURES, "apps/http")).filter((a) => a.name === "hello");
  const app = { ...hello!, manifest: { ...hello!.manifest, runtimes: { node: { entry: "server.mjs", min_version: "22.6.0" } } } };
  const on = (name: string, version: string) => ({ identity: { name, version } }) as IdentifiedRuntime;
  assert.equal(unsupportedApp(app, on("node", "22.11.0")), null);
  assert.equal(unsupportedApp(app, on("node", "20.18.0")), "app hello needs node >= 22.6.0");
  assert.equal(unsupportedApp(app, on("bun", "1.2.0")), "app hello does not run on bun");
  const explained = { ...app, manifest: { ...app.manifest, runtimes: { node: { entry: "server.mjs", min_version: "22.6.0", min_version_reason: "no fetch" } } } };
  assert.equal(unsupportedApp(explained, on("node", "20.18.0")), "app hello needs node >= 22.6.0: no fetch");
});
