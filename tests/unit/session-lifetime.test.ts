/**
 * A suite's session closes once its last scenario is measured, before the next suite checks
 * anything: a suite's servers (http's PostgreSQL, install's verdaccio) must not idle beside a
 * later suite's trials. Suites of this test's own, through the real orchestrator.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineSuite } from "../../src/suites/suite.ts";
import { fakeRun, fakeScenario } from "../helpers/fake-run.ts";

/** A suite named `name` that logs each check, trial and close of its session into `order`. */
function loggingSuite(name: "startup" | "http", order: string[]) {
  return defineSuite<Record<string, never>, { trials: number }>({
    name,
    metrics: { wall_ms: { unit: "ms", better: "lower" } },
    profiles: { quick: { trials: 2 }, full: { trials: 2 } },
    tools: [],
    start: () => ({
      subjects: (scenario, runtime) => [{ scenario, runtime, app: null, params: {}, flags: [] }],
      check: async (subject) => {
        order.push(`${name} check ${subject.scenario.name}`);
        return { status: "ok" };
      },
      trial: async (subject, trialIndex) => {
        order.push(`${name} trial ${subject.scenario.name} ${trialIndex + 1}`);
        return { samples: { wall_ms: [10] } };
      },
      close: async () => {
        order.push(`${name} close`);
      },
    }),
  });
}

describe("a suite's session", () => {
  it("closes after its suite's last scenario, before the next suite's first check, and only once", async () => {
    const order: string[] = [];
    const first = loggingSuite("startup", order);
    const second = loggingSuite("http", order);
    const outcome = await fakeRun([
      { suite: first, scenario: fakeScenario(first, "one", 2) },
      { suite: first, scenario: fakeScenario(first, "two", 2) },
      { suite: second, scenario: fakeScenario(second, "three", 2) },
    ]);
    assert.equal(outcome.results.length, 3);
    assert.ok(outcome.results.every(({ doc }) => doc.status === "ok"));
    const at = (line: string) => {
      const index = order.indexOf(line);
      assert.ok(index >= 0, `${line} happened: ${order.join("; ")}`);
      return index;
    };
    assert.ok(at("startup close") > at("startup trial two 2"), "not before its last scenario's trials");
    assert.ok(at("startup close") < at("http check three"), "before the next suite checks anything");
    assert.ok(at("http close") > at("http trial three 2"));
    assert.deepEqual(
      order.filter((line) => line.endsWith(" close")),
      ["startup close", "http close"],
      "each session closed once, the run's end closing none again",
    );
  });
});
