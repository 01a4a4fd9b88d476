import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { commandsUnder } from "../helpers/processes.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";

// Fixture apps live outside apps/websocket so that no default run ever measures them.
const FIXTURE_APPS = join(REPO_ROOT, "tests/fixtures/apps");
const env = { RUNTIME_BENCH_APPS_DIR: FIXTURE_APPS };


describe("websocket suite: servers that corrupt echoes or duplicate broadcasts", () => {
  it("fails them with the difference, before or under load, never publishes a number for them, and measures the faithful ones", async () => {
    const out = tempDir("websocket-broken");
    // Smoke: each broken server fails in its one trial; the faithful ones show the run went on.
    const result = await bench(["run", "--suite", "websocket", "--scenario", "echo", "--scenario", "broadcast", "--runtime", "bun@1.2.0", "--profile", "smoke", "--out", out], env);
    assert.equal(result.code, 1, `a failed result makes the run exit 1\n${result.stderr}`);
    const docs = new Map(readResults([out]).map((r) => [`${r.doc.scenario}/${r.doc.app}`, r.doc]));

    const corrupt = docs.get("echo/corrupts-one-in-a-hundred")!;
    assert.equal(corrupt.status, "failed");
    assert.equal(corrupt.verification?.status, "failed");
    assert.match(corrupt.error!, /verification failed: text echo: 2 of 200 echoes differ from what was sent; the first, message 100, sent \d+ bytes of text and got \d+ bytes of text differing from byte \d+; binary echo: 1 of 100 echoes differ/);
    assert.deepEqual(corrupt.metrics, {}, "a failed server is never measured, so never published as a number");
    const closing = (corrupt.verification!.checks as { name: string; passed: boolean }[]).find((check) => check.name === "close handshake");
    assert.equal(closing?.passed, true, "the close handshake is checked on its own");

    const underLoad = docs.get("echo/corrupts-under-load")!;
    assert.equal(underLoad.status, "failed");
    assert.equal(underLoad.verification?.status, "passed", "its first 1,000 echoes are faithful, so it passes verification");
    assert.match(underLoad.error!, /trial 1: warmup: \d+ echoes differ from what was sent \(the first: connection \d+, message \d+, sent 32 bytes, got 32 bytes of text differing from byte 16\)/);
    assert.deepEqual(underLoad.metrics, {});

    const duplicates = docs.get("broadcast/duplicates-broadcasts")!;
    assert.equal(duplicates.status, "failed");
    assert.match(duplicates.error!, /^verification failed: broadcast: 20 duplicated \(of 1000 expected\)$/);
    assert.deepEqual((duplicates.verification as { broadcast?: unknown }).broadcast, {
      expected: 1000, delivered_once: 980, duplicated: 20, missing: 0, corrupted: 0, to_sender: 0, receivers_not_joined: 0,
    });

    // A faithful echo is measured beside the broken ones, and so is a faithful broadcast.
    for (const key of ["echo/duplicates-broadcasts", "broadcast/corrupts-under-load"]) {
      const healthy = docs.get(key)!;
      assert.equal(healthy.status, "ok", `${key}: ${healthy.error}`);
      assert.equal(healthy.metrics.success_rate!.median, 1);
      assert.ok(healthy.metrics.messages_per_s!.median > 0);
    }
    assert.equal((await bench(["validate", out])).code, 0);
    assert.deepEqual(commandsUnder(join(FIXTURE_APPS, "websocket")), [], "no server outlives the harness");
  });
});
