/**
 * The arm64 smoke test: Node, Deno and Bun for linux-arm64, from the registry (integrity-checked
 * on download), identified and run under qemu-aarch64 on this x86_64 machine, through the harness's
 * own `run` with the `smoke` profile (one trial). Emulation says whether a runtime runs, never how
 * fast: the results say they were emulated, and `collect` and the site refuse them.
 */
import assert from "node:assert/strict";
import { openSync, readSync, closeSync } from "node:fs";
import { describe, it } from "node:test";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { collectResults } from "../../src/collect/collect.ts";
import { readResults } from "../../src/results/store.ts";
import { RUNTIMES, machineArch } from "../../src/runtimes/catalog.ts";
import { ARCH_VARIABLE, emulation, emulationProblem } from "../../src/runtimes/emulation.ts";
import { loadResults } from "../../src/site/load.ts";
import { declaredMetrics } from "../../src/cli/commands/validate.ts";
import { suitesWithFewestStarts } from "../helpers/fewest-starts.ts";

/** The ELF header's machine field: 0xb7 is AArch64. */
function elfMachine(path: string): number {
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(20);
    readSync(fd, header, 0, 20, 0);
    return header.readUInt16LE(18);
  } finally {
    closeSync(fd);
  }
}

const SMOKE_RUNTIMES = ["node@26.10.0", "deno@2.9.6", "bun@1.4.5"];
const ARM64 = { [ARCH_VARIABLE]: "arm64" };
// Emulation multiplies a start's cost: hello at its fewest starts (smoke runs the quick profile's parameters).
const FEWEST = { ...ARM64, RUNTIME_BENCH_SUITES_DIR: suitesWithFewestStarts(["startup/hello", "http/json"], "quick") };

describe("arm64 under qemu-user, as far as this machine takes it", () => {
  it("provisions the arm64 runtimes, identifies them and runs startup/hello and one http/json cell, recorded as emulated", async (t) => {
    assert.equal(machineArch(), "x86_64", "this test emulates arm64 on an x86_64 machine");
    const emulated = emulation(ARM64)!;
    const problem = emulationProblem(emulated);
    if (problem !== null) {
      // The harness says the same in one line (exit 2); the test fails with it rather than pass on nothing.
      const refused = await bench(["run", "--suite", "startup", "--scenario", "hello", "--runtime", SMOKE_RUNTIMES[0]!, "--profile", "smoke", "--out", tempDir("arm64-refused")], ARM64);
      assert.equal(refused.code, 2);
      assert.equal(refused.stderr.trim().split("\n").pop(), `runtime-bench: ${problem}`);
      assert.fail(problem);
    }
    const out = tempDir("arm64-smoke");
    const runtimes = SMOKE_RUNTIMES.flatMap((spec) => ["--runtime", spec]);
    const started = performance.now();
    const run = await bench(["run", "--suite", "startup", "--scenario", "hello", "--suite", "http", "--scenario", "json", "--app", "native", ...runtimes, "--profile", "smoke", "--out", out], FEWEST);
    t.diagnostic(`emulated smoke run: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);

    const docs = readResults([out]).map((r) => r.doc);
    assert.equal(docs.length, 6, "startup/hello and one http/json cell on each of the three runtimes");
    for (const doc of docs) {
      const where = `${doc.suite}/${doc.scenario} on ${doc.runtime.name}`;
      assert.equal(doc.status, "ok", `${where}: ${doc.error}`);
      assert.equal(doc.environment.arch, "arm64", where);
      assert.deepEqual(doc.environment.emulated, { emulator: "qemu-aarch64-static", host_arch: "x86_64" }, where);
      assert.equal(doc.run.profile, "smoke");
      assert.equal(doc.run.trials, 1);
      assert.equal(doc.runtime.package, RUNTIMES[doc.runtime.name].packageName("arm64"), `${where}: the arm64 package`);
      // The kernel's counts of an emulated process are the emulator's: unavailable with that reason, never 0.
      const uncounted = (doc.details?.counts_unavailable ?? {}) as Record<string, string>;
      const counts = doc.suite === "startup" ? ["syscalls", "minor_faults", "threads"] : ["syscalls_per_request", "server_threads"];
      for (const metric of counts) {
        assert.equal(doc.metrics[metric], undefined, `${where}: no ${metric}`);
        assert.match(uncounted[metric] ?? "", /^runs under qemu-aarch64-static: its counts would be the emulator's/, `${where}: ${metric}`);
      }
    }
    assert.deepEqual(new Set(docs.map((d) => `${d.runtime.name}@${d.runtime.version}`)), new Set(SMOKE_RUNTIMES));
    const http = docs.filter((d) => d.suite === "http");
    assert.ok(http.every((d) => d.app === "native" && d.metrics.rps!.median > 0), "each runtime served json under load");
    // The binaries run are arm64 ones, not this machine's.
    const provisioned = `${run.stdout}\n${run.stderr}`.split("\n").filter((l) => / from registry: /.test(l));
    assert.equal(provisioned.length, 3, "each runtime named with its binary");
    for (const line of provisioned) assert.equal(elfMachine(line.split(": ").pop()!.trim()), 0xb7, line);

    const collected = await collectResults([out], tempDir("arm64-collect"), { runners: [], declared: declaredMetrics() });
    assert.deepEqual(collected.added, []);
    const emulatedProblems = collected.problems.filter((problem) => /measured under qemu-aarch64-static \(arm64 on x86_64\): an emulated result .* never published/.test(problem));
    assert.equal(emulatedProblems.length, 6, "each result refused as emulated");
    const site = loadResults(out);
    assert.equal(site.results.length, 0, "the site draws no emulated figure");
    assert.equal(site.skipped.filter((s) => /emulated/.test(s)).length, 6);
  });
});
