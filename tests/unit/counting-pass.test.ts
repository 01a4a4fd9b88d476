/**
 * The orchestrator's side of the counting pass: called once per measured cell after its trials,
 * its samples become metrics with a trial per counted run, and what it cannot count is recorded
 * with the reason, never as 0, while the timed figures stand. A suite of this test's own (no
 * runtime runs: the orchestrator is what is tested; tests/integration/counts.test.ts counts real
 * runtimes).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { countedScenario, defineSuite, TrialFailure, type CountOutput } from "../../src/suites/suite.ts";
import { fakeRun, fakeScenario } from "../helpers/fake-run.ts";

const COUNTS = { calls: { unit: "calls/start", better: "lower" as const, exact: true }, faults: { unit: "faults/start", better: "lower" as const, exact: true } };

/** A suite whose trials add two samples each and whose counting pass does what `count` says for each app. */
function suiteCounting(count: (app: string) => CountOutput, order: string[]) {
  return defineSuite<Record<string, never>, { trials: number }>({
    name: "startup",
    metrics: { wall_ms: { unit: "ms", better: "lower" }, ...COUNTS },
    profiles: { quick: { trials: 3 }, full: { trials: 3 } },
    tools: [],
    start: () => ({
      subjects: (scenario, runtime) =>
        ["counted", "broken", "skipped"].map((app) => ({ scenario: countedScenario(scenario, COUNTS, app !== "skipped"), runtime, app, params: {}, flags: [] })),
      check: async () => ({ status: "ok" }),
      trial: async (subject, trialIndex) => {
        order.push(`trial ${subject.app} ${trialIndex + 1}`);
        return { samples: { wall_ms: [10, 11] } };
      },
      count: async (subject) => {
        order.push(`count ${subject.app}`);
        return count(subject.app!);
      },
      recheck: async (subject) => {
        order.push(`recheck ${subject.app}`);
        return { status: "ok" };
      },
    }),
  });
}

async function run(count: (app: string) => CountOutput) {
  const order: string[] = [];
  const suite = suiteCounting(count, order);
  const outcome = await fakeRun([{ suite, scenario: fakeScenario(suite, "hello", 3) }]);
  return { docs: new Map(outcome.results.map(({ doc }) => [doc.app!, doc])), order };
}

describe("the counting pass", () => {
  it("runs after every trial of its scenario and before the check after measuring, and its counts are metrics with a trial per counted run", async () => {
    const { docs, order } = await run((app) => {
      if (app === "broken") throw new TrialFailure("strace lost the server");
      return { samples: { calls: [700, 702] }, unavailable: { faults: "GNU time is blind here" }, details: { syscall_counts: { per: "start", calls: {}, scheduling: {} } } };
    });
    assert.ok(order.indexOf("count counted") > order.lastIndexOf("trial skipped 3"), "counted after the scenario's last trial");
    assert.ok(order.indexOf("count counted") < order.indexOf("recheck counted"), "counted before the check after measuring");
    const counted = docs.get("counted")!;
    assert.equal(counted.status, "ok");
    assert.deepEqual(counted.metrics.calls!.samples, [700, 702]);
    assert.deepEqual(counted.metrics.calls!.trial_samples, [1, 1]);
    assert.equal(counted.metrics.calls!.exact, true);
    assert.deepEqual(counted.metrics.wall_ms!.trial_samples, [2, 2, 2], "the timed metric keeps its trials");
    assert.equal(counted.metrics.faults, undefined, "never 0");
    assert.deepEqual(counted.details!.counts_unavailable, { faults: "GNU time is blind here" });
    assert.deepEqual(counted.details!.syscall_counts, { per: "start", calls: {}, scheduling: {} });
  });

  it("keeps the timed figures of a cell whose counting failed, its counts unavailable with the reason", async () => {
    const { docs } = await run((app) => {
      if (app === "broken") throw new TrialFailure("strace lost the server");
      return { samples: { calls: [700], faults: [3000] } };
    });
    const broken = docs.get("broken")!;
    assert.equal(broken.status, "ok", broken.error);
    assert.equal(broken.metrics.wall_ms!.samples.length, 6);
    assert.deepEqual(broken.details!.counts_unavailable, { calls: "counting failed: strace lost the server", faults: "counting failed: strace lost the server" });
  });

  it("leaves a cell the profile does not count without its count metrics, and its result ok", async () => {
    const { docs, order } = await run(() => ({ samples: {} }));
    const skipped = docs.get("skipped")!;
    assert.equal(skipped.status, "ok", skipped.error);
    assert.deepEqual(Object.keys(skipped.metrics), ["wall_ms"]);
    assert.equal(skipped.details?.counts_unavailable, undefined);
    assert.ok(order.includes("count skipped"), "the suite's hook decides there is nothing to count");
    // A cell that records a count its pass neither counted nor called unavailable is a broken suite: failed, not silently short.
    assert.equal(docs.get("counted")!.status, "failed");
    assert.match(docs.get("counted")!.error!, /^no samples for calls, faults$/);
  });
});
