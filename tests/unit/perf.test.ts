import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { countOf, instructionsDetails, instructionsReadable, parsePerfStat, perfStatArgv } from "../../src/tools/perf.ts";

const fixture = readFileSync(join(REPO_ROOT, "tests/fixtures/perf/stat.csv"), "utf8");

test("perf stat -x, output: counted events are numbers, <not supported> and <not counted> are reasons", () => {
  assert.deepEqual(parsePerfStat(fixture), [
    { event: "task-clock", value: 712.43, unit: "msec" },
    { event: "instructions:u", value: 1834561, unit: "" },
    { event: "cycles:u", value: 1637720, unit: "" },
    { event: "branch-misses", unavailable: "perf reports branch-misses <not supported>" },
    { event: "cache-misses", unavailable: "perf reports cache-misses <not counted>" },
  ]);
  const counts = parsePerfStat(fixture);
  assert.deepEqual(countOf(counts, "instructions"), { value: 1834561 }, "a modifier suffix (:u) still names the event");
  assert.deepEqual(countOf(counts, "branch-misses"), { unavailable: "perf reports branch-misses <not supported>" });
  assert.deepEqual(countOf(counts, "stalled-cycles-frontend"), { unavailable: "perf reported no stalled-cycles-frontend count" });
  assert.deepEqual(perfStatArgv(["instructions"], "/tmp/x.csv", ["node", "a.js"]), ["perf", "stat", "-x,", "-o", "/tmp/x.csv", "-e", "instructions", "--", "node", "a.js"]);
});

test("a result keeps instructions per trial where counted, and once the reason where not", () => {
  assert.deepEqual(instructionsDetails([{ value: 42 }, { value: 43 }], 1), { instructions_trial_2: [42, 43] });
  assert.deepEqual(instructionsDetails([{ value: 42 }, { unavailable: "perf reports instructions <not counted>" }], 0), { instructions: "unavailable: perf reports instructions <not counted>" });
});

// Hardware counters show up as a PMU in sysfs: "cpu" on x86, "cpu_core"/"cpu_atom" on hybrid Intel, "armv8_pmuv3*" on arm64.
const hardwarePmu = ["cpu", "cpu_core", "armv8_pmuv3_0"].some((pmu) => existsSync(`/sys/bus/event_source/devices/${pmu}`));

test(`on this machine (${hardwarePmu ? "with" : "without"} a hardware PMU) instructions are ${hardwarePmu ? "counted" : "unavailable, with the reason"}`, async () => {
  const counted = await instructionsReadable();
  if (hardwarePmu) {
    assert.ok("value" in counted && counted.value > 0, JSON.stringify(counted));
  } else {
    assert.ok("unavailable" in counted, JSON.stringify(counted));
    assert.match(counted.unavailable, /<not supported>|not installed/);
  }
});
