import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isSteady } from "../../apps/inprocess/steady.js";
import { warmUntilSteady, warmUpFigures, type LoadWindow, type WarmUpRule } from "../../src/tools/warm-up.ts";

/** Windows of half a second at these rates (thousands of requests per second). */
const windows = (rates: readonly number[]): LoadWindow[] => rates.map((rate) => ({ seconds: 0.5, count: rate * 500 }));

/** The warm-up of a server whose windows come at these rates, in turn, then at the last rate. */
async function warmUp(rates: readonly number[], rule: WarmUpRule) {
  const series = windows(rates);
  let next = 0;
  return warmUntilSteady(rule, isSteady, async () => series[Math.min(next++, series.length - 1)]!);
}

const QUICK: WarmUpRule = { windowS: 0.5, block: 2, tolerance: 0.05, maxS: 10 };

describe("the steadiness rule", () => {
  it("calls a series steady once its last block agrees within itself and with the block before", () => {
    assert.equal(isSteady([54, 55, 55, 54], 2, 0.05), true);
    assert.equal(isSteady([54, 55, 55], 2, 0.05), false, "two blocks are needed at least");
    assert.equal(isSteady([40, 48, 55, 54], 2, 0.05), false, "the block before is still climbing");
    assert.equal(isSteady([55, 54, 55, 50], 2, 0.05), false, "the last block differs within itself");
  });

  it("refuses a plateau on the way up: V8 holds a level, then tiers up again", () => {
    // Node 26 by hand on this machine: 13.7, 15.4, 20.0 thousand requests in its first three seconds.
    const climbing = [12, 14, 15.2, 15.4, 17, 20, 21, 21.2, 21.1, 21.3];
    const at = climbing.findIndex((_, k) => isSteady(climbing.slice(0, k + 1), 2, 0.05));
    assert.ok(climbing[at]! >= 21, `steady at window ${at}, rate ${climbing[at]}`);
  });

  it("refuses a slow climb of more than the tolerance per block, and allows one well within it", () => {
    const steep = Array.from({ length: 20 }, (_, k) => 10 * 1.03 ** k);
    assert.equal(steep.some((_, k) => isSteady(steep.slice(0, k + 1), 2, 0.05)), false, "3 % a window is 6 % a block");
    const gentle = Array.from({ length: 20 }, (_, k) => 10 * 1.01 ** k);
    assert.equal(isSteady(gentle.slice(0, 4), 2, 0.05), true, "1 % a window is within 5 %");
  });

  it("works the same on iteration times, where lower is faster", () => {
    assert.equal(isSteady([9, 4, 2.1, 2, 2.05, 2.02], 2, 0.1), true);
    assert.equal(isSteady([9, 4, 2.1, 2], 2, 0.1), false);
  });
});

describe("warming a server up", () => {
  it("stops at the first steady window and reports how fast the server reached its speed", async () => {
    const warm = await warmUp([6.2, 15, 15.1, 15.3, 15.8, 15.6], QUICK);
    assert.deepEqual([warm.steady, warm.windows.length, warm.seconds], [true, 5, 2.5]);
    const figures = warmUpFigures(warm, QUICK.block);
    assert.ok(Math.abs(figures.level - 15550) < 1e-9, `level ${figures.level}`);
    assert.deepEqual([figures.reach90S, figures.reach90Count], [1, 3100 + 7500], "the second window reached 90 % of 15.55 thousand");
    assert.ok(Math.abs(figures.firstSecondRate - (6.2 + 15) * 500) < 1e-9, "the first two windows make the first second");
  });

  it("measures anyway at the cap, and says it never became steady", async () => {
    const noisy = Array.from({ length: 40 }, (_, k) => (k % 2 === 0 ? 10 : 14));
    const warm = await warmUp(noisy, QUICK);
    assert.deepEqual([warm.steady, warm.seconds], [false, 10]);
    const figures = warmUpFigures(warm, QUICK.block);
    assert.equal(figures.level, 12000);
    assert.equal(figures.reach90S, 1, "14 thousand is above 90 % of the last block's 12");
  });

  it("gives a slow climb until the cap, where the last block's level is its figure", async () => {
    const climb = Array.from({ length: 40 }, (_, k) => 10 * 1.04 ** k);
    const warm = await warmUp(climb, QUICK);
    assert.equal(warm.steady, false);
    const figures = warmUpFigures(warm, QUICK.block);
    assert.equal(figures.reach90S, 8.5, "4 % a window: 90 % of the last block is three windows before it");
  });

  it("gives a server fast from the start its first window as its time to 90 %", async () => {
    const warm = await warmUp([53.8, 54.5, 56, 55.1], QUICK);
    assert.equal(warm.steady, true);
    assert.equal(warmUpFigures(warm, QUICK.block).reach90S, 0.5);
  });
});
