import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { parseReport, runInProcessTrial, type InProcessInput, type InProcessOutcome } from "../../src/tools/in-process.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

// The machine's node runs the fixture: the protocol module is the same file on every runtime.
const fixture = join(REPO_ROOT, "tests/fixtures/inprocess/modes.js");
const scratch = tempDir("in-process");
after(() => rmSync(scratch, { recursive: true, force: true }));

function trial(params: Record<string, unknown>, extra: { expectedDigest?: string; warmup?: number; iterations?: number; steady?: InProcessInput["steady"] } = {}): Promise<InProcessOutcome> {
  const workDir = mkdtempSync(join(scratch, "work-"));
  return runInProcessTrial({
    argv: [process.execPath, fixture],
    cwd: REPO_ROOT,
    env: process.env,
    input: { params, workDir, warmup: extra.warmup ?? 2, iterations: extra.iterations ?? 3, ...(extra.steady ? { steady: extra.steady } : {}) },
    scratchDir: scratch,
    timeoutMs: 30_000,
    expectedDigest: extra.expectedDigest,
  });
}

test("a trial verifies once, warms up, then times each measured iteration; console noise does not reach the report", async () => {
  const outcome = await trial({ mode: "ok" }, { expectedDigest: "operations=1" });
  assert.ok(outcome.ok, outcome.ok ? "" : outcome.error);
  assert.equal(outcome.report.digest, "operations=1", "the digest comes from the verification run, before any warm-up");
  assert.deepEqual(outcome.report.samples.operation, [4, 5, 6], "extra samples come from measured iterations only, after 1 verification and 2 warm-up runs");
  assert.equal(outcome.report.samples.wall_ms?.length, 3);
  assert.ok(outcome.report.samples.wall_ms!.every((ms) => ms >= 2), "each iteration's time covers its operation");
  assert.deepEqual([outcome.report.counts, outcome.report.steady], [{ warmup: 2, iterations: 3 }, null]);
  assert.ok(outcome.usage.peakRssMb > 5 && outcome.usage.cpuS > 0, JSON.stringify(outcome.usage));
  const { instructions } = outcome.usage;
  assert.ok("value" in instructions ? instructions.value > 0 : /perf/.test(instructions.unavailable), JSON.stringify(instructions));
  assert.deepEqual(readdirSync(scratch).filter((name) => name.startsWith(".")), [], "report and usage files are removed");
});

test("teardown runs and an open handle does not keep the process alive", async () => {
  const workDir = mkdtempSync(join(scratch, "work-"));
  const outcome = await runInProcessTrial({
    argv: [process.execPath, fixture],
    cwd: REPO_ROOT,
    env: process.env,
    input: { params: { mode: "ok" }, workDir, warmup: 0, iterations: 1 },
    scratchDir: scratch,
    timeoutMs: 10_000,
  });
  assert.ok(outcome.ok, outcome.ok ? "" : outcome.error);
  assert.equal(readFileSync(join(workDir, "teardown"), "utf8"), "2");
});

test("a digest other than the harness's is a failure naming both", async () => {
  const outcome = await trial({ mode: "ok" }, { expectedDigest: "operations=7" });
  assert.ok(!outcome.ok);
  assert.match(outcome.error, /reported digest operations=1, expected operations=7/);
});

test("an exception in the app is an error report with its message, and the stack in stderr", async () => {
  const outcome = await trial({ mode: "throw", failAt: 3 });
  assert.ok(!outcome.ok);
  assert.match(outcome.error, /^the app failed: broke at operation 3/);
  assert.match(outcome.stderr, /Error: broke at operation 3/);
  const badDigest = await trial({ mode: "bad-digest" });
  assert.ok(!badDigest.ok);
  assert.match(badDigest.error, /digest\(\) returned number, not a string/);
});

test("a crash is a failure with the tail of stderr", async () => {
  const outcome = await trial({ mode: "crash", failAt: 5 });
  assert.ok(!outcome.ok);
  assert.match(outcome.error, /^crashed \(exit .*\) without a report/);
  assert.match(outcome.error, /fixture: about to crash/);
});

test("a process that exits 0 without a report is a failure", async () => {
  const outcome = await trial({ mode: "no-report" });
  assert.ok(!outcome.ok);
  assert.match(outcome.error, /exited without writing a report/);
});

test("a timeout kills the process and says so", async () => {
  const workDir = mkdtempSync(join(scratch, "work-"));
  const outcome = await runInProcessTrial({
    argv: [process.execPath, "-e", "setInterval(() => {}, 1000)"],
    cwd: REPO_ROOT,
    env: process.env,
    input: { params: {}, workDir, warmup: 0, iterations: 1 },
    scratchDir: scratch,
    timeoutMs: 500,
  });
  assert.ok(!outcome.ok);
  assert.match(outcome.error, /timed out after 0.5 s/);
});

test("warms up until the iterations' times are steady, or measures at the cap and says it never became steady", async () => {
  // Wide enough that another process taking the CPU for a moment does not keep 6 ms spins apart.
  const steady = { block: 2, tolerance: 0.5 };
  // The verification run is the 20 ms one; warm-up runs take 15, 10, then 6 ms: steady at the fifth on a quiet machine, and
  // never before two blocks.
  const warmed = await trial({ mode: "warming" }, { warmup: 30, iterations: 3, steady });
  assert.ok(warmed.ok, warmed.ok ? "" : warmed.error);
  const { warmup } = warmed.report.counts;
  assert.ok(warmed.report.steady === true && warmup >= 4 && warmup < 30, `steady after ${warmup} warm-up iterations, below the cap of 30`);
  assert.deepEqual(warmed.report.samples.operation, [warmup + 2, warmup + 3, warmup + 4], "measured right after the warm-up");
  const capped = await trial({ mode: "warming" }, { warmup: 3, iterations: 2, steady });
  assert.ok(capped.ok, capped.ok ? "" : capped.error);
  assert.deepEqual([capped.report.counts, capped.report.steady], [{ warmup: 3, iterations: 2 }, false]);
});

test("a report that does not answer the input is rejected with what is wrong", () => {
  const input = { params: {}, workDir: "/w", warmup: 1, iterations: 2 };
  const good = { digest: "d", samples: { wall_ms: [1, 2] }, counts: { warmup: 1, iterations: 2 } };
  assert.deepEqual(parseReport(JSON.stringify(good), input), { ...good, steady: null });
  const untilSteady = { ...input, warmup: 10, steady: { block: 2, tolerance: 0.1 } };
  assert.deepEqual(parseReport(JSON.stringify({ ...good, counts: { warmup: 4, iterations: 2 }, steady: true }), untilSteady), { ...good, counts: { warmup: 4, iterations: 2 }, steady: true });
  assert.match((parseReport(JSON.stringify({ ...good, counts: { warmup: 11, iterations: 2 } }), untilSteady) as { error: string }).error, /at most 10 warm-up/);
  assert.match((parseReport("operation 1", input) as { error: string }).error, /not JSON/);
  assert.match((parseReport(JSON.stringify({ ...good, samples: { wall_ms: [1] } }), input) as { error: string }).error, /1 wall_ms samples for 2 iterations/);
  assert.match((parseReport(JSON.stringify({ ...good, samples: { wall_ms: [1, 2], x: [null] } }), input) as { error: string }).error, /samples.x/);
  assert.match((parseReport(JSON.stringify({ ...good, counts: { warmup: 0, iterations: 2 } }), input) as { error: string }).error, /counts/);
  assert.match((parseReport(JSON.stringify({ samples: good.samples, counts: good.counts }), input) as { error: string }).error, /no digest/);
});
