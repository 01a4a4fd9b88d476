import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseRuntimeRequest, parseWindow } from "../../src/cli/commands/releases.ts";
import { findBenchmarked, type Benchmarked } from "../../src/releases/benchmarked.ts";
import { runtimeOfResultFile } from "../../src/results/store.ts";
import { MAX_MATRIX_JOBS, toBenchmarkCalls, toMatrix } from "../../src/releases/matrix.ts";
import type { Release } from "../../src/releases/published.ts";
import { chooseRunners, loadBenchRunners, type BenchRunner } from "../../src/releases/runners.ts";
import { releaseLine, selectBenchmarks, type RuntimeRequest, type SelectionInput, type Window } from "../../src/releases/select.ts";
import type { Arch, RuntimeName } from "../../src/runtimes/catalog.ts";
import { writeResult } from "../../src/results/store.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

const X64: BenchRunner = { name: "bench-x64-1", arch: "x86_64", labels: ["self-hosted", "linux", "x64", "bench-x64-1"] };
const ARM: BenchRunner = { name: "bench-arm64-1", arch: "arm64", labels: ["self-hosted", "linux", "arm64", "bench-arm64-1"] };

const release = (version: string, day: string): Release => ({ version, published: new Date(`${day}T12:00:00Z`) });

/** Node as a registry would list it, newest first; arm64 lags one release behind on the 24 line. */
const NODE_X64 = [
  release("26.1.0", "2026-10-20"),
  release("26.0.0", "2026-10-01"),
  release("26.0.0-rc.1", "2026-09-20"),
  release("24.5.0", "2026-10-10"),
  release("24.4.0", "2026-09-15"),
  release("22.10.0", "2026-10-22"),
  release("22.9.0", "2026-09-30"),
  release("20.19.0", "2026-03-01"),
];
const NODE_ARM = NODE_X64.filter((r) => r.version !== "24.5.0");
const BUN = [release("1.4.1", "2026-10-25"), release("1.4.0", "2026-10-05"), release("1.3.9", "2026-09-01"), release("1.2.20", "2026-06-01")];

function releasesOf(runtime: RuntimeName, arch: Arch): Release[] {
  if (runtime === "node") return arch === "arm64" ? NODE_ARM : NODE_X64;
  if (runtime === "bun") return BUN;
  return [];
}

function benchmarked(entries: Record<string, Partial<Record<RuntimeName, string[]>>>): Benchmarked {
  return new Map(
    Object.entries(entries).map(([runner, byRuntime]) => [
      runner,
      new Map(Object.entries(byRuntime).map(([runtime, versions]) => [runtime as RuntimeName, new Set(versions)])),
    ]),
  );
}

const SINCE_LAST: Window = { kind: "since-last-benchmark", fallbackLines: 2 };

function select(overrides: Partial<SelectionInput>): string[] {
  const selection = selectBenchmarks({
    runners: [X64, ARM],
    requests: [{ kind: "window", name: "node" }],
    releases: releasesOf,
    benchmarked: benchmarked({}),
    window: SINCE_LAST,
    prereleases: false,
    missingOnly: true,
    ...overrides,
  });
  return selection.planned.map((p) => `${p.runtime}@${p.version}@${p.runner.name}`);
}

describe("release lines", () => {
  it("are the major for node and major.minor for deno and bun", () => {
    assert.equal(releaseLine("node", "24.5.0"), "24");
    assert.equal(releaseLine("deno", "2.1.4"), "2.1");
    assert.equal(releaseLine("bun", "1.2.20"), "1.2");
  });
});

