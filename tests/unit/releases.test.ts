import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseRuntimeRequest, parseWindow } from "../../src/cli/commands/releases.ts";
import { findBenchmarked, type Benchmarked } from "../../src/releases/benchmarked.ts";
import { runtimeOfResultFile } from "../../src/results/store.ts";
import { MAX_MATRIX_JOBS, canaryBuild, toBenchmarkCalls, toMatrix, type MatrixEntry } from "../../src/releases/matrix.ts";
import type { Release } from "../../src/releases/published.ts";
import { assignScenarios, compactScenarios, planWork, type RunnerWork, type ScenarioCatalog, type WorkRequest } from "../../src/releases/pools.ts";
import { chooseRunners, loadBenchConfig, loadBenchRunners, type BenchRunner } from "../../src/releases/runners.ts";
import { predecessorOf, releaseLine, selectBenchmarks, type RuntimeRequest, type SelectionInput, type Window } from "../../src/releases/select.ts";
import type { Arch, RuntimeName } from "../../src/runtimes/catalog.ts";
import { writeResult } from "../../src/results/store.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { recordedReleases } from "../helpers/recorded-releases.ts";

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
const DENO = [release("2.6.2", "2026-10-28"), release("2.6.0", "2026-10-02"), release("2.5.7", "2026-09-20"), release("2.4.9", "2026-07-01"), release("2.3.0", "2026-05-01")];
const BUN = [release("1.4.1", "2026-10-25"), release("1.4.0", "2026-10-05"), release("1.3.9", "2026-09-01"), release("1.2.20", "2026-06-01")];

function releasesOf(runtime: RuntimeName, arch: Arch): Release[] {
  if (runtime === "node") return arch === "arm64" ? NODE_ARM : NODE_X64;
  if (runtime === "bun") return BUN;
  return DENO;
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

/** The jobs for these versions on these runners, whatever the data already holds. */
function plannedFor(runners: BenchRunner[], specs: string[], withPredecessor = false) {
  return selectBenchmarks({
    runners,
    requests: specs.map(parseRuntimeRequest),
    releases: releasesOf,
    benchmarked: benchmarked({}),
    window: SINCE_LAST,
    prereleases: false,
    missingOnly: false,
    withPredecessor,
  }).planned;
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

/** Suites and scenarios as a checkout might hold them. */
const SUITE_NAMES = ["startup", "http", "fileio", "database", "websocket", "install", "workers"];
const CATALOG: ScenarioCatalog = {
  suites: SUITE_NAMES,
  scenarios: ["startup/hello", "startup/require", "http/crud", "http/json", "http/plaintext", "fileio/read", "database/select", "websocket/echo", "install/small", "workers/ring"],
  suitesWithApps: new Set(["http", "fileio", "database", "websocket", "install", "workers"]),
};
const workOf = (runners: readonly BenchRunner[], request: Partial<WorkRequest> = {}, catalog = CATALOG): Map<string, RunnerWork> =>
  planWork(assignScenarios(runners, catalog), { suites: [], scenarios: [], apps: [], ...request }, catalog);

describe("the matrix", () => {
  it("carries runtime, version, runner, arch, labels and what the job runs", () => {
    const planned = plannedFor([ARM], ["bun@1.4.0"]);
    assert.deepEqual(toMatrix(planned, workOf([X64, ARM])), {
      include: [{ runtime: "bun", version: "1.4.0", runner: "bench-arm64-1", arch: "arm64", labels: ARM.labels, suites: SUITE_NAMES.join(" "), scenarios: "", apps: "", channel: "release", predecessor: "" }],
    });
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
        { call: "call-0", runners: "bench-x64-1 bench-arm64-1", runtimes: "node@26.1.0 bun@1.4.1" },
        { call: "call-1", runners: "bench-x64-1", runtimes: "node@24.5.0 bun@1.3.9" },
        { call: "call-2", runners: "bench-arm64-1", runtimes: "node@24.4.0" },
      ],
    });
  });

  it("refuses more jobs than GitHub runs in one matrix", () => {
    const one = { runtime: "node" as const, version: "1.0.0", published: new Date(), runner: X64, predecessor: null };
    assert.throws(() => toMatrix(Array.from({ length: MAX_MATRIX_JOBS + 1 }, () => one), workOf([X64])), /matrix limit of 256/);
  });
});

