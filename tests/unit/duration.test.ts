import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { formatDuration, parseDuration } from "../../src/ui/duration.ts";

describe("durations as a person reads them", () => {
  it("reads durations as a person would", () => {
    assert.equal(formatDuration(48.4), "48 s");
    assert.equal(formatDuration(192), "3 min 12 s");
    assert.equal(formatDuration(16_800), "4 h 40 min");
    assert.equal(formatDuration(7_190), "2 h 0 min", "59.8 minutes past the hour round up into the next hour");
  });
});

describe("durations as a person writes them", () => {
  it("reads hours, minutes and seconds, and refuses anything else in one line", () => {
    assert.equal(parseDuration("6h", "--time-limit"), 21_600);
    assert.equal(parseDuration("1h20m", "--time-limit"), 4_800);
    assert.equal(parseDuration("90m", "--time-limit"), 5_400);
    assert.equal(parseDuration("45s", "--time-limit"), 45);
    assert.equal(parseDuration("45", "--time-limit"), 45);
    for (const bad of ["", "soon", "6 hours", "0m", "-5", "1.5h"]) {
      assert.throws(() => parseDuration(bad, "--time-limit"), (error: Error) => error instanceof UserError && /--time-limit must be a duration/.test(error.message) && !error.message.includes("\n"), bad);
    }
  });
});