describe("choosing releases to benchmark", () => {
  it("starts an empty data folder with the newest release of the newest lines, per architecture", () => {
    assert.deepEqual(select({}), ["node@26.1.0@bench-x64-1", "node@26.1.0@bench-arm64-1", "node@24.5.0@bench-x64-1", "node@24.4.0@bench-arm64-1"]);
  });

  it("then lists only what was published after the newest release a runner has results for", () => {
    const done = benchmarked({ "bench-x64-1": { node: ["26.0.0", "24.4.0"] }, "bench-arm64-1": { node: ["26.1.0", "24.4.0"] } });
    assert.deepEqual(select({ benchmarked: done }), ["node@26.1.0@bench-x64-1", "node@24.5.0@bench-x64-1"]);
  });

  it("lists nothing once every runner has results for those releases: two watches in a row start nothing new", () => {
    const first = select({});
    const afterFirst = benchmarked({
      "bench-x64-1": { node: first.filter((e) => e.endsWith("x64-1")).map((e) => e.split("@")[1]!) },
      "bench-arm64-1": { node: first.filter((e) => e.endsWith("arm64-1")).map((e) => e.split("@")[1]!) },
    });
    assert.deepEqual(select({ benchmarked: afterFirst }), []);
  });

  it("follows the lines a runner has results for and newer ones, not a patch to an older line", () => {
    assert.deepEqual(select({ runners: [X64], benchmarked: benchmarked({ "bench-x64-1": { node: ["26.1.0", "24.5.0"] } }) }), []);
    assert.deepEqual(select({ runners: [X64], benchmarked: benchmarked({ "bench-x64-1": { node: ["26.1.0", "22.9.0"] } }) }), [
      "node@22.10.0@bench-x64-1",
    ]);
    assert.deepEqual(select({ runners: [X64], benchmarked: benchmarked({ "bench-x64-1": { node: ["22.9.0"] } }) }), [
      "node@26.1.0@bench-x64-1",
      "node@26.0.0@bench-x64-1",
      "node@24.5.0@bench-x64-1",
      "node@22.10.0@bench-x64-1",
    ]);
  });

  it("keeps a runner that lags behind on the list until it has results too", () => {
    const done = benchmarked({ "bench-x64-1": { node: ["26.1.0", "24.5.0"] } });
    assert.deepEqual(select({ benchmarked: done }), ["node@26.1.0@bench-arm64-1", "node@24.4.0@bench-arm64-1"]);
  });

  it("skips pre-releases unless asked for them", () => {
    const window: Window = { kind: "since", date: new Date("2026-09-18T00:00:00Z") };
    assert.ok(!select({ window, runners: [X64] }).includes("node@26.0.0-rc.1@bench-x64-1"));
    assert.ok(select({ window, runners: [X64], prereleases: true }).includes("node@26.0.0-rc.1@bench-x64-1"));
  });

  it("takes a date window or a lines window instead of the last benchmark", () => {
    const done = benchmarked({ "bench-x64-1": { node: ["26.1.0"] } });
    assert.deepEqual(select({ runners: [X64], benchmarked: done, window: { kind: "since", date: new Date("2026-09-30T00:00:00Z") } }), [
      "node@26.0.0@bench-x64-1",
      "node@24.5.0@bench-x64-1",
      "node@22.10.0@bench-x64-1",
      "node@22.9.0@bench-x64-1",
    ]);
    assert.deepEqual(select({ runners: [X64], window: { kind: "lines", count: 3 } }), ["node@26.1.0@bench-x64-1", "node@24.5.0@bench-x64-1", "node@22.10.0@bench-x64-1"]);
  });

  it("keeps benchmarked versions in the list when --missing is not given", () => {
    const done = benchmarked({ "bench-x64-1": { node: ["26.1.0", "24.5.0"] } });
    assert.deepEqual(select({ runners: [X64], benchmarked: done, missingOnly: false, window: { kind: "lines", count: 2 } }), [
      "node@26.1.0@bench-x64-1",
      "node@24.5.0@bench-x64-1",
    ]);
  });

  it("resolves a versioned spec per architecture, whatever the window", () => {
    const requests: RuntimeRequest[] = [parseRuntimeRequest("node@24"), parseRuntimeRequest("bun@latest")];
    assert.deepEqual(select({ requests, missingOnly: false }), [
      "node@24.5.0@bench-x64-1",
      "node@24.4.0@bench-arm64-1",
      "bun@1.4.1@bench-x64-1",
      "bun@1.4.1@bench-arm64-1",
    ]);
  });

  it("leaves out a runner whose architecture lacks an exact version, and fails when no runner has it", () => {
    const selection = selectBenchmarks({
      runners: [X64, ARM],
      requests: [parseRuntimeRequest("node@24.5.0")],
      releases: releasesOf,
      benchmarked: benchmarked({}),
      window: SINCE_LAST,
      prereleases: false,
      missingOnly: false,
    });
    assert.deepEqual(selection.planned.map((p) => p.runner.name), ["bench-x64-1"]);
    assert.deepEqual(selection.notes, ["node@24.5.0 is not published for arm64: bench-arm64-1 skips it"]);
    assert.throws(() => select({ requests: [parseRuntimeRequest("node@24.99.0")] }), /node 24\.99\.0 does not exist in the registry/);
  });

  it("lists one job per runtime version and runner even when requests overlap", () => {
    const requests = [parseRuntimeRequest("bun"), parseRuntimeRequest("bun@1.4.1")];
    assert.deepEqual(select({ requests, runners: [X64], window: { kind: "lines", count: 1 } }), ["bun@1.4.1@bench-x64-1"]);
  });
});

