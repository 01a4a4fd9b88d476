import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { runProcess } from "../../benchmarks/lib/cli.ts";

const benchmarkScript = join(REPO_ROOT, "scripts/benchmark");
const benchmarks = readdirSync(join(REPO_ROOT, "benchmarks")).filter((file) => file.endsWith(".ts")).map((file) => file.slice(0, -3));

describe("scripts/benchmark", () => {
  it("without a name, says in one line how to call it and which benchmarks exist", async () => {
    const { code, stderr } = await runProcess(benchmarkScript, []);
    assert.equal(code, 2);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(stderr, /usage: scripts\/benchmark NAME/);
    for (const name of benchmarks) assert.ok(stderr.includes(name), `${name} missing from: ${stderr}`);
  });

  it("says an option a benchmark does not know in one line, not a stack trace", async () => {
    const { code, stderr } = await runProcess(benchmarkScript, ["site-scale", "--no-such-option"]);
    assert.equal(code, 2, stderr);
    assert.match(stderr.trim().split("\n").at(-1)!, /^site-scale: Unknown option '--no-such-option'/, stderr);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
  });

  it("names an unknown benchmark and the folder it looked in", async () => {
    const { code, stderr } = await runProcess(benchmarkScript, ["no-such-benchmark"]);
    assert.equal(code, 2);
    assert.match(stderr, /no benchmark 'no-such-benchmark' in benchmarks\//);
  });
});
