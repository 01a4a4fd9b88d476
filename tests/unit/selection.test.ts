import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadApps } from "../../src/apps/manifest.ts";
import { planRun } from "../../src/orchestrate/estimate.ts";
import { inSuiteOrder } from "../../src/orchestrate/order.ts";
import { parseSpec } from "../../src/runtimes/spec.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { SUITES } from "../../src/suites/index.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";
import { commandLineSelection, defaultSelection } from "../../src/suites/selection.ts";

const cost = (selection: { suites: string[]; scenarios: string[]; suiteOptions: Record<string, Record<string, string[]>> }) => {
  const scenarios = resolveScenarios(selectScenarios({ suites: selection.suites, scenarios: selection.scenarios }), "full");
  const plans = planRun(scenarios, ["node@22.11.0", "node@22.10.0"].map(parseSpec), selection.suiteOptions);
  return { plans, seconds: plans.reduce((sum, p) => sum + p.seconds!, 0), maxSeconds: plans.reduce((sum, p) => sum + p.maxSeconds!, 0) };
};

describe("selection", () => {
  it("means the same option to every suite on the command line", () => {
    const selection = commandLineSelection({ suite: ["http"], scenario: ["http/json"], app: ["native"] });
    assert.deepEqual([selection.suites, selection.scenarios], [["http"], ["http/json"]]);
    assert.deepEqual(Object.keys(selection.suiteOptions), SUITES.map((s) => s.name));
    assert.ok(Object.values(selection.suiteOptions).every((options) => options.app![0] === "native"));
  });

  it("with --default-selection, takes each suite's default run, of the suites named, and refuses scenarios or apps beside it in one line", () => {
    const http = commandLineSelection({ suite: ["http"], "default-selection": true });
    assert.deepEqual(http.suites, ["http"]);
    assert.deepEqual(http.suiteOptions.http!.app, loadApps("http").filter((app) => (app.manifest as { default_run?: boolean }).default_run).map((app) => app.name));
    assert.deepEqual(commandLineSelection({ "default-selection": true }), defaultSelection());
    assert.throws(() => commandLineSelection({ scenario: ["http/json"], app: ["native"], "default-selection": true }), /^UserError: --default-selection chooses the scenarios and apps itself: drop --scenario and --app$/);
  });

  it("the release job's selection leaves most of 6 h to adaptive trials, where every app leaves almost nothing", () => {
    const everything = cost(commandLineSelection({}));
    const release = cost(defaultSelection());
    assert.ok(everything.seconds > 5 * 3600, `every app at the minimum: ${everything.seconds} s`);
    // Trials and checks, and the counting passes (docs/methodology.md, "Counts").
    assert.ok(release.seconds < 3 * 3600, `the default selection at the minimum: ${release.seconds} s`);
    // Startup and HTTP, first in the run, reach their caps within 6 h.
    const capOf = (suite: string) => release.plans.find((p) => p.suite === suite)!.maxSeconds!;
    assert.ok(release.seconds + (capOf("startup") - release.plans.find((p) => p.suite === "startup")!.seconds!) + (capOf("http") - release.plans.find((p) => p.suite === "http")!.seconds!) < 6 * 3600);
    const httpCells = release.plans.find((p) => p.suite === "http")!.cells;
    assert.ok(httpCells < everything.plans.find((p) => p.suite === "http")!.cells / 2, `${httpCells} HTTP cells`);
  });

  it("measures startup, then HTTP, then the other suites, each suite's scenarios in their order", () => {
    const scenarios = resolveScenarios(selectScenarios({ suites: ["workers", "http", "database", "startup"], scenarios: [] }), "full");
    const ordered = inSuiteOrder(scenarios).map((s) => `${s.suite.name}/${s.scenario.name}`);
    const suitesInOrder = [...new Set(ordered.map((name) => name.split("/")[0]))];
    assert.deepEqual(suitesInOrder, ["startup", "http", "database", "workers"]);
    assert.deepEqual(ordered.filter((name) => name.startsWith("http/")), scenarios.filter((s) => s.suite.name === "http").map((s) => `http/${s.scenario.name}`));
  });
});
