import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planRun, planTable } from "../../src/cli/commands/plan.ts";
import { loadApps } from "../../src/apps/manifest.ts";
import { parseSpec } from "../../src/runtimes/spec.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";

const resolved = (scenario: string, profile: "quick" | "full") => resolveScenarios(selectScenarios({ suites: [], scenarios: [scenario] }), profile);
const specs = (...texts: string[]) => texts.map(parseSpec);

describe("plan", () => {
  it("counts an HTTP scenario's cells from its apps and load points, and its time from its load phases", () => {
    const scenarios = resolved("http/json", "full");
    const profile = scenarios[0]!.scenario.profileParams as { trials: number; connections: number[]; warmup_s: number; duration_s: number; rate_duration_s: number };
    // An app made for other scenarios has no cells on json.
    const nodeApps = loadApps<{ scenarios?: string[] }>("http").filter((app) => app.manifest.runtimes.node && !app.manifest.scenarios).length;
    const [plan] = planRun(scenarios, specs("node@22.11.0"), {});
    assert.equal(plan!.cells, nodeApps * profile.connections.length);
    assert.equal(plan!.trials, plan!.cells * profile.trials);
    const loadS = plan!.trials * (profile.warmup_s + profile.duration_s + profile.rate_duration_s);
    assert.ok(plan!.seconds! > loadS && plan!.seconds! < loadS * 1.3, `${plan!.seconds} s against ${loadS} s of load`);
    const [oneApp] = planRun(scenarios, specs("node@22.11.0"), { app: ["native"] });
    assert.equal(oneApp!.cells, profile.connections.length);
  });

  it("leaves out runtimes a scenario does not run on, and versions below its minimum", () => {
    const [all] = planRun(resolved("startup/typescript", "quick"), specs("node@22.11.0", "bun@1.2.0"), {});
    const [old] = planRun(resolved("startup/typescript", "quick"), specs("node@20.0.0", "bun@1.2.0"), {});
    assert.deepEqual([all!.cells, old!.cells], [2, 1]);
  });

  it("grows with the profile: the full profile costs more than the quick one", () => {
    const quick = planRun(resolved("startup/hello", "quick"), specs("node@22.11.0"), {})[0]!;
    const full = planRun(resolved("startup/hello", "full"), specs("node@22.11.0"), {})[0]!;
    assert.ok(full.seconds! > 5 * quick.seconds!, `${quick.seconds} s quick, ${full.seconds} s full`);
  });

  it("lists a suite without an estimate hook and leaves it out of the total", () => {
    const scenarios = resolved("startup/hello", "quick").map((s) => ({ ...s, suite: { ...s.suite, estimate: undefined } }));
    const plans = planRun(scenarios, specs("node@22.11.0"), {});
    assert.equal(plans[0]!.seconds, null);
    assert.match(planTable(plans, "quick", 1), /startup\s+1\s+\?\s+\?\s+no estimate[\s\S]*No estimate for startup/);
  });
});