describe("the predecessor a release is measured beside", () => {
  const node = recordedReleases("node");
  const deno = recordedReleases("deno");

  it("is the previous release of the line for a patch or a Node minor, whatever was published in between on other lines", () => {
    assert.equal(predecessorOf("22.11.0", node), "22.10.0");
    assert.equal(predecessorOf("24.18.1", node), "24.18.0");
    assert.equal(predecessorOf("2.1.9", deno), "2.1.8");
    // No 2.1.13 was published in this architecture's package: the release before is the one that was.
    assert.equal(predecessorOf("2.1.14", deno), "2.1.12");
    // 22.12.0 came out after 23.x releases: its baseline stays on its own line.
    assert.equal(predecessorOf("22.12.0", node), "22.11.0");
  });

  it("is the newest release of the line before for the first release of a line: a Deno minor, a major", () => {
    assert.equal(predecessorOf("2.1.0", deno), "2.0.6");
    assert.equal(predecessorOf("2.0.0", deno), "1.46.3");
    assert.equal(predecessorOf("24.0.0", node), "23.11.1");
    assert.equal(predecessorOf("26.0.0", node), "25.9.0");
  });

  it("skips pre-releases, and gives a pre-release of a new line the newest release below it", () => {
    const withRc = [{ version: "26.0.0-rc.1", published: new Date("2026-04-01") }, ...node];
    assert.equal(predecessorOf("26.0.0", withRc), "25.9.0");
    assert.equal(predecessorOf("26.0.0-rc.1", withRc), "25.9.0");
  });

  it("is none for the first release there is", () => {
    assert.equal(predecessorOf("1.46.0", deno), null);
  });

  it("reaches the matrix of a release job only when asked for, per runner's architecture", () => {
    const specs = ["node@24.5.0", "bun@1.4.0"];
    const pick = (e: MatrixEntry) => `${e.runtime}@${e.version}@${e.runner}<-${e.predecessor}`;
    const work = workOf([X64, ARM]);
    assert.deepEqual(toMatrix(plannedFor([X64, ARM], specs, true), work).include.map(pick), [
      "node@24.5.0@bench-x64-1<-24.4.0",
      "bun@1.4.0@bench-x64-1<-1.3.9",
      "bun@1.4.0@bench-arm64-1<-1.3.9",
    ]);
    assert.deepEqual(toMatrix(plannedFor([X64, ARM], specs), work).include.map(pick), ["node@24.5.0@bench-x64-1<-", "bun@1.4.0@bench-x64-1<-", "bun@1.4.0@bench-arm64-1<-"]);
  });
});

describe("the canary matrix", () => {
  it("measures each runtime's newest nightly or canary build against its newest release", () => {
    const planned = plannedFor([X64], ["node@latest", "deno@latest", "bun@latest"]);
    const pick = (e: MatrixEntry) => [e.runtime, e.channel, e.version, e.predecessor];
    assert.deepEqual(toMatrix(planned, workOf([X64]), "canary").include.map(pick), [
      ["node", "canary", "27-nightly", "26.1.0"],
      ["deno", "canary", "canary", "2.6.2"],
      ["bun", "canary", "canary", "1.4.1"],
    ]);
    assert.equal(canaryBuild("node", "24.5.0"), "25-nightly");
  });
});

