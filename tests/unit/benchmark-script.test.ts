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

  it("says a value that starts with a dash in one line", async () => {
    const { code, stderr } = await runProcess(benchmarkScript, ["site-scale", "--builds", "-1"]);
    assert.equal(code, 2, stderr);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(stderr, /^site-scale: Option '--builds' argument is ambiguous\..*'--builds=-XYZ'/);
  });

  it("names an unknown benchmark and the folder it looked in, and takes no path for a name", async () => {
    for (const name of ["no-such-benchmark", "lib/cli"]) {
      const { code, stderr } = await runProcess(benchmarkScript, [name]);
      assert.equal(code, 2, `${name}: ${stderr}`);
      assert.match(stderr, new RegExp(`no benchmark '${name}' in benchmarks/`));
    }
  });
});
