import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { cellTrialTimeout, TRIAL_TIMEOUT_FACTOR, TRIAL_TIMEOUT_FLOOR_S, trialTimeout, trialTimeoutFloor, withinTimeout } from "../../src/orchestrate/timeout.ts";
import type { ParamValue } from "../../src/core/params.ts";
import type { IdentifiedRuntime } from "../../src/runtimes/identify.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";
import { UserError } from "../../src/core/errors.ts";
import { runCommand } from "../../src/process/children.ts";
import { TrialFailure } from "../../src/suites/suite.ts";

interface Hung {
  ran_s: number;
  timeout_s: number;
  processes: { pid: number; command: string; state: string; cpu_s: number; threads: { name: string }[] }[];
}

/** Runs a trial that never ends under a timeout computed from a check of `checkS` with a floor of 1 s; returns its failure. */
async function hang(command: string, args: string[], checkS: number): Promise<{ failure: TrialFailure; elapsedS: number; timeoutS: number }> {
  const timeout = trialTimeout(checkS, null, 1);
  const started = performance.now();
  const failure = await withinTimeout(timeout, () => runCommand(command, args)).then(
    () => assert.fail("a trial that never ends must fail"),
    (error: unknown) => error,
  );
  assert.ok(failure instanceof TrialFailure, String(failure));
  return { failure, elapsedS: (performance.now() - started) / 1000, timeoutS: timeout.seconds };
}

describe("a trial's timeout follows from its cell's check", () => {
  it("is a generous multiple of the check or of the estimated trial, never under the floor", () => {
    assert.equal(trialTimeout(0.2, null).seconds, TRIAL_TIMEOUT_FLOOR_S);
    assert.match(trialTimeout(0.2, null).basis, /floor/);
    assert.equal(trialTimeout(10, null).seconds, 10 * TRIAL_TIMEOUT_FACTOR);
    assert.match(trialTimeout(10, 1).basis, /the check's 10\.0 s/);
    assert.equal(trialTimeout(0.5, 30).seconds, 30 * TRIAL_TIMEOUT_FACTOR);
    assert.match(trialTimeout(0.5, 30).basis, /estimated 30\.0 s of a trial/);
  });

  it("prices a cell's trial at its own load point, without the counting pass that runs once", () => {
    const node = { identity: { name: "node" } } as IdentifiedRuntime;
    const timeoutAt = (name: string, params: Record<string, ParamValue>, floorS = TRIAL_TIMEOUT_FLOOR_S) => {
      const [selected] = resolveScenarios(selectScenarios({ suites: [], scenarios: [name] }), "quick");
      return cellTrialTimeout({ selected: selected!, runtime: node, options: selected!.suite.parseOptions?.({}) ?? {}, params }, 0, floorS);
    };
    const message = (size: number) => ({ payload: "string", size, batch: 64, transfer: false });
    // 1 MiB messages take several times a 1 KiB one: above the floor where the scenario's average is not.
    const large = timeoutAt("workers/throughput", message(1_048_576));
    assert.ok(large.seconds > TRIAL_TIMEOUT_FLOOR_S, `${large.seconds} s`);
    assert.match(large.basis, /estimated \d+\.\d s of a trial/);
    assert.equal(timeoutAt("workers/throughput", message(1024)).seconds, TRIAL_TIMEOUT_FLOOR_S);
    // round-trip's first load point is also counted (syscalls), once per cell: its trials take no longer for it.
    const roundTrip = (batch: number, payload: string) => timeoutAt("workers/round-trip", { batch, payload }, 1);
    assert.deepEqual(roundTrip(1, "number"), roundTrip(1, "string"));
    assert.ok(roundTrip(100, "string").seconds > roundTrip(1, "string").seconds);
  });

  it("takes its floor from RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR, whole seconds, and refuses anything else", () => {
    assert.equal(trialTimeoutFloor({}), TRIAL_TIMEOUT_FLOOR_S);
    assert.equal(trialTimeoutFloor({ RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR: "" }), TRIAL_TIMEOUT_FLOOR_S);
    assert.equal(trialTimeoutFloor({ RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR: "15" }), 15);
    for (const bad of ["0", "-5", "1.5", "15s", "x"]) {
      assert.throws(
        () => trialTimeoutFloor({ RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR: bad }),
        (error: unknown) => error instanceof UserError && error.message === `RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR: '${bad}' is not a whole number of seconds (use e.g. 60)`,
      );
    }
  });

  it("fails a trial that busy-loops as hung within its timeout, naming the process, its state and CPU time, and kills it", async () => {
    const { failure, elapsedS, timeoutS } = await hang(process.execPath, ["-e", "for (;;) {}"], 0.1);
    assert.equal(timeoutS, 2, "20 × a check of 0.1 s");
    assert.ok(elapsedS >= timeoutS && elapsedS < timeoutS + 5, `failed after ${elapsedS} s`);
    assert.match(failure.message, /^hung: ran \d+\.\d s, past its 2 s timeout \(20 × the check's 0\.1 s\); .*for \(;;\) \{\} \(pid \d+\) in state R, \d+\.\d\d s CPU/);
    const hung = failure.details!.hung as Hung;
    assert.equal(hung.timeout_s, 2);
    assert.equal(hung.processes.length, 1);
    assert.ok(hung.processes[0]!.cpu_s > 0, "a busy loop used CPU");
    assert.match(failure.message, /\(threads: node R \d+\.\d\d s/, "the spinning thread comes first");
    const pid = hung.processes[0]!.pid;
    assert.ok(!existsSync(`/proc/${pid}`) || !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("for (;;)"), "the hung process is killed");
  });

  it("tells a process that waits from one that spins: a sleeping process is in state S with no CPU", async () => {
    const { failure } = await hang("sleep", ["1000"], 0);
    const hung = failure.details!.hung as Hung;
    assert.deepEqual(
      hung.processes.map((p) => [p.command, p.state, p.cpu_s]),
      [["sleep 1000", "S", 0]],
    );
    assert.match(failure.message, /the floor: its check took 0\.0 s/);
  });
});