describe("the backfill of a merged scenario", () => {
  it("measures the changed scenarios on every runner over the newest release of each of the last backfill_lines lines of each runtime", () => {
    const config = loadBenchConfig();
    const requests = (["node", "deno", "bun"] as const).map((name): RuntimeRequest => ({ kind: "window", name }));
    const work = workOf(config.runners, { scenarios: ["http/json"], apps: ["hono"] });
    const planned = selectBenchmarks({
      runners: config.runners.filter((r) => work.has(r.name)),
      requests,
      releases: releasesOf,
      // Results of those versions do not matter: the changed scenario has none of them.
      benchmarked: benchmarked({ "bench-x64-1": { node: ["26.1.0"] } }),
      window: parseWindow(undefined, undefined, config.backfillLines),
      prereleases: false,
      missingOnly: false,
    }).planned;
    const newestOfLines: Record<RuntimeName, Record<Arch, string[]>> = {
      node: { x86_64: ["26.1.0", "24.5.0", "22.10.0", "20.19.0"], arm64: ["26.1.0", "24.4.0", "22.10.0", "20.19.0"] },
      deno: { x86_64: ["2.6.2", "2.5.7", "2.4.9", "2.3.0"], arm64: ["2.6.2", "2.5.7", "2.4.9", "2.3.0"] },
      bun: { x86_64: ["1.4.1", "1.3.9", "1.2.20"], arm64: ["1.4.1", "1.3.9", "1.2.20"] },
    };
    const expected = (["node", "deno", "bun"] as const).flatMap((runtime) =>
      config.runners.flatMap((runner) =>
        newestOfLines[runtime][runner.arch].slice(0, config.backfillLines).map((version) => ({
          runtime,
          version,
          runner: runner.name,
          arch: runner.arch,
          labels: runner.labels,
          suites: "http",
          scenarios: "http/json",
          apps: "hono",
          channel: "release",
          predecessor: "",
        })),
      ),
    );
    const key = (e: { runtime: string; version: string; runner: string }) => `${e.runtime}@${e.version}@${e.runner}`;
    const matrix = toMatrix(planned, work);
    assert.deepEqual([...matrix.include].sort((a, b) => key(a).localeCompare(key(b))), expected.sort((a, b) => key(a).localeCompare(key(b))));
    assert.equal(matrix.include.length, 3 * config.runners.length * config.backfillLines, "every runtime has that many lines in the fixture");
  });

  it("leaves out the apps of a job whose suites have none, and refuses a scenario without its suite", () => {
    const work = workOf([X64], { scenarios: ["startup/hello"], apps: ["hono"] });
    assert.deepEqual(work.get("bench-x64-1"), { suites: ["startup"], scenarios: ["startup/hello"], apps: [], covers: ["startup/hello"] });
    assert.throws(() => workOf([X64], { scenarios: ["hello"] }), /--scenario 'hello': expected SUITE\/NAME/);
    assert.throws(() => workOf([X64], { scenarios: ["http/nope"] }), /--scenario 'http\/nope': no such scenario in suites\/http\//);
    assert.throws(() => workOf([X64], { scenarios: ["gpu/x"] }), /unknown suite 'gpu'/);
    assert.throws(() => workOf([X64], { suites: ["http"], scenarios: ["http/json"] }), /--suite or --scenario, not both/);
  });
});

describe("a pool of two identical machines", () => {
  const member = (name: string, suites?: string[]): BenchRunner => ({
    name,
    arch: "x86_64",
    labels: ["self-hosted", "linux", "x64", name],
    pool: "bench-x64",
    ...(suites ? { suites } : {}),
  });
  const A = member("bench-x64-a", ["http"]);
  const B = member("bench-x64-b");
  const POOL = [A, B, ARM];

  it("shares out the suites, each whole on one member: listed ones where listed, the others by rendezvous hashing", () => {
    const assigned = assignScenarios(POOL, CATALOG);
    // Fixed by the rule (sha256 of suite/member): a change here would move series between machines.
    assert.deepEqual(compactScenarios(assigned.get("bench-x64-a")!, CATALOG), ["http", "fileio"]);
    assert.deepEqual(compactScenarios(assigned.get("bench-x64-b")!, CATALOG), ["startup", "database", "websocket", "install", "workers"]);
    assert.deepEqual(assigned.get("bench-arm64-1"), CATALOG.scenarios, "a machine outside a pool runs every scenario");
  });

  it("moves nothing when a suite or a scenario is added, and only to a new member when a member is added", () => {
    const before = assignScenarios(POOL, CATALOG);
    const grownCatalog = { ...CATALOG, suites: [...SUITE_NAMES, "gpu"], scenarios: [...CATALOG.scenarios, "gpu/matmul", "startup/zzz", "http/zzz"] };
    const after = assignScenarios(POOL, grownCatalog);
    for (const name of ["bench-x64-a", "bench-x64-b"]) {
      assert.deepEqual(after.get(name)!.filter((s) => CATALOG.scenarios.includes(s)), before.get(name));
    }
    assert.ok(after.get("bench-x64-a")!.includes("http/zzz") && after.get("bench-x64-b")!.includes("startup/zzz"), "a new scenario follows its suite");
    const grown = assignScenarios([...POOL, member("bench-x64-c")], CATALOG);
    for (const name of ["bench-x64-a", "bench-x64-b"]) {
      assert.ok(grown.get(name)!.every((scenario) => before.get(name)!.includes(scenario)), `${name} took nothing new`);
    }
    assert.ok(grown.get("bench-x64-a")!.includes("http/json"), "a listed suite stays where it is listed");
  });

  it("splits a suite too long for one machine by scenario, never a scenario", () => {
    const pool = [A, B, member("bench-x64-c", ["http/crud", "database"])];
    const assigned = assignScenarios(pool, CATALOG);
    assert.deepEqual(assigned.get("bench-x64-c"), ["http/crud", "database/select"]);
    assert.deepEqual(compactScenarios(assigned.get("bench-x64-a")!, CATALOG), ["http/json", "http/plaintext", "fileio"]);
    const work = workOf(pool);
    assert.deepEqual(work.get("bench-x64-a")!.scenarios, ["http/json", "http/plaintext", "fileio/read"], "a job that runs part of a suite names its scenarios");
    assert.deepEqual(work.get("bench-x64-c")!, { suites: ["http", "database"], scenarios: ["http/crud", "database/select"], apps: [], covers: ["http/crud", "database/select"] });
    assert.deepEqual(work.get("bench-x64-b")!.scenarios, [], "a job that runs whole suites names none");
  });

  it("gives each member's jobs its own suites, and no job to a member none of whose scenarios is asked for", () => {
    const planned = selectBenchmarks({
      runners: POOL,
      requests: [{ kind: "window", name: "bun" }],
      releases: releasesOf,
      benchmarked: benchmarked({}),
      window: { kind: "lines", count: 1 },
      prereleases: false,
      missingOnly: false,
    }).planned;
    const pick = (e: MatrixEntry) => [e.runner, e.suites, e.scenarios];
    assert.deepEqual(toMatrix(planned, workOf(POOL)).include.map(pick), [
      ["bench-x64-a", "http fileio", ""],
      ["bench-x64-b", "startup database websocket install workers", ""],
      ["bench-arm64-1", SUITE_NAMES.join(" "), ""],
    ]);
    const onlyHttp = workOf(POOL, { scenarios: ["http/json", "startup/hello"] });
    assert.deepEqual(toMatrix(planned, onlyHttp).include.map(pick), [
      ["bench-x64-a", "http", "http/json"],
      ["bench-x64-b", "startup", "startup/hello"],
      ["bench-arm64-1", "startup http", "startup/hello http/json"],
    ]);
    assert.deepEqual([...workOf(POOL, { suites: ["http"] }).keys()], ["bench-x64-a", "bench-arm64-1"]);
  });

  it("counts a version as benchmarked on a member only where it has results in the member's scenarios", async () => {
    const data = tempDir("pool-benchmarked");
    // bench-x64-a measured startup before it joined the pool; bench-x64-b runs startup now.
    for (const [runner, id] of [["bench-x64-a", "abc001"], ["bench-x64-b", "abc002"]] as const) {
      await writeResult(data, makeResult({ run: { runner, id: `20261101T000000Z-${id}` }, runtime: { version: "26.1.0" } }));
    }
    const work = workOf(POOL);
    const found = findBenchmarked(data, ["bench-x64-a", "bench-x64-b"], (name) => work.get(name)!.covers);
    assert.equal(found.get("bench-x64-a")!.get("node"), undefined);
    assert.deepEqual([...found.get("bench-x64-b")!.get("node")!], ["26.1.0"]);
    const missing = select({ runners: [A, B], benchmarked: found, window: { kind: "lines", count: 1 } });
    assert.deepEqual(missing, ["node@26.1.0@bench-x64-a"]);
  });

  it("is refused with one line when malformed: mixed architectures, a suite listed twice, suites without a pool, an unknown suite or scenario", () => {
    const dir = tempDir("pool-config");
    const write = (runners: unknown[]) => {
      writeFileSync(join(dir, "runners.json"), JSON.stringify({ backfill_lines: 3, runners }));
      return join(dir, "runners.json");
    };
    const oneLine = (fn: () => unknown, pattern: RegExp) =>
      assert.throws(fn, (error: Error) => pattern.test(error.message) && !error.message.includes("\n"));
    oneLine(() => loadBenchConfig(write([A, { ...B, arch: "arm64" }])), /pool 'bench-x64' mixes x86_64 \(bench-x64-a\) and arm64 \(bench-x64-b\)/);
    oneLine(() => loadBenchConfig(write([A, { ...B, suites: ["http"] }])), /'http' is listed by more than one member of pool 'bench-x64'/);
    oneLine(() => loadBenchConfig(write([{ ...X64, suites: ["http"] }])), /\/runners\/0: must have property pool when property suites is present/);
    oneLine(() => loadBenchConfig(write([A, { ...B, pool: "bench-x64-a" }])), /pool 'bench-x64-a' has the name of a runner/);
    assert.throws(() => assignScenarios([member("bench-x64-a", ["gpu"])], CATALOG), /runner 'bench-x64-a' lists 'gpu', which is neither a suite/);
    assert.throws(() => assignScenarios([member("bench-x64-a", ["http/nope"])], CATALOG), /lists 'http\/nope'/);
    assert.deepEqual(loadBenchConfig(write([A, B])).runners.map((r) => r.pool), ["bench-x64", "bench-x64"]);
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
    const write = (body: object) => {
      writeFileSync(join(dir, "runners.json"), JSON.stringify({ backfill_lines: 3, ...body }));
      return join(dir, "runners.json");
    };
    assert.throws(() => loadBenchRunners(write({ runners: [{ name: "a", arch: "x86_64", labels: ["ubuntu-latest", "x"] }] })), /must contain at least 1 valid item/);
    assert.throws(() => loadBenchRunners(write({ runners: [{ name: "local-a", arch: "x86_64", labels: ["self-hosted", "a"] }] })), /\/runners\/0\/name: must match pattern/);
    const twice = { name: "a", arch: "arm64", labels: ["self-hosted", "a"] };
    assert.throws(() => loadBenchRunners(write({ runners: [twice], backfill_lines: 0 })), /\/backfill_lines: must be >= 1/);
    assert.throws(() => loadBenchRunners(write({ runners: [twice, twice] })), /runner 'a' is listed twice/);
    const generic = { name: "b", arch: "x86_64", labels: ["self-hosted", "linux", "x64", "bench"] };
    assert.throws(() => loadBenchRunners(write({ runners: [generic] })), /runner 'b' needs its own name among its labels/);
    assert.throws(() => loadBenchRunners(write({ runners: [twice, { ...generic, labels: ["self-hosted", "a", "b"] }] })), /runner 'b' carries the label 'a'/);
  });

  it("reads windows and runtime requests, and says what is wrong with bad ones", () => {
    assert.deepEqual(parseWindow(undefined, undefined), { kind: "since-last-benchmark", fallbackLines: 3 });
    assert.deepEqual(parseWindow(undefined, "2"), { kind: "lines", count: 2 });
    assert.deepEqual(parseWindow("2026-10-01", undefined), { kind: "since", date: new Date("2026-10-01T00:00:00Z") });
    assert.throws(() => parseWindow("2026-10-01", "2"), /one of --since, --lines and --backfill/);
    assert.deepEqual(parseWindow(undefined, undefined, 4), { kind: "lines", count: 4 });
    assert.throws(() => parseWindow(undefined, "2", 4), /one of --since, --lines and --backfill/);
    assert.throws(() => parseWindow("last tuesday", undefined), /expected a date/);
    assert.throws(() => parseWindow(undefined, "0"), /at least 1/);
    assert.deepEqual(parseRuntimeRequest("deno"), { kind: "window", name: "deno" });
    assert.equal(parseRuntimeRequest("deno@2.1").kind, "spec");
    assert.throws(() => parseRuntimeRequest("node@path:/usr/bin/node"), /not binaries on disk/);
    assert.throws(() => parseRuntimeRequest("python"), /unknown runtime 'python'/);
  });
});
