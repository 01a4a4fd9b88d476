import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { ownTempDir as tempDir } from "../helpers/temp.ts";
import { collectResults, type CollectTrust } from "../../src/collect/collect.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { loadBenchRunners } from "../../src/releases/runners.ts";
import { checkAgainst } from "../../src/core/schema.ts";
import { readEnvironment } from "../../src/env/fingerprint.ts";
import { checkMachine, describeMachine, meminfoBytes, parseMaxLoad, unmetSettings, waitForQuiet, type MachineCheck, type MachineReadings } from "../../src/env/machine-check.ts";
import { writeResult } from "../../src/results/store.ts";
import { allScenarios } from "../../src/cli/site-inputs.ts";
import { buildSite } from "../../src/site/build.ts";
import { declaredMetrics } from "../../src/cli/commands/validate.ts";

const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").trim() : null);

test("the machine check on this machine records each setting as the kernel reports it", async () => {
  const environment = readEnvironment();
  const check = await checkMachine(environment);
  const meminfo = readFileSync("/proc/meminfo", "utf8");

  assert.equal(check.isolated_cpus, read("/sys/devices/system/cpu/isolated") ?? "");
  const nohz = read("/sys/devices/system/cpu/nohz_full");
  assert.equal(check.nohz_full_cpus, nohz === null || nohz === "(null)" ? null : nohz);
  assert.equal(check.aslr, Number(read("/proc/sys/kernel/randomize_va_space")));
  assert.equal(check.load_average.length, 3);
  assert.ok(check.load_average.every((load) => load >= 0));
  assert.ok(check.memory_available_bytes! > 0 && check.memory_available_bytes! <= totalmem());
  assert.equal(check.swap_total_bytes, meminfoBytes(meminfo, "SwapTotal"));
  assert.ok(check.swap_used_bytes! >= 0 && check.swap_used_bytes! <= check.swap_total_bytes!);
  const pmu = ["cpu", "cpu_core", "armv8_pmuv3_0"].some((name) => existsSync(join("/sys/bus/event_source/devices", name)));
  if (pmu) assert.deepEqual(check.perf_counters, { readable: true });
  else assert.ok(!check.perf_counters.readable && /<not supported>|not installed/.test(check.perf_counters.reason), JSON.stringify(check.perf_counters));

  // What this machine lacks is named; what it has is not.
  const named = (pattern: RegExp) => check.unmet.some((line) => pattern.test(line));
  assert.equal(named(/^ASLR is/), check.aslr !== 0);
  assert.equal(named(/^no isolated CPUs/), check.isolated_cpus === "");
  assert.equal(named(/^CPU governor/), environment.governor !== null && environment.governor !== "performance");
  assert.equal(named(/^turbo/), environment.turbo === "on");
  assert.equal(named(/^load average/), check.load_average[0] > 0.5);

  const doc = makeResult({ environment: { ...environment, machine: check } });
  assert.deepEqual(checkAgainst("result.schema.json", doc), [], "validate accepts the check");
  const printed = describeMachine(environment, check);
  for (const setting of ["governor", "turbo", "SMT", "isolated CPUs", "nohz_full", "ASLR", "load", "memory available", "swap used", "perf counters"]) {
    assert.ok(printed.includes(`${setting} `), `the printed check names ${setting}`);
  }
});

test("the machine check judges the load its caller read before the run's own work, not the load now", async () => {
  const environment = readEnvironment();
  const quiet = await checkMachine(environment, [0.12, 0.3, 0.4]);
  assert.deepEqual(quiet.load_average, [0.12, 0.3, 0.4]);
  assert.ok(!quiet.unmet.some((line) => line.startsWith("load average")), quiet.unmet.join("; "));
  const busy = await checkMachine(environment, [1.07, 0.3, 0.4]);
  assert.ok(busy.unmet.includes("load average is 1.07 (want at most 0.5: nothing else running)"), busy.unmet.join("; "));
});

const TUNED: MachineReadings = {
  governor: "performance",
  turbo: "off",
  smt: "off",
  cpus: 8,
  isolated: [2, 3, 4, 5, 6, 7],
  nohzFull: [2, 3, 4, 5, 6, 7],
  aslr: 0,
  loadAverage: [0.02, 0.05, 0.1],
  memoryAvailableBytes: 12 * 1024 ** 3,
  swapUsedBytes: 0,
};

test("a tuned machine meets every setting; an untuned one is told each setting to change", () => {
  assert.deepEqual(unmetSettings(TUNED), []);
  // A machine without cpufreq (a VM) or without turbo control has nothing to set there.
  assert.deepEqual(unmetSettings({ ...TUNED, governor: null, turbo: null, smt: "notsupported" }), []);
  assert.deepEqual(
    unmetSettings({
      ...TUNED,
      governor: "powersave",
      turbo: "on",
      smt: "on",
      nohzFull: [2, 3],
      aslr: 2,
      loadAverage: [1.5, 1, 1],
      memoryAvailableBytes: 1024 ** 3,
      swapUsedBytes: 300 * 1024 ** 2,
    }),
    [
      "CPU governor is powersave (want performance)",
      "turbo/boost is on (want off)",
      "SMT is on (want off)",
      "isolated CPUs 4-7 are not nohz_full (want nohz_full= to match isolcpus=)",
      "ASLR is 2 (want kernel.randomize_va_space = 0)",
      "load average is 1.50 (want at most 0.5: nothing else running)",
      "1.0 GiB of memory available (want at least 2 GiB)",
      "300 MiB of swap in use (want none: swapoff -a)",
    ],
  );
  assert.deepEqual(unmetSettings({ ...TUNED, isolated: [], nohzFull: null }), ["no isolated CPUs (want isolcpus= on the kernel command line)"]);
});

