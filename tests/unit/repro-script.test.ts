import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCommand } from "../../src/process/children.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

/*
 * A reproduction archive is code its reader runs (and `repro`, `profile` and `findings --profile`
 * run it on a maintainer's machine): nothing a result holds may become a command in it. `repro`
 * reads result files unchecked, as a reader's downloads would be, so the script writer itself
 * must keep every string where it belongs.
 */
describe("a reproduction script, whatever its result holds", () => {
  it("keeps a parameter with a line break inside its comment: the second line never runs", async () => {
    const dir = tempDir("repro-injected");
    const pwned = join(dir, "pwned");
    const doc = makeResult({
      suite: "workers",
      scenario: "throughput",
      app: "worker-threads",
      params: { payload: "string", size: 1024, batch: 64, transfer: false, note: `x\ntouch ${pwned}\r\u2028touch ${pwned}` },
      metrics: { throughput_mb_s: metricOf([100, 101, 99], "MB/s\n`touch " + pwned + "`", "higher") },
      environment: { cpu_model: "CPU\n<img src=x onerror=alert(1)>" },
    });
    const file = join(dir, "node.json");
    writeFileSync(file, JSON.stringify(doc));
    const out = join(dir, "repro");
    const made = await bench(["repro", file, "--out", out]);
    assert.equal(made.code, 0, made.stderr);
    const script = join(out, "run-node-22.11.0.sh");
    // The script stops at its first check (no runtime there); anything injected would have run before it.
    const run = await runCommand(script, ["/nonexistent/node"]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(existsSync(pwned), false, "the injected command did not run");
    const text = readFileSync(script, "utf8");
    const comment = text.split("\n").filter((line) => line.includes("touch"));
    assert.equal(comment.length, 1, text);
    assert.match(comment[0]!, /^# /, "only inside a comment");
    const readme = readFileSync(join(out, "README.md"), "utf8");
    assert.doesNotMatch(readme, /<img|\n`touch|^touch/m, readme);
  });
});
