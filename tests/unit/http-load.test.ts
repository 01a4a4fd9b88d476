/**
 * A window of http load is timed by the seconds oha measured, not the duration it was asked for:
 * oha waits for the requests in flight at its deadline, so a window of a quarter second runs longer,
 * and the warm-up (the trials' and the counting pass's) judges steadiness by those measured rates.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isSteady } from "../../apps/inprocess/steady.js";
import { tally } from "../../src/suites/http/load.ts";
import { ohaArgs, type LoadOutcome } from "../../src/suites/http/oha.ts";
import { warmUntilSteady } from "../../src/tools/warm-up.ts";

const ASKED_S = 0.25;

/** What oha reports of a window asked to last `ASKED_S`: `answered` requests with 200 over `measuredS`. */
function outcome(measuredS: number, answered: number, others: Record<string, number> = {}): LoadOutcome {
  const spec = { request: { method: "GET", url: "http://127.0.0.1:1/json" }, connections: 10, keepalive: true, durationS: ASKED_S, threads: 1, pin: [] };
  return {
    report: { totalS: measuredS, latencyS: { p50: 0.001, p90: 0.002, p99: 0.003, p999: 0.004 }, statusCodes: { "200": answered, ...others }, errors: {} },
    usage: { userS: 0.1, systemS: 0.05, elapsedS: measuredS + 0.01, peakRssMb: 12, minorFaults: 0, majorFaults: 0, voluntarySwitches: 0, involuntarySwitches: 0 },
    argv: ["oha", ...ohaArgs(spec)],
  };
}

describe("a window of http load", () => {
  it("lasts the seconds oha measured, not the duration asked for", () => {
    const counted = tally(outcome(0.3125, 500, { "503": 2 }), 200);
    assert.deepEqual(counted, { seconds: 0.3125, good: 500, total: 502, unexpected: { "status 503": 2 } });
  });

  it("gives the warm-up the rates oha measured: equal counts over unequal seconds are not steady", async () => {
    // Every window answers 500 requests: over the asked 0.25 s they would be steady after four windows.
    const measured = [0.25, 0.3125, 0.25, 0.3125, 0.25, 0.3125, 0.25, 0.3125];
    let next = 0;
    const warm = await warmUntilSteady({ windowS: ASKED_S, block: 2, tolerance: 0.05, maxS: 2 }, isSteady, async () => {
      const { seconds, good } = tally(outcome(measured[next++]!, 500), 200);
      return { seconds, count: good };
    });
    assert.equal(warm.steady, false);
    assert.equal(warm.windows.length, 8);
    assert.equal(warm.seconds, 2.25, "the cap counts measured seconds");
    assert.deepEqual(warm.windows.map((w) => w.count / w.seconds), [2000, 1600, 2000, 1600, 2000, 1600, 2000, 1600]);
  });
});
