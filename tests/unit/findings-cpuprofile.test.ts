import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCpuProfile, topFunctions, type CpuProfile } from "../../src/findings/profile/cpuprofile.ts";

const frame = (functionName: string, url = "", lineNumber = -1) => ({ functionName, url, lineNumber, columnNumber: 0, scriptId: "1" });

// Root → main → (isPrime, copy); idle between. Ticks: main 1 ms, isPrime 6 ms, copy 2 ms, idle 5 ms.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)") },
    { id: 2, callFrame: frame("main", "file:///app/http/native/node.mjs", 9) },
    { id: 3, callFrame: frame("isPrime", "file:///app/http/shared/compute.js", 3) },
    { id: 4, callFrame: frame("(idle)") },
    { id: 5, callFrame: frame("") , },
  ],
  samples: [2, 3, 3, 3, 5, 4, 2],
  timeDeltas: [0, 1000, 2000, 2000, 2000, 2000, 5000],
};

test("self time goes to the function each tick names, weighted by the time to the next tick; idle is left out", () => {
  const top = topFunctions([profile], 10);
  assert.deepEqual(
    top.map((f) => [f.name, f.self_ms]),
    [
      ["isPrime (shared/compute.js:4)", 6],
      ["(anonymous)", 2],
      ["main (native/node.mjs:10)", 1],
    ],
  );
  assert.ok(Math.abs(top[0]!.share - 6 / 9) < 1e-9);
});

test("profiles of several threads add up, and the count limits the list", () => {
  const top = topFunctions([profile, profile], 1);
  assert.deepEqual(top.map((f) => [f.name, f.self_ms]), [["isPrime (shared/compute.js:4)", 12]]);
});

test("a document that is not a CPU profile is named", () => {
  assert.throws(() => parseCpuProfile('{"nodes": []}', "x.cpuprofile"), /x\.cpuprofile: not a CPU profile/);
});
