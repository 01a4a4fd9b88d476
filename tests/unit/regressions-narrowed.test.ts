import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { linkRun, steppedLevel, TESTBED_AMD, TESTBED_INTEL } from "../helpers/links.ts";

const LEVEL = steppedLevel(100, "22.6.0", 1.1);

describe("the feed after a step was narrowed on another machine than its link", () => {
  it("names the release that brought it, and the link it was narrowed from, not the link on its own", () => {
    // The link on the testbed's AMD host; its narrowing on the Intel host it had the next day.
    const docs = [
      ...linkRun({ machine: TESTBED_AMD, index: 1, from: "22.4.0", to: "22.8.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 2, from: "22.4.0", to: "22.6.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 3, from: "22.6.0", to: "22.8.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 4, from: "22.4.0", to: "22.5.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 5, from: "22.5.0", to: "22.6.0", level: LEVEL }),
    ];
    const { changes } = detectRegressions(docs);
    assert.deepEqual(changes.map((c) => [c.from_version, c.to_version, c.narrowed_from]), [["22.5.0", "22.6.0", ["22.4.0 → 22.8.0"]]]);
    assert.equal(changes[0]!.release_notes?.changelog, "https://nodejs.org/en/blog/release/v22.6.0");
  });
});