describe("the matrix", () => {
  it("carries runtime, version, runner, arch and labels", () => {
    const planned = selectBenchmarks({
      runners: [ARM],
      requests: [parseRuntimeRequest("bun@1.4.0")],
      releases: releasesOf,
      benchmarked: benchmarked({}),
      window: SINCE_LAST,
      prereleases: false,
      missingOnly: false,
    }).planned;
    assert.deepEqual(toMatrix(planned), { include: [{ runtime: "bun", version: "1.4.0", runner: "bench-arm64-1", arch: "arm64", labels: ARM.labels }] });
  });

  it("groups the jobs into benchmark.yml calls, one per set of runners lacking the same versions", () => {
    const planned = selectBenchmarks({
      runners: [X64, ARM],
      requests: [{ kind: "window", name: "node" }, { kind: "window", name: "bun" }],
      releases: releasesOf,
      benchmarked: benchmarked({ "bench-arm64-1": { bun: ["1.3.9"] } }),
      window: { kind: "lines", count: 2 },
      prereleases: false,
      missingOnly: true,
    }).planned;
    assert.deepEqual(toBenchmarkCalls(planned), {
      include: [
        { runners: "bench-x64-1 bench-arm64-1", runtimes: "node@26.1.0 bun@1.4.1" },
        { runners: "bench-x64-1", runtimes: "node@24.5.0 bun@1.3.9" },
        { runners: "bench-arm64-1", runtimes: "node@24.4.0" },
      ],
    });
  });

  it("refuses more jobs than GitHub runs in one matrix", () => {
    const one = { runtime: "node" as const, version: "1.0.0", published: new Date(), runner: X64 };
    assert.throws(() => toMatrix(Array.from({ length: MAX_MATRIX_JOBS + 1 }, () => one)), /matrix limit of 256/);
  });
});

describe("reading what data/ holds", () => {
  it("takes the runtime and version from a result file's name", () => {
    assert.deepEqual(runtimeOfResultFile("node-22.11.0.json"), { runtime: "node", version: "22.11.0" });
    assert.deepEqual(runtimeOfResultFile("deno-2.0.0-rc.1--hono--connections=10.json"), { runtime: "deno", version: "2.0.0-rc.1" });
    assert.equal(runtimeOfResultFile("python-3.12.0.json"), null);
    assert.equal(runtimeOfResultFile("notes.txt"), null);
  });

  it("finds the versions each runner has results for, and nothing in a missing folder", async () => {
    const data = tempDir("benchmarked");
    await writeResult(data, makeResult());
    await writeResult(data, makeResult({ runtime: { name: "bun", version: "1.2.0" }, status: "failed", error: "crashed", metrics: {} }));
    await writeResult(data, makeResult({ run: { runner: "bench-arm64-1", id: "20261102T000000Z-abcdef" }, runtime: { version: "24.1.0" } }));
    mkdirSync(join(data, "bench-x64-1", "stray"), { recursive: true });
    writeFileSync(join(data, "bench-x64-1", "stray", "node-1.0.0.json"), "{}");
    const found = findBenchmarked(data, ["bench-x64-1", "bench-arm64-1", "bench-new"]);
    assert.deepEqual([...found.get("bench-x64-1")!.get("node")!], ["22.11.0"]);
    assert.deepEqual([...found.get("bench-x64-1")!.get("bun")!], ["1.2.0"]);
    assert.deepEqual([...found.get("bench-arm64-1")!.get("node")!], ["24.1.0"]);
    assert.equal(found.get("bench-new")!.size, 0);
    assert.equal((findBenchmarked(join(data, "absent"), ["bench-x64-1"])).get("bench-x64-1")!.size, 0);
  });
});

