import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadApps } from "../../src/apps/manifest.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";

// The measurement of native json on the pinned runtimes is checked in tests/integration/counts.test.ts,
// which reads the same run as its counts.
describe("http suite: bad input", () => {
  it("an unknown app is one line of bad input", async () => {
    const result = await bench(["run", "--suite", "http", "--app", "nope", "--runtime", "node@22.11.0", "--out", tempDir("http-nope")]);
    assert.equal(result.code, 2);
    const apps = loadApps("http").map((app) => app.name);
    assert.ok(apps.includes("native") && apps.includes("express"), apps.join(", "));
    assert.ok(result.stderr.split("\n").includes(`runtime-bench: unknown app 'nope': the chosen suites have apps ${apps.join(", ")}`), result.stderr);
  });
});
