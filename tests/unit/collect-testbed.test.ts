import { declaredMetrics } from "../../src/cli/commands/validate.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { artifactName, collectResults, type CollectTrust, type PlanJob } from "../../src/collect/collect.ts";
import { sideBySideJob } from "../../src/history/stage.ts";
import type { RuntimeName } from "../../src/runtimes/catalog.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import type { MatrixEntry } from "../../src/releases/matrix.ts";
import { chooseTestbed, cpuModelMatches, loadBenchConfig, loadBenchMachines } from "../../src/releases/runners.ts";
import { writeResult } from "../../src/results/store.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

const FIXTURE = join(REPO_ROOT, "tests/fixtures/bench-runners.json");
const UNMET = ["no isolated CPUs (want isolcpus= on the kernel command line)", "load average is 1.20 (want at most 0.5: nothing else running)"];
const MACHINE = { isolated_cpus: "", nohz_full_cpus: null, aslr: 2, load_average: [1.2, 1, 0.9] as [number, number, number], memory_available_bytes: 8e9, swap_total_bytes: 0, swap_used_bytes: 0, perf_counters: { readable: true as const }, unmet: UNMET };

const runAt = (id: string) => ({ id, started_at: `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(9, 11)}:${id.slice(11, 13)}:${id.slice(13, 15)}.000Z` });

/** A result of the fixture's reference testbed, untuned as such a machine is. */
const onTestbed = (version: string, overrides: { cpu?: string; kind?: "reference" | "dedicated"; arch?: "x86_64" | "arm64"; id?: string; runtime?: RuntimeName } = {}) =>
  makeResult({
    // A run's id starts with the time it started (collect checks it).
    run: { runner: "reference-x64", runner_kind: overrides.kind ?? "reference", ...runAt(overrides.id ?? "20261101T000000Z-c0ffee") },
    environment: { cpu_model: overrides.cpu ?? "AMD EPYC 7763 64-Core Processor", governor: null, turbo: null, smt: "notsupported", arch: overrides.arch ?? "x86_64", machine: MACHINE },
    runtime: { name: overrides.runtime ?? "node", version, spec: `${overrides.runtime ?? "node"}@${version}` },
  });

/** A sweep's link as collect's plan holds it: the newer release, and the one before it in the selection. */
const LINK: MatrixEntry = { runtime: "node", version: "22.12.0", predecessor: "22.11.0", runner: "reference-x64", arch: "x86_64", labels: [], suites: "startup", scenarios: "startup/hello", apps: "", channel: "release" };
const trust = (): CollectTrust => ({ runners: loadBenchMachines(FIXTURE), declared: declaredMetrics(), plan: { call: "sweep", jobs: [LINK] } });

async function collectOne(docs: ReturnType<typeof makeResult>[], job: PlanJob = LINK) {
  const artifacts = tempDir("artifacts");
  const files: string[] = [];
  for (const doc of docs) files.push(await writeResult(join(artifacts, artifactName("sweep", job)), doc));
  return { files, outcome: await collectResults([artifacts], tempDir("data"), { ...trust(), plan: { call: "sweep", jobs: [job] } }) };
}

describe("a reference testbed in .github/bench-runners.json", () => {
  it("is declared apart from the dedicated runners, with its kind, CPU models and description", () => {
    const config = loadBenchConfig();
    assert.ok(config.runners.every((runner) => !("kind" in runner)), "no workflow job is planned on a testbed");
    const testbed = chooseTestbed(config.testbeds, undefined);
    assert.equal(testbed.kind, "reference");
    assert.equal(testbed.arch, "x86_64");
    assert.match(testbed.description, /shared/);
    assert.match(testbed.description, /paired steps/);
    assert.ok(cpuModelMatches("AMD EPYC", testbed.cpu_models), "what this machine reported");
    assert.ok(cpuModelMatches("Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz", testbed.cpu_models), "the other family it has reported");
    assert.throws(() => chooseTestbed(config.testbeds, "nope"), /unknown reference testbed 'nope': \.github\/bench-runners\.json declares reference-x64-2vcpu/);
  });

  it("matches CPU families by their start, ignoring case and the (R) and (TM) marks", () => {
    assert.ok(cpuModelMatches("Intel(R) Xeon(R) Processor", ["Intel Xeon"]));
    assert.ok(cpuModelMatches("amd epyc 9B14", ["AMD EPYC"]));
    assert.ok(!cpuModelMatches("AMD EPYCX", ["AMD EPYC"]), "a family is whole words");
    assert.ok(!cpuModelMatches("Intel(R) Core(TM) i7-8700", ["Intel Xeon", "AMD EPYC"]));
  });
});

