import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { commandsUnder } from "../helpers/processes.ts";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";

// Fixture apps and small scenarios live outside apps/ and suites/, so no default run measures them.
const FIXTURE_APPS = join(REPO_ROOT, "tests/fixtures/apps");

/** A run's environment: fixtures, and a temporary folder of its own so what it leaves there shows. */
function fixtureEnv(tmp: string): NodeJS.ProcessEnv {
  return { RUNTIME_BENCH_APPS_DIR: FIXTURE_APPS, RUNTIME_BENCH_SUITES_DIR: join(REPO_ROOT, "tests/fixtures/suites"), TMPDIR: tmp };
}

/** What a run left in its temporary folder, besides tsx's compile cache. */
const leftovers = (tmp: string) => readdirSync(tmp).filter((name) => !name.startsWith("tsx-"));


describe("fileio suite: wrong digests, crashes, skipped writes and interrupts", () => {
  it("records a wrong digest, a crash and a skipped write as failed with the reason, goes on, and leaves no data behind", async () => {
    const out = tempDir("fileio-broken");
    const tmp = tempDir("fileio-tmp");
    const args = ["run", "--suite", "fileio", "--scenario", "read-many", "--scenario", "write-many", "--runtime", "node@22.11.0", "--profile", "quick", "--out", out];
    const result = await bench(args, fixtureEnv(tmp));
    assert.equal(result.code, 1, `a failed result makes the run exit 1: ${result.stderr}`);
    const docs = new Map(readResults([out]).map((r) => [`${r.doc.scenario}/${r.doc.app}`, r.doc]));

    const wrong = docs.get("read-many/wrong-digest")!;
    assert.equal(wrong.status, "failed");
    assert.match(wrong.error!, /trial 1: what the app read from \S+ differs from the files there; reported digest [0-9a-f]{64}, expected [0-9a-f]{64}/);
    assert.deepEqual(wrong.metrics, {}, "a failed app is never published as a number");

    const crashed = docs.get("read-many/crashes")!;
    assert.equal(crashed.status, "failed");
    assert.match(crashed.error!, /trial 1: crashed \(exit code 137\) without a report: crashes: dying on purpose/);
    assert.match(String(crashed.details?.stderr), /dying on purpose/);
    assert.match(crashed.error!, /frame 3 \[0x1003\]$/, "the result keeps the stderr's last lines");
    const crashLines = result.stderr.split("\n").filter((line) => /dying on purpose|frame \d/.test(line));
    assert.equal(crashLines.length, 2, `the console gives the crash one line as it happens and one among the failures at the end:\n${crashLines.join("\n")}`);
    assert.match(crashLines[0]!, /read-many.*: failed: crashed \(exit code 137\) without a report: crashes: dying on purpose … \(\d more lines in the result's error\)$/);
    assert.match(crashLines[1]!, /^  fileio\/read-many crashes .*node@22\.11\.0: trial 1: crashed \(exit code 137\) without a report: crashes: dying on purpose … \(\d more lines in the result's error\)$/);
    assert.match(result.stderr, /runtime-bench: 3 results failed \(each file holds the whole reason\):\n/);

    const skipped = docs.get("write-many/skips-writes")!;
    assert.equal(skipped.status, "failed");
    assert.match(skipped.error!, /trial 1: what the app wrote is wrong: .*: 100 files after the trial, expected 200/);

    for (const scenario of ["read-many", "write-many"]) {
      const good = docs.get(`${scenario}/good`)!;
      assert.equal(good.status, "ok", `the run went on: ${good.error}`);
      assert.equal(good.metrics.wall_ms?.samples.length, 4, "2 trials of 2 iterations");
      assert.ok(good.metrics.ops_per_s!.median > 0);
      assert.equal(good.verification?.status, "passed");
      assert.equal(good.verification?.trials_verified, 2);
      assert.equal(typeof (good.details?.filesystem as { type?: unknown }).type, "string");
    }
    assert.equal((await bench(["validate", out])).code, 0);
    assert.deepEqual(leftovers(tmp), [], "the run's work folder and generated data are gone");
    assert.deepEqual(commandsUnder(join(FIXTURE_APPS, "fileio")), [], "no runtime process outlives the harness");
  });

  it("refuses, in one line, data the disk has no room for", async () => {
    const tmp = tempDir("fileio-tmp");
    const args = ["run", "--suite", "fileio", "--scenario", "too-large", "--runtime", "node@22.11.0", "--profile", "quick", "--out", tempDir("fileio-full")];
    const result = await bench(args, fixtureEnv(tmp));
    assert.equal(result.code, 2, result.stderr);
    const lines = result.stderr.trim().split("\n").filter((line) => line.includes("free space"));
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /not enough free space in .* for the fileio suite's quick profile: copy-large needs \d+ MB with 100 MB to spare, \d+ MB free/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
    assert.deepEqual(leftovers(tmp), []);
  });

  it("removes the generated data and stops the runtime on Ctrl-C", async () => {
    const out = tempDir("fileio-interrupt");
    const tmp = tempDir("fileio-tmp");
    const args = ["run", "--suite", "fileio", "--scenario", "write-many", "--app", "good", "--runtime", "node@22.11.0", "--profile", "quick", "--out", out];
    const running = startBench(args, fixtureEnv(tmp));
    await running.waitFor("trial 1/2");
    // Interrupt while a trial's runtime is writing: how soon one runs depends on the machine's load.
    for (const deadline = Date.now() + 30_000; commandsUnder(join(FIXTURE_APPS, "fileio")).length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(leftovers(tmp).length > 0, "the run has its work folder while it runs");
    assert.ok(commandsUnder(join(FIXTURE_APPS, "fileio")).length > 0, "the app's runtime runs while we interrupt");
    running.child.kill("SIGINT");
    assert.equal(await running.exited, 130, running.stderr());
    assert.deepEqual(leftovers(tmp), [], "the run's work folder and generated data are gone");
    assert.deepEqual(commandsUnder(join(FIXTURE_APPS, "fileio")), [], "no runtime process outlives the harness");
  });
});