describe("options and configuration", () => {
  it("reads the committed runner list, one x64 and one arm64 machine", () => {
    const runners = loadBenchRunners();
    assert.deepEqual(runners.map((r) => [r.arch, r.labels.join(",")]), [
      ["x86_64", "self-hosted,linux,x64,bench-x64-1"],
      ["arm64", "self-hosted,linux,arm64,bench-arm64-1"],
    ]);
    assert.deepEqual(chooseRunners(runners, [runners[1]!.name]), [runners[1]]);
    assert.throws(() => chooseRunners(runners, ["bench-riscv"]), /unknown runner 'bench-riscv'/);
  });

  it("rejects a runner list that breaks its schema or repeats a name", () => {
    const dir = tempDir("runners");
    const write = (body: unknown) => {
      writeFileSync(join(dir, "runners.json"), JSON.stringify(body));
      return join(dir, "runners.json");
    };
    assert.throws(() => loadBenchRunners(write({ runners: [{ name: "a", arch: "x86_64", labels: ["ubuntu-latest", "x"] }] })), /must contain at least 1 valid item/);
    assert.throws(() => loadBenchRunners(write({ runners: [{ name: "local-a", arch: "x86_64", labels: ["self-hosted", "a"] }] })), /\/runners\/0\/name: must match pattern/);
    const twice = { name: "a", arch: "arm64", labels: ["self-hosted", "a"] };
    assert.throws(() => loadBenchRunners(write({ runners: [twice, twice] })), /runner 'a' is listed twice/);
    const generic = { name: "b", arch: "x86_64", labels: ["self-hosted", "linux", "x64", "bench"] };
    assert.throws(() => loadBenchRunners(write({ runners: [generic] })), /runner 'b' needs its own name among its labels/);
    assert.throws(() => loadBenchRunners(write({ runners: [twice, { ...generic, labels: ["self-hosted", "a", "b"] }] })), /runner 'b' carries the label 'a'/);
  });

  it("reads windows and runtime requests, and says what is wrong with bad ones", () => {
    assert.deepEqual(parseWindow(undefined, undefined), { kind: "since-last-benchmark", fallbackLines: 3 });
    assert.deepEqual(parseWindow(undefined, "2"), { kind: "lines", count: 2 });
    assert.deepEqual(parseWindow("2026-10-01", undefined), { kind: "since", date: new Date("2026-10-01T00:00:00Z") });
    assert.throws(() => parseWindow("2026-10-01", "2"), /--since or --lines, not both/);
    assert.throws(() => parseWindow("last tuesday", undefined), /expected a date/);
    assert.throws(() => parseWindow(undefined, "0"), /at least 1/);
    assert.deepEqual(parseRuntimeRequest("deno"), { kind: "window", name: "deno" });
    assert.equal(parseRuntimeRequest("deno@2.1").kind, "spec");
    assert.throws(() => parseRuntimeRequest("node@path:/usr/bin/node"), /not binaries on disk/);
    assert.throws(() => parseRuntimeRequest("python"), /unknown runtime 'python'/);
  });
});