describe("collecting a reference testbed's results", () => {
  it("publishes a link's two releases measured there, untuned as the testbed is declared", async () => {
    const { outcome } = await collectOne([onTestbed("22.11.0"), onTestbed("22.12.0", { cpu: "Intel(R) Xeon(R) Processor", id: "20261102T000000Z-c0ffee" })]);
    assert.deepEqual(outcome.problems, []);
    assert.equal(outcome.added.length, 2);
  });

  it("refuses a CPU it does not declare, another architecture, a version outside the link and a result that hides its kind", async () => {
    const [cpu, arch, version, kind] = [
      onTestbed("22.11.0", { cpu: "Intel(R) Core(TM) i7-8700", id: "20261101T000000Z-c0ffe1" }),
      onTestbed("22.12.0", { arch: "arm64", id: "20261101T000000Z-c0ffe2" }),
      onTestbed("22.10.0"),
      onTestbed("22.11.0", { kind: "dedicated", id: "20261101T000000Z-c0ffe3" }),
    ];
    const { files, outcome } = await collectOne([cpu, arch, version, kind]);
    const expected = [
      `${files[0]}: reports CPU model 'Intel(R) Core(TM) i7-8700', which is none of reference-x64's CPU models (AMD EPYC, Intel Xeon; .github/bench-runners.json)`,
      `${files[1]}: claims architecture arm64, but reference-x64 is x86_64 (.github/bench-runners.json)`,
      `${files[2]}: claims node 22.10.0, but its job measured node 22.12.0 and 22.11.0`,
      `${files[3]}: claims a dedicated runner, but reference-x64 is a reference testbed (.github/bench-runners.json)`,
    ];
    for (const problem of expected) assert.ok(outcome.problems.includes(problem), `${problem}\nnot in\n${outcome.problems.join("\n")}`);
    assert.deepEqual(outcome.added, []);
  });

  it("publishes a side-by-side run's releases of several runtimes, and refuses any other release", async () => {
    const releases = [
      { runtime: "node", version: "26.12.1" },
      { runtime: "deno", version: "2.9.6" },
      { runtime: "bun", version: "1.4.5" },
    ] as const;
    const testbed = chooseTestbed(loadBenchConfig(FIXTURE).testbeds, undefined);
    const job = sideBySideJob(releases, testbed, ["startup/hello"]);
    assert.equal(artifactName("sweep", job), "results-sweep-reference-x64-node-26.12.1-deno-2.9.6-bun-1.4.5");
    const measured = releases.map((r) => onTestbed(r.version, { runtime: r.runtime }));
    const accepted = await collectOne(measured, job);
    assert.deepEqual(accepted.outcome.problems, []);
    assert.equal(accepted.outcome.added.length, 3);

    const { files, outcome } = await collectOne([onTestbed("2.9.5", { runtime: "deno" }), onTestbed("26.12.0")], job);
    assert.deepEqual(outcome.problems.sort(), [
      `${files[0]}: claims deno 2.9.5, but its job measured node 26.12.1, deno 2.9.6, bun 1.4.5`,
      `${files[1]}: claims node 26.12.0, but its job measured node 26.12.1, deno 2.9.6, bun 1.4.5`,
    ].sort());
  });

  it("refuses a job of several runtimes on a dedicated runner, whose jobs each measure one", async () => {
    const testbed = chooseTestbed(loadBenchConfig(FIXTURE).testbeds, undefined);
    const job = { ...sideBySideJob([{ runtime: "node", version: "26.12.1" }, { runtime: "bun", version: "1.4.5" }], testbed, ["startup/hello"]), runner: "bench-x64-1" };
    const artifacts = tempDir("artifacts");
    const file = await writeResult(join(artifacts, artifactName("sweep", job)), makeResult({ run: { id: "20261101T000000Z-c0ffe5" }, runtime: { name: "bun", version: "1.4.5", spec: "bun@1.4.5" } }));
    const outcome = await collectResults([artifacts], tempDir("data"), { ...trust(), plan: { call: "sweep", jobs: [job] } });
    assert.deepEqual(outcome.problems, [`${file}: is in a job of several runtimes (node 26.12.1, bun 1.4.5), which only a reference testbed's sweep runs, not bench-x64-1`]);
  });

  it("refuses a testbed's claim from a dedicated runner's name, and keeps refusing untuned dedicated results", async () => {
    const artifacts = tempDir("artifacts");
    const claimed = makeResult({ run: { runner_kind: "reference" } });
    const untuned = makeResult({ run: { id: "20261101T000000Z-c0ffe4" }, environment: { machine: MACHINE } });
    const [first, second] = [await writeResult(artifacts, claimed), await writeResult(artifacts, untuned)];
    const outcome = await collectResults([artifacts], tempDir("data"), { runners: loadBenchMachines(FIXTURE), declared: declaredMetrics() });
    assert.deepEqual(outcome.problems.sort(), [
      `${first}: claims a reference testbed, but bench-x64-1 is a dedicated runner (.github/bench-runners.json)`,
      `${second}: measured on a machine not tuned for benchmarking (docs/machine-tuning.md): ${UNMET.join("; ")}`,
    ].sort());
  });
});