test("collect refuses to publish a dedicated runner's result from an untuned machine, naming each setting", async () => {
  const machine: MachineCheck = {
    isolated_cpus: "2-7",
    nohz_full_cpus: "2-7",
    aslr: 2,
    load_average: [0.1, 0.1, 0.1],
    memory_available_bytes: 8e9,
    swap_total_bytes: 0,
    swap_used_bytes: 0,
    perf_counters: { readable: false, reason: "perf reports instructions <not supported>" },
    unmet: ["ASLR is 2 (want kernel.randomize_va_space = 0)", "turbo/boost is on (want off)"],
  };
  const artifacts = tempDir("artifacts");
  const data = tempDir("data");
  await writeResult(join(artifacts, "untuned"), makeResult({ environment: { machine } }));
  // The fixture's runners, whose fingerprint is the one a made result carries: only the machine's settings differ.
  const runners: CollectTrust = { runners: loadBenchRunners(join(REPO_ROOT, "tests/fixtures/bench-runners.json")), declared: declaredMetrics(), now: new Date("2026-11-02T00:00:00Z") };
  const refused = await collectResults([artifacts], data, runners);
  assert.deepEqual(refused.added, []);
  assert.match(refused.problems.join("\n"), /not tuned for benchmarking \(docs\/machine-tuning\.md\): ASLR is 2 .*; turbo\/boost is on/);
  const waived = await collectResults([artifacts], tempDir("data"), { ...runners, acceptUntuned: true });
  assert.deepEqual([waived.problems, waived.added.length], [[], 1], "scripts/act's machine, standing in for a benchmark machine, is waived");

  const tunedArtifacts = tempDir("artifacts");
  await writeResult(join(tunedArtifacts, "tuned"), makeResult({ environment: { machine: { ...machine, aslr: 0, unmet: [] } } }));
  const published = await collectResults([tunedArtifacts], data, runners);
  assert.deepEqual(published.problems, []);
  assert.equal(published.added.length, 1);
});

test("the methodology page shows each testbed's settings as its latest run found them", async () => {
  const check = (aslr: number, unmet: string[]): MachineCheck => ({
    isolated_cpus: "2-7",
    nohz_full_cpus: "2-7",
    aslr,
    load_average: [0.05, 0.1, 0.2],
    memory_available_bytes: 8e9,
    swap_total_bytes: 0,
    swap_used_bytes: 0,
    perf_counters: { readable: true },
    unmet,
  });
  const dataDir = tempDir("site-machine");
  const result = (day: string, machine: MachineCheck) =>
    makeResult({ run: { id: `202611${day}T000000Z-abcdef`, started_at: `2026-11-${day}T00:00:00.000Z` }, environment: { machine } });
  await writeResult(dataDir, result("02", check(0, [])));
  await writeResult(dataDir, result("01", check(2, ["ASLR is 2 (want kernel.randomize_va_space = 0)"])));
  const out = tempDir("site-machine-out");
  await buildSite({ dataDir, outDir: out, scenarios: allScenarios(), pools: new Map() });
  const page = readFileSync(join(out, "methodology.html"), "utf8");
  assert.match(page, /Machine check<\/dt><dd>isolated CPUs 2-7; nohz_full 2-7; ASLR 0; swap in use 0\.0 GiB; load 0\.05 0\.1 0\.2; hardware counters readable\. <strong>meets docs\/machine-tuning\.md<\/strong> <span class="muted">\(run of 2026-11-02\)/);
});

test("waitForQuiet waits out a busy machine, says why once a minute, and gives up when told to", async () => {
  let clock = 0;
  const loads = [2.5, 2.5, ...Array<number>(119).fill(1.4), 1, 0.9];
  const said: string[] = [];
  const wait = (stop: () => string | null) => ({
    load: () => loads.shift() ?? 0,
    now: () => clock,
    sleep: async (ms: number) => void (clock += ms),
    log: (line: string) => void said.push(line),
    stop,
  });
  assert.equal(await waitForQuiet("known-changes", 1, wait(() => null)), null);
  assert.equal(loads.length, 0, "it reads the load until it falls below the limit: at the limit it waits");
  assert.equal(said.length, 3, "one line a minute over two minutes of waiting");
  assert.match(said[0]!, /^known-changes: waiting: the load average is 2\.50, not below 1 \(--max-load\)/);
  loads.push(3, 3, 3);
  assert.equal(await waitForQuiet("sweep", 1, wait(() => (clock >= 2_000 + 122_000 ? "time limit" : null))), "time limit");
  assert.equal(await waitForQuiet("sweep", 5, wait(() => "interrupted")), null, "a quiet machine is not waited for, whatever stop says");
  assert.equal(parseMaxLoad("0.8", "known-changes"), 0.8);
  assert.throws(() => parseMaxLoad("-1", "known-changes"), /known-changes: --max-load must be a positive number, not '-1'/);
});
