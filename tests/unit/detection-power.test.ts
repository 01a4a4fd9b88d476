import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FULL_PROFILE_SHAPES, rates } from "../../benchmarks/lib/detection.ts";

const http = FULL_PROFILE_SHAPES.find((shape) => shape.suite === "http")!;

describe("detection power of the full profile (simulated series, fixed seed)", () => {
  it("raises a false alarm on at most 1 % of judged versions in series without a step", () => {
    const quiet = rates(http, 0.03, 0, 200, 7);
    assert.ok(quiet.falseAlarms <= 0.01 * quiet.judgements, `${quiet.falseAlarms} false alarms in ${quiet.judgements} judged versions`);
  });

  it("still confirms a step well beyond the noise: the test above cannot pass by seeing nothing", () => {
    const stepped = rates(http, 0.03, 0.6, 20, 7);
    assert.ok(stepped.detected >= 19, `${stepped.detected} of 20 steps of 60 % confirmed at 3 % noise`);
  });
});
