import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { commandsUnder } from "../helpers/processes.ts";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";

// Fixture apps live outside apps/http so that no default run ever measures them.
const FIXTURE_APPS = join(REPO_ROOT, "tests/fixtures/apps");
const env = { RUNTIME_BENCH_APPS_DIR: FIXTURE_APPS };


describe("http suite: broken apps, crashes and interrupts", () => {
  it("fails a wrong body at verification with the difference, never measures it, records a crash or a hang mid-run, and goes on", async () => {
    const out = tempDir("http-broken");
    // Smoke: each broken app fails in its one trial, and the healthy one shows the run went on.
    const result = await bench(["run", "--suite", "http", "--scenario", "json", "--runtime", "node@22.11.0", "--profile", "smoke", "--out", out], env);
    assert.equal(result.code, 1, "a failed result makes the run exit 1");
    const docs = new Map(readResults([out]).map((r) => [r.doc.app, r.doc]));

    const broken = docs.get("broken-body")!;
    assert.equal(broken.status, "failed");
    assert.equal(broken.verification?.status, "failed");
    assert.match(broken.error!, /verification failed: GET \/json: JSON body differs at \/message: expected "Hello, World!", got "Hello, Wordl!"/);
    assert.deepEqual(broken.metrics, {}, "a failed app is never measured, so never published as 0");
    const failures = broken.verification!.failures as { request: string; problem: string }[];
    assert.equal(failures[0]?.request, "GET /json");

    const rejecting = docs.get("rejects-with-reason")!;
    assert.equal(rejecting.status, "failed");
    assert.match(rejecting.error!, /GET \/json: status 400, expected 200, body "ReferenceError: Buffer is not defined at parseBody/, "the reason the server gave is in the one line");
    const rejected = rejecting.verification!.failures as { body_start?: string }[];
    assert.match(rejected[0]?.body_start ?? "", /^ReferenceError: Buffer is not defined\n    at parseBody/, "the result keeps the start of the body");

    const crashed = docs.get("crashes-under-load")!;
    assert.equal(crashed.status, "failed");
    assert.equal(crashed.verification?.status, "passed", "it passed verification before the load killed it");
    assert.match(crashed.error!, /trial 1: server exited with code 3 during (warmup|throughput|fixed-rate)/);
    assert.match(String(crashed.details?.server_stderr), /crashing on purpose after 300 requests/);

    const hung = docs.get("hangs-under-load")!;
    assert.equal(hung.status, "failed");
    // Which phase reaches the hang depends on how fast the machine answers: any of them must catch it.
    const phase = /trial 1: (warmup|throughput|fixed-rate): \d+ of \d+ requests answered 200/.exec(hung.error!)?.[1];
    assert.ok(phase, hung.error);
    assert.ok(Object.keys(hung.details?.[`${phase}_unexpected`] as object).length > 0, "oha's errors are kept");

    const healthy = docs.get("hello")!;
    assert.equal(healthy.status, "ok", `the suite went on after the crash: ${healthy.error}`);
    assert.ok(healthy.metrics.rps!.median > 0);

    assert.equal((await bench(["validate", out])).code, 0);
    assert.deepEqual(commandsUnder(FIXTURE_APPS), [], "no server outlives the harness");
  });

  it("stops the server's whole process tree on Ctrl-C and keeps what was measured", async () => {
    const out = tempDir("http-interrupt");
    const running = startBench(["run", "--suite", "http", "--scenario", "json", "--app", "hello", "--runtime", "node@22.11.0", "--out", out], env);
    await running.waitFor("trial 2/2");
    await new Promise((resolve) => setTimeout(resolve, 500)); // the second trial's server and oha are running
    assert.ok(commandsUnder(FIXTURE_APPS).length > 0, "the server runs while we interrupt");
    running.child.kill("SIGINT");
    assert.equal(await running.exited, 130, running.stderr());
    const [saved] = readResults([out]);
    assert.equal(saved?.doc.status, "failed");
    assert.match(saved!.doc.error!, /interrupted after 1 of 2 trials/);
    assert.equal(saved!.doc.metrics.rps?.samples.length, 1, "the finished trial is kept");
    assert.deepEqual(commandsUnder(FIXTURE_APPS), [], "no server outlives the harness");
  });
});
