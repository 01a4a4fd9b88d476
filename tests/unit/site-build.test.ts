import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { compareResults } from "../../src/compare/compare.ts";
import { noiseFloor, spreadBySeries } from "../../src/compare/noise.ts";
import { environmentKey, measurementsOf, seriesKey } from "../../src/compare/series-key.ts";
import { detectableLabel } from "../../src/site/detectable.ts";
import { UserError } from "../../src/core/errors.ts";
import { writeResult } from "../../src/results/store.ts";
import { aggregate } from "../../src/site/aggregate.ts";
import { buildSite } from "../../src/site/build.ts";
import { allScenarios, benchPools } from "../../src/cli/site-inputs.ts";
import { poolMemberships } from "../../src/releases/pools.ts";
import { bundleDocuments, bundleOf, compareBundlePath, historyDocuments, historyOf } from "../../src/site/compare-data.ts";
import { shareRunners, workerExecArgv } from "../../src/site/parts.ts";
import { overviewCardCsv, trendCsv } from "../../src/site/downloads.ts";
import { html } from "../../src/site/html.ts";
import { loadResults, placeInPools } from "../../src/site/load.ts";
import { machineLabel, runsScenario, scenarioTestbeds, testbedWithFigures, trendPath, type CatalogData, type OverviewData, type TestbedRef, type TrendData } from "../../src/site/model.ts";
import { serveSite } from "../../src/site/server.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { scaleSeries, SYNTHETIC_RUNNERS, writeSyntheticResults } from "../../benchmarks/lib/synthetic-results.ts";

const scenarios = allScenarios();

const SMALL_PLAN = {
  runners: SYNTHETIC_RUNNERS,
  versionsPerRuntime: 6,
  runsPerVersion: 2,
  series: (await scaleSeries("quick")).filter((s) => s.suite === "startup"),
  from: new Date("2025-01-01T00:00:00Z"),
  to: new Date("2026-01-01T00:00:00Z"),
  failureRate: 0,
  seed: 7,
};

describe("site data", () => {
  let dataDir: string;
  before(async () => {
    dataDir = tempDir("site-data");
    await writeSyntheticResults(dataDir, SMALL_PLAN);
  });

  it("compares on the page exactly as scripts/bench compare does, from the files the build writes", () => {
    const { results, testbeds } = loadResults(dataDir);
    const x86 = [...testbeds.values()].find((t) => t.ref.arch === "x86_64")!.ref;
    const docsOf = (runtime: string, version?: string) =>
      results.filter((r) => r.testbed === x86.id && r.doc.runtime.name === runtime && (version === undefined || r.doc.runtime.version === version)).map((r) => r.doc);
    const nodeVersions = [...new Set(docsOf("node").map((d) => d.runtime.version))];
    const [base, head] = [docsOf("node", nodeVersions[2]), docsOf("node", nodeVersions[4])];
    const bunHead = docsOf("bun", "1.0.3");
    // What the CLI does: the documents as read, every result of data/ as history.
    const history = results.map((r) => r.doc);
    const fromBundles = (side: typeof base, runtime: "node" | "bun") => bundleDocuments(JSON.parse(JSON.stringify(bundleOf(x86.id, runtime, side[0]!.runtime.version, side))));
    const pageHistory = ["node", "bun"].flatMap((runtime) => historyDocuments(JSON.parse(JSON.stringify(historyOf(x86, runtime as "node", docsOf(runtime))))));
    for (const [b, h, runtime] of [[base, head, "node"], [base, bunHead, "bun"]] as const) {
      const cli = compareResults(b, h, { history });
      const page = compareResults(fromBundles(b, "node"), fromBundles(h, runtime), { history: pageHistory });
      assert.ok(cli.length > 0);
      assert.ok(cli.some((row) => row.min_effect_source === "noise floor"), "the history gives noise floors");
      assert.deepEqual(page, cli);
    }
  });

  it("keeps in a runtime's history one median per run of each series, null where a run has no ok result of it", () => {
    const x86 = [...loadResults(dataDir).testbeds.values()].find((t) => t.ref.arch === "x86_64")!.ref;
    const result = (run: string, version: string, scenario: string, median: number, status: "ok" | "failed" = "ok") =>
      makeResult({ run: { id: run }, runtime: { name: "node", version }, suite: "startup", scenario, status, metrics: status === "ok" ? { wall_ms: metricOf([median - 1, median, median + 1]) } : {} });
    const history = historyOf(x86, "node", [
      result("r1", "22.0.0", "hello", 10),
      result("r1", "22.0.0", "fs", 0, "failed"),
      result("r2", "22.1.0", "hello", 11),
      result("r2", "22.1.0", "fs", 20),
    ]);
    assert.deepEqual(history.runs.map((r) => `${r.id} ${r.version}`), ["r1 22.0.0", "r2 22.1.0"]);
    assert.deepEqual(history.series.map((s) => [s.scenario, s.metric, s.medians]), [["hello", "wall_ms", [10, 11]], ["fs", "wall_ms", [null, 20]]]);
  });

  it("keeps in the compare files what a paired row's rule and a calls total's explanation read: the label, the sequential plan, the calls by name", async () => {
    const dir = tempDir("site-paired");
    const syscall_counts = { per: "start", calls: { openat: [31, 31], mmap: [30, 31] }, scheduling: { futex: [33, 33] } };
    const paired = makeResult({
      run: { trials: 2 },
      label: "node-22.0.0",
      sequential: { looks: [2, 4], alpha: 0.0008, stopped: "budget" },
      metrics: { syscalls: { ...metricOf([61, 62], "calls/start"), trial_samples: [1, 1] } },
      details: { syscall_counts, instructions: "unavailable" },
    });
    await writeResult(dir, paired);
    const [result] = loadResults(dir).results;
    const [page] = bundleDocuments(JSON.parse(JSON.stringify(bundleOf(result!.testbed, "node", paired.runtime.version, [result!.doc]))) as ReturnType<typeof bundleOf>);
    assert.equal(page!.label, "node-22.0.0");
    assert.deepEqual(page!.sequential, paired.sequential);
    assert.deepEqual(page!.details, { syscall_counts });
  });

  it("reads back from a compare file every metric its results recorded, definitions and medians that are not the usual ones kept", () => {
    const hello = makeResult({
      metrics: {
        wall_ms: metricOf([10, 11, 12, 13]),
        cpu_s: { ...metricOf([0.01, 0.02, 0.02]), unit: "s", resolution: 0.01, trial_samples: [1, 2] },
        syscalls: { ...metricOf([700, 701]), unit: "calls/start", exact: true },
        rps: { ...metricOf([900, 1000, 1100], "req/s", "higher"), client_limited: "oha" },
      },
    });
    // Another definition of wall_ms than the scenario's first (a later harness's unit), a median that is not its samples' and a metric with no resolution where the first had one.
    const later = makeResult({
      run: { id: "20261102T000000Z-abcdef" },
      metrics: { wall_ms: metricOf([1, 2, 3], "s"), cpu_s: { ...metricOf([0.5, 0.7]), unit: "s", median: 0.6000000001 }, syscalls: { ...metricOf([702, 703]), unit: "calls/start", exact: true } },
    });
    const other = makeResult({ scenario: "fs", metrics: { wall_ms: metricOf([20, 21], "us") } });
    const docs = [hello, later, other];
    const bundle = JSON.parse(JSON.stringify(bundleOf("t", "node", hello.runtime.version, docs))) as ReturnType<typeof bundleOf>;
    assert.deepEqual(bundleDocuments(bundle).map((d) => d.metrics), docs.map((d) => d.metrics));
    // Stored once per scenario and metric, and a median only where the samples do not give it.
    const [first, second] = bundle.results;
    assert.deepEqual(bundle.definitions?.hello?.cpu_s, { unit: "s", better: "lower", resolution: 0.01 });
    assert.deepEqual([first!.metrics.wall_ms!.unit, first!.metrics.wall_ms!.median, second!.metrics.wall_ms!.unit], [undefined, undefined, "s"]);
    assert.deepEqual([second!.metrics.cpu_s!.median, second!.metrics.cpu_s!.resolution], [0.6000000001, undefined]);
  });

  it("reads compare files of the first format, and refuses a format newer than the page", () => {
    const doc = makeResult({ metrics: { wall_ms: metricOf([10, 11, 12]) } });
    const bundle = bundleOf("t", "node", doc.runtime.version, [doc]);
    const { format, definitions, ...first } = bundle;
    assert.equal(format, 2);
    const firstFormat = { ...first, results: first.results.map((r) => ({ ...r, metrics: { wall_ms: { ...definitions!.hello!.wall_ms!, ...r.metrics.wall_ms!, median: 11 } } })) };
    assert.deepEqual(bundleDocuments(firstFormat)[0]!.metrics, doc.metrics);
    assert.throws(() => bundleDocuments({ ...bundle, format: 3 }), /format 3, newer than this page's 2/);
  });

  it("shows the newest version of each runtime per architecture, from benchmark machines before local ones", () => {
    const loaded = loadResults(dataDir);
    const { overview } = aggregate(loaded, new Map(), null, new Map(), "2026-01-02T00:00:00.000Z");
    const hello = overview.scenarios.find((s) => s.scenario === "hello")!;
    assert.deepEqual(hello.groups.map((g) => g.testbed.arch), ["x86_64", "arm64"]);
    const node = hello.groups[0]!.figures.find((f) => f.runtime === "node")!;
    assert.equal(node.version, "23.0.0");
    assert.equal(hello.groups[0]!.testbed.kind, "dedicated");
    // Every metric the startup suite records for hello, in the suite's order.
    assert.deepEqual(Object.keys(hello.metrics), SMALL_PLAN.series.find((s) => s.scenario === "hello")!.metrics.map((m) => m.name));
    assert.ok(Object.keys(hello.metrics).length >= 2);
  });

  it("never plots a result that is not ok, and draws only the newest scenario version", async () => {
    const dir = tempDir("site-status");
    const run = (id: string) => ({ id: `2026110${id}T000000Z-abcdef`, started_at: `2026-11-0${id}T00:00:00.000Z` });
    await writeResult(dir, makeResult({ run: run("1"), scenario_version: 1, metrics: { wall_ms: metricOf([10, 11, 12]) } }));
    await writeResult(dir, makeResult({ run: run("2"), scenario_version: 2, metrics: { wall_ms: metricOf([20, 21, 22]) } }));
    await writeResult(dir, makeResult({ run: run("3"), scenario_version: 2, runtime: { version: "23.0.0" }, status: "failed", error: "server crashed\nstack…", metrics: {} }));
    const { trends, overview } = aggregate(loadResults(dir), new Map(), null, new Map(), "2026-11-04T00:00:00.000Z");
    const points = trends[0]!.runtimes.node!;
    assert.deepEqual(points.map((p) => [p.version, p.status, Object.keys(p.values)]), [["22.11.0", "ok", ["wall_ms"]], ["23.0.0", "failed", []]]);
    assert.equal(points[1]!.error, "server crashed");
    assert.equal(trends[0]!.scenario_version, 2);
    assert.equal(overview.scenarios[0]!.groups[0]!.figures[0]!.status, "failed", "the newest version failed: shown as such, not as an older number");
  });

  it("states beside each trend the smallest change each runtime's series confirms: compare's noise floor of the series against itself", async () => {
    const loaded = loadResults(dataDir);
    const { trends } = aggregate(loaded, new Map(), null, new Map(), "2026-01-02T00:00:00.000Z");
    const trend = trends.find((t) => t.series.scenario === "hello" && t.testbed.arch === "x86_64")!;
    const spreads = spreadBySeries(measurementsOf(loaded.results.map((r) => r.doc)));
    for (const runtime of ["node", "bun"] as const) {
      const doc = loaded.results.find((r) => r.testbed === trend.testbed.id && r.doc.runtime.name === runtime && r.series.scenario === "hello")!.doc;
      for (const metric of ["wall_ms", "peak_rss_mb"]) {
        const spread = spreads.get(seriesKey({ doc, metric, summary: doc.metrics[metric]! }))!;
        assert.ok(spread, `${runtime} ${metric}: 12 runs give a spread`);
        assert.equal(trend.detectable[runtime]![metric], noiseFloor(spread));
      }
    }
    assert.ok(trend.detectable.node!.wall_ms! > 0 && trend.detectable.node!.wall_ms! < 1);
    const dir = tempDir("site-short");
    const run = (id: string) => ({ id: `2026110${id}T000000Z-abcdef`, started_at: `2026-11-0${id}T00:00:00.000Z` });
    for (const id of ["1", "2", "3"]) await writeResult(dir, makeResult({ run: run(id), metrics: { wall_ms: metricOf([10, 11, 12]) } }));
    const short = aggregate(loadResults(dir), new Map(), null, new Map(), "2026-11-04T00:00:00.000Z").trends[0]!;
    assert.deepEqual(short.detectable, { node: { wall_ms: null } }, "3 runs are too few to tell");
    assert.equal(detectableLabel(null), "needs 6 runs");
    assert.equal(detectableLabel(0.0321), "≥ 3.2 %");
  });

  it("writes CSV with one line per metric, quoting what needs it", () => {
    const loaded = loadResults(dataDir);
    const { trends } = aggregate(loaded, new Map(), null, new Map(), "2026-01-02T00:00:00.000Z");
    const trend: TrendData = { ...trends[0]!, series: { ...trends[0]!.series, app: 'app "quoted", with comma' } };
    const lines = trendCsv(trend).trimEnd().split("\r\n");
    assert.match(lines[0]!, /^arch,runner,runner_kind,testbed,suite,scenario,app,params,runtime,version,started_at,run,profile,status,metric,unit,better,median,ci95_low,ci95_high,samples,reproduce,error$/);
    assert.equal(lines.length - 1, Object.values(trend.runtimes).flat().reduce((n, p) => n + Math.max(1, Object.keys(p.values).length), 0));
    assert.ok(lines[1]!.includes('"app ""quoted"", with comma"'));
  });

  it("writes no CSV cell a spreadsheet would take for a formula, whatever a result's strings hold", () => {
    const loaded = loadResults(dataDir);
    const { trends } = aggregate(loaded, new Map(), null, new Map(), "2026-01-02T00:00:00.000Z");
    const formulas = ['=HYPERLINK("https://evil.invalid","click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1"];
    const [first, ...rest] = Object.values(trends[0]!.runtimes).flat();
    const points = formulas.map((formula) => ({ ...first!, status: "failed" as const, values: {}, error: formula }));
    const trend: TrendData = { ...trends[0]!, series: { ...trends[0]!.series, app: formulas[0]!, params: formulas[3]! }, runtimes: { node: [...points, ...rest] } };
    const cells = trendCsv(trend)
      .trimEnd()
      .split("\r\n")
      .slice(1)
      .flatMap((line) => line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((cell) => cell.replace(/,$/, "").replace(/^"|"$/g, "")));
    for (const formula of formulas) assert.ok(cells.includes(`'${formula.replace(/"/g, '""')}`), `${JSON.stringify(formula)} kept as text:\n${cells.join("\n")}`);
    assert.ok(cells.every((cell) => !/^[=+\-@\t\r]/.test(cell)), cells.filter((cell) => /^[=+\-@\t\r]/.test(cell)).join("\n"));
    const median = Object.values(rest[0]!.values)[0]![0];
    assert.ok(cells.includes(String(median)), `the median ${median} stays a number`);
  });

  it("builds in parts, one per runner, exactly what one pass over every result makes", async () => {
    assert.deepEqual(shareRunners(dataDir, 2), [["bench-arm-1"], ["bench-x86-1"]]);
    assert.deepEqual(shareRunners(dataDir, 1), [["bench-arm-1", "bench-x86-1"]]);
    const now = new Date("2026-01-02T00:00:00Z");
    const out = tempDir("site-parts");
    // The two synthetic runners: two parts, each in a worker thread of its own on a machine with two cores or more.
    await buildSite({ dataDir, outDir: out, scenarios, now });
    const manifests = new Map(scenarios.map(({ scenario, metrics }) => [`${scenario.suite}/${scenario.name}`, { description: scenario.manifest.description, metrics }]));
    const whole = aggregate(loadResults(dataDir), manifests, null, new Map(), now.toISOString());
    const read = (path: string) => JSON.parse(readFileSync(join(out, path), "utf8")) as unknown;
    assert.deepEqual(read("data/overview.json"), JSON.parse(JSON.stringify(whole.overview)));
    assert.deepEqual(read("data/catalog.json"), JSON.parse(JSON.stringify(whole.catalog)));
    for (const trend of whole.trends) assert.deepEqual(read(trendPath(trend.testbed.id, trend.series)), JSON.parse(JSON.stringify(trend)));
    const x86 = whole.catalog.testbeds.find((t) => t.arch === "x86_64")!;
    const version = whole.catalog.versions[x86.id]!.node![2]!;
    const docs = whole.comparable.get(x86.id)!.filter((r) => r.doc.runtime.name === "node" && r.doc.runtime.version === version).map((r) => r.doc);
    assert.deepEqual(read(compareBundlePath(x86.id, "node", version, "startup")), JSON.parse(JSON.stringify(bundleOf(x86.id, "node", version, docs))));
  });

  it("starts a part's worker with the process's options but its module hooks", () => {
    assert.deepEqual(workerExecArgv(["--import", "tsx", "--max-old-space-size=4096"]), ["--max-old-space-size=4096"]);
    assert.deepEqual(workerExecArgv(["--cpu-prof", "--import=tsx", "--loader", "x.mjs", "--require", "y.cjs", "-r", "z.cjs"]), ["--cpu-prof"]);
    assert.deepEqual(workerExecArgv([]), []);
  });

  it("builds every page and data file, and refuses to empty a folder it did not build", async () => {
    const out = tempDir("site-out");
    const summary = await buildSite({ dataDir, outDir: out, scenarios, now: new Date("2026-01-02T00:00:00Z") });
    // Runtimes × versions × runs × runners × the startup scenarios the synthetic history holds.
    const startupScenarios = new Set(SMALL_PLAN.series.map((series) => series.scenario)).size;
    assert.ok(startupScenarios >= 4, `${startupScenarios} startup scenarios`);
    assert.equal(summary.results, 3 * 6 * 2 * 2 * startupScenarios);
    for (const page of ["index.html", "scenario.html", "compare.html", "regressions.html", "methodology.html", "assets/site.js", "assets/site.css", ".nojekyll"]) {
      assert.ok(existsSync(join(out, page)), page);
    }
    const catalog = JSON.parse(readFileSync(join(out, "data/catalog.json"), "utf8")) as CatalogData;
    const overview = JSON.parse(readFileSync(join(out, "data/overview.json"), "utf8")) as OverviewData;
    assert.equal(overview.scenarios.length, startupScenarios);
    for (const scenario of catalog.scenarios) {
      for (const series of scenario.series) for (const testbed of series.testbeds) assert.ok(existsSync(join(out, trendPath(testbed, { ...scenario, ...series }))));
    }
    const index = readFileSync(join(out, "index.html"), "utf8");
    assert.doesNotMatch(index, /(href|src)="\//, "every URL is relative");
    assert.doesNotMatch(index, /https?:\/\//, "nothing is fetched from elsewhere");
    assert.match(readFileSync(join(out, "regressions.html"), "utf8"), /No regressions feed has been computed yet/);
    const methodology = readFileSync(join(out, "methodology.html"), "utf8");
    assert.match(methodology, /How a change is judged[\s\S]*latency_p99_ms[\s\S]*False alarms on real runs[\s\S]*held out[\s\S]*Detection power of the full profile[\s\S]*http \(5 trials × 1\)/);
    await buildSite({ dataDir, outDir: out, scenarios });
    const foreign = tempDir("site-foreign");
    writeFileSync(join(foreign, "notes.txt"), "mine");
    await assert.rejects(buildSite({ dataDir, outDir: foreign, scenarios }), (e: unknown) => e instanceof UserError && /not a site built by runtime-bench/.test(e.message));
    await assert.rejects(buildSite({ dataDir: join(foreign, "missing"), outDir: tempDir("site-none"), scenarios }), UserError);
  });

  it("places only confirmed changes of the regressions feed on the trend of their machine", () => {
    const loaded = loadResults(dataDir);
    const x86 = loaded.results.find((r) => r.doc.environment.arch === "x86_64")!;
    const keys = new Map([[x86.testbed, environmentKey(x86.doc)]]);
    const change = (status: "confirmed" | "unconfirmed", to: string) => ({
      series: `${environmentKey(x86.doc)} node startup/hello@v1 - - wall_ms`,
      runner: x86.doc.run.runner, runtime: "node", headline: true, suite: "startup", scenario: "hello", scenario_version: 1, app: null, params: {}, metric: "wall_ms",
      unit: "ms", better: "lower" as const, kind: "regression" as const, from_version: "22.0.0", to_version: to, ratio: 1.1, ci95: [1.05, 1.15] as [number, number],
      noise_floor: 0.03, min_effect: 0.03, min_effect_source: "noise floor" as const, status, reason: "", environment_drift: false, run_ids: [], updated: "2026-01-01T00:00:00.000Z",
    });
    const report = { schema: "runtime-bench/regressions/v1" as const, generated_at: "2026-01-02T00:00:00.000Z", changes: [change("confirmed", "22.1.0"), change("unconfirmed", "22.2.0")], drifted_runs: [], series: [] };
    const { trends } = aggregate(loaded, new Map(), report, keys, "2026-01-02T00:00:00.000Z");
    const hello = trends.filter((t) => t.series.scenario === "hello");
    assert.deepEqual(hello.find((t) => t.testbed.id === x86.testbed)!.changes.map((c) => [c.runtime, c.version, c.kind]), [["node", "22.1.0", "regression"]]);
    assert.deepEqual(hello.find((t) => t.testbed.id !== x86.testbed)!.changes, []);
  });
});

describe("site over a pool of two machines", () => {
  it("shows each suite's series from the pool member that runs it, not from one that ran it before the pool", async () => {
    const dataDir = tempDir("site-pool");
    const result = (runner: string, day: string, suite: string, scenario: string, fingerprint: string) =>
      makeResult({ run: { runner, id: `202611${day}T000000Z-abcdef`, started_at: `2026-11-${day}T00:00:00.000Z` }, environment: { fingerprint }, suite, scenario });
    // bench-x64-a ran startup alone, then joined a pool that gave startup to bench-x64-b and http to it.
    await writeResult(dataDir, result("bench-x64-a", "01", "startup", "hello", "aaaaaaaa00000000"));
    await writeResult(dataDir, result("bench-x64-b", "02", "startup", "hello", "bbbbbbbb00000000"));
    await writeResult(dataDir, result("bench-x64-a", "03", "http", "json", "aaaaaaaa00000000"));
    const pools = new Map([
      ["bench-x64-a", { name: "bench-x64", runs: ["http", "startup/cold"] }],
      ["bench-x64-b", { name: "bench-x64", runs: ["startup/hello"] }],
    ]);
    const shownFor = (withPools: boolean) => {
      const loaded = loadResults(dataDir);
      placeInPools(loaded.testbeds, withPools ? pools : new Map());
      const { overview, catalog } = aggregate(loaded, new Map(), null, new Map(), "2026-11-04T00:00:00.000Z");
      const hello = catalog.scenarios.find((s) => s.scenario === "hello")!;
      return {
        card: overview.scenarios.find((s) => s.scenario === "hello")!.groups[0]!.testbed.runner,
        series: hello.series[0]!.testbeds,
        // What the trend page opens on for x86_64.
        page: scenarioTestbeds(catalog, hello).find((t) => t.arch === "x86_64")!.runner,
        testbeds: catalog.testbeds,
      };
    };
    // Without the pool, the machine measured most recently speaks first, whatever it runs now.
    assert.deepEqual([shownFor(false).card, shownFor(false).page], ["bench-x64-a", "bench-x64-a"]);
    const pooled = shownFor(true);
    assert.deepEqual([pooled.card, pooled.page], ["bench-x64-b", "bench-x64-b"]);
    assert.deepEqual(pooled.series, ["bench-x64-b-bbbbbbbb", "bench-x64-a-aaaaaaaa"]);
    const b = pooled.testbeds.find((t) => t.runner === "bench-x64-b")!;
    assert.deepEqual(b.pool, { name: "bench-x64", runs: ["startup/hello"] });
    assert.ok(runsScenario(b, "startup", "hello") && !runsScenario(b, "startup", "cold") && !runsScenario(b, "http", "json"));
    assert.equal(machineLabel(b), `bench-x64-b (dedicated, x86_64, ${b.cpu_model}, machine bbbbbbbb, pool bench-x64: startup/hello)`, "the CPU tells a runner's machines apart");
    const out = tempDir("site-pool-out");
    await buildSite({ dataDir, outDir: out, scenarios, pools });
    assert.match(readFileSync(join(out, "methodology.html"), "utf8"), /Pool<\/dt><dd>bench-x64: this machine runs startup\/hello;/);
  });

  it("names on an overview card the newer versions measured on another machine of its runner, whose figures it does not draw", async () => {
    const dataDir = tempDir("site-machine-changed");
    const result = (fingerprint: string, day: string, name: "node" | "bun", version: string) =>
      makeResult({ run: { runner: "bench-x64-a", id: `202611${day}T000000Z-${fingerprint.slice(0, 6)}`, started_at: `2026-11-${day}T00:00:00.000Z` }, environment: { fingerprint }, runtime: { name, version }, suite: "startup", scenario: "hello" });
    // The runner's first machine measured node and bun; the machine that replaced it, a newer node only.
    await writeResult(dataDir, result("aaaaaaaa00000000", "01", "node", "22.0.0"));
    await writeResult(dataDir, result("aaaaaaaa00000000", "01", "bun", "1.1.0"));
    await writeResult(dataDir, result("bbbbbbbb00000000", "02", "node", "24.0.0"));
    const { overview } = aggregate(loadResults(dataDir), new Map(), null, new Map(), "2026-11-03T00:00:00.000Z");
    const [group] = overview.scenarios.find((s) => s.scenario === "hello")!.groups;
    assert.equal(group!.testbed.id, "bench-x64-a-bbbbbbbb", "the machine measured last speaks");
    assert.deepEqual(group!.figures.map((f) => `${f.runtime} ${f.version}`), ["node 24.0.0"]);
    assert.deepEqual(group!.newer_elsewhere, [{ runtime: "bun", version: "1.1.0", testbed: "bench-x64-a-aaaaaaaa" }], "node's older figure on the first machine is not news");
  });

  it("joins on an install card each runtime's own package manager, since no app runs on two runtimes", async () => {
    const dataDir = tempDir("site-joined-apps");
    const result = (name: "node" | "deno" | "bun", version: string, app: string, day: string, wall: number, state = "cache") =>
      makeResult({
        run: { runner: "bench-x64-a", id: `202611${day}T000000Z-abcdef`, started_at: `2026-11-${day}T00:00:00.000Z` },
        runtime: { name, version },
        suite: "install",
        scenario: "small",
        app,
        params: { registry: "local", state },
        metrics: { wall_ms: metricOf([wall, wall * 1.01, wall * 0.99]) },
      });
    await writeResult(dataDir, result("node", "26.12.1", "npm", "02", 2250));
    await writeResult(dataDir, result("node", "26.12.1", "pnpm", "02", 900));
    await writeResult(dataDir, result("node", "26.0.0", "yarn", "03", 800));
    await writeResult(dataDir, result("deno", "2.9.6", "deno", "02", 60));
    await writeResult(dataDir, result("bun", "1.4.5", "bun", "02", 250));
    const { overview } = aggregate(loadResults(dataDir), new Map(), null, new Map(), "2026-11-04T00:00:00.000Z");
    const card = overview.scenarios.find((s) => s.scenario === "small")!;
    assert.equal(card.headline.params, "registry=local,state=cache");
    const [group] = card.groups;
    assert.deepEqual(group!.figures.map((f) => `${f.runtime} ${f.version}`), ["node 26.12.1", "deno 2.9.6", "bun 1.4.5"]);
    assert.deepEqual(group!.apps, { node: "npm", deno: "deno", bun: "bun" }, "npm and pnpm measured node 26.12.1 in one run: the first by name; yarn an older node");
    const csvLines = overviewCardCsv(card).split("\r\n");
    assert.ok(csvLines.some((line) => line.includes(",install,small,npm,") && line.includes(",node,26.12.1,")), "each figure's CSV line names its own app");
    assert.ok(csvLines.some((line) => line.includes(",install,small,deno,") && line.includes(",deno,2.9.6,")));
  });

  it("draws the load point the scenario's manifest names as its headline, where its series hold it", async () => {
    const dataDir = tempDir("site-headline-point");
    const result = (app: string, name: "node" | "deno", state: string, wall: number) =>
      makeResult({
        run: { runner: "bench-x64-a", id: "20261102T000000Z-abcdef", started_at: "2026-11-02T00:00:00.000Z" },
        runtime: { name, version: name === "node" ? "26.12.1" : "2.9.6" },
        suite: "install",
        scenario: "small",
        app,
        params: { registry: "local", state },
        metrics: { wall_ms: metricOf([wall, wall * 1.01, wall * 0.99]) },
      });
    for (const state of ["cache", "clean"]) {
      await writeResult(dataDir, result("npm", "node", state, state === "clean" ? 2900 : 2250));
      await writeResult(dataDir, result("deno", "deno", state, state === "clean" ? 750 : 60));
    }
    const manifest = (headline?: Record<string, string>) =>
      new Map([["install/small", { description: "Install an app.", metrics: { wall_ms: { unit: "ms", better: "lower" as const } }, ...(headline ? { headline } : {}) }]]);
    const cardOf = (manifests: ReturnType<typeof manifest>) => aggregate(loadResults(dataDir), manifests, null, new Map(), "2026-11-04T00:00:00.000Z").overview.scenarios.find((s) => s.scenario === "small")!;
    assert.equal(cardOf(manifest()).headline.params, "registry=local,state=cache", "without a headline: the first load point in reading order");
    const card = cardOf(manifest({ state: "clean" }));
    assert.equal(card.headline.params, "registry=local,state=clean");
    assert.deepEqual(card.groups[0]!.figures.map((f) => `${f.runtime} ${f.values.wall_ms![0]}`), ["node 2900", "deno 750"]);
    assert.equal(cardOf(manifest({ state: "repeat" })).headline.params, "registry=local,state=cache", "a load point no series holds: as without one");
  });

  it("opens Compare on the newest release beside the older one it was measured with on the most series, on whichever machine of the runner holds them", async () => {
    const dataDir = tempDir("site-compare-default");
    const result = (fingerprint: string, day: string, version: string, scenario: string) =>
      makeResult({ run: { runner: "bench-x64-a", id: `202611${day}T000000Z-${fingerprint.slice(0, 6)}`, started_at: `2026-11-${day}T00:00:00.000Z` }, environment: { fingerprint }, runtime: { name: "node", version }, suite: "startup", scenario });
    // Machine a: a link of every scenario, 26.0.0 beside 26.12.1, then a narrowing run of one, 26.8.1 beside 26.12.1.
    for (const scenario of ["hello", "import-graph"]) for (const version of ["26.0.0", "26.12.1"]) await writeResult(dataDir, result("aaaaaaaa00000000", "01", version, scenario));
    for (const version of ["26.8.1", "26.12.1"]) await writeResult(dataDir, result("aaaaaaaa00000000", "02", version, "hello"));
    // Machine b, measured last: 26.12.1 alone (a side-by-side run), so the overview's machine.
    await writeResult(dataDir, result("bbbbbbbb00000000", "03", "26.12.1", "hello"));
    const { catalog } = aggregate(loadResults(dataDir), new Map(), null, new Map(), "2026-11-04T00:00:00.000Z");
    assert.equal(catalog.testbeds[0]!.id, "bench-x64-a-bbbbbbbb", "the machine measured last comes first");
    const link = { testbed: "bench-x64-a-aaaaaaaa", base: { runtime: "node", version: "26.0.0" }, head: { runtime: "node", version: "26.12.1" } };
    assert.deepEqual(catalog.compare_default, link);
    assert.deepEqual(catalog.release_pairs, { "bench-x64-a": { node: link } }, "the quick pick of node's newest release too");
  });

  it("places the committed runners in no pool, and each pool member in its pool with its suites", () => {
    assert.deepEqual([...benchPools()], []);
    const member = (name: string, suites?: string[]) => ({ name, arch: "x86_64" as const, labels: ["self-hosted", name], pool: "bench-x64", ...(suites ? { suites } : {}) });
    const catalog = { suites: ["startup", "http"], scenarios: ["startup/hello", "http/crud", "http/json"], suitesWithApps: new Set(["http"]) };
    const memberships = poolMemberships([member("bench-x64-a", ["startup", "http/json"]), member("bench-x64-b", ["http"]), { ...member("bench-arm64-1"), pool: undefined }], catalog);
    assert.deepEqual(memberships.get("bench-x64-a"), { name: "bench-x64", runs: ["startup", "http/json"] });
    assert.deepEqual(memberships.get("bench-x64-b"), { name: "bench-x64", runs: ["http/crud"] });
    assert.equal(memberships.has("bench-arm64-1"), false);
  });
});

describe("the machine a trend page opens on", () => {
  const machine = (id: string, cpu: string): TestbedRef => ({ id, runner: "reference-x64", kind: "reference", arch: "x86_64", fingerprint: `${id.slice(-8)}00000000`, cpu_model: cpu, pool: null });
  const [intel, amd] = [machine("reference-x64-11111111", "Intel"), machine("reference-x64-22222222", "AMD")];
  // The runner's new machine has measured node's series; bun's app is measured only on the old one, where bun ran.
  const scenario = {
    suite: "database", scenario: "insert-batch", description: null, scenario_version: 1, metrics: {}, primary: "wall_ms",
    series: [
      { app: "bun-sqlite", params: "concurrency=1", testbeds: [intel.id, amd.id], measured: [amd.id], trending: [amd.id] },
      { app: "node-sqlite", params: "concurrency=1", testbeds: [intel.id, amd.id], measured: [intel.id, amd.id], trending: [intel.id] },
      { app: "node-sqlite", params: "concurrency=8", testbeds: [intel.id], measured: [], trending: [] },
    ],
  };
  it("is the first with figures of the asked app and load point, and the first of all where none has them", () => {
    assert.equal(testbedWithFigures(scenario, [intel, amd], "bun-sqlite", "concurrency=1"), amd, "bun's figures are on the old machine");
    assert.equal(testbedWithFigures(scenario, [intel, amd], "node-sqlite", undefined), intel);
    assert.equal(testbedWithFigures(scenario, [intel, amd], undefined, undefined), intel);
    assert.equal(testbedWithFigures(scenario, [intel, amd], "node-sqlite", "concurrency=8"), intel, "no figures anywhere: the first");
    // The new machine has measured one version of node (a side-by-side run), the old one node's history.
    const sideBySide = { ...scenario, series: [{ app: "node-sqlite", params: "concurrency=1", testbeds: [intel.id, amd.id], measured: [intel.id, amd.id], trending: [amd.id] }] };
    assert.equal(testbedWithFigures(sideBySide, [intel, amd], undefined, undefined), amd, "a trend before one dot of each runtime");
    assert.equal(testbedWithFigures({ ...sideBySide, series: [{ ...sideBySide.series[0]!, trending: [] }] }, [intel, amd], undefined, undefined), intel, "with no trend anywhere, the first with figures");
    assert.notEqual(machineLabel(intel), machineLabel(amd), "the picker tells them apart");
    const likeAmd = machine("reference-x64-33333333", "AMD");
    assert.notEqual(machineLabel(likeAmd), machineLabel(amd), "and two hosts of one CPU model, by their fingerprints");
  });
});

describe("site server", () => {
  it("serves below its base path only, compressed, and names a port in use", async () => {
    const root = tempDir("site-serve");
    mkdirSync(join(root, "data"));
    writeFileSync(join(root, "index.html"), "<h1>hi</h1>");
    writeFileSync(join(root, "data/x.json"), JSON.stringify({ a: "b".repeat(1000) }));
    const server = await serveSite(root, { base: "/repo/", port: 0 });
    try {
      const get = (path: string) => fetch(new URL(path, server.url), { redirect: "manual" });
      assert.equal((await get("/repo/")).status, 200);
      assert.equal(await (await get("/repo/")).text(), "<h1>hi</h1>");
      assert.equal((await get("/")).headers.get("location"), "/repo/");
      assert.equal((await get("/index.html")).status, 404);
      assert.equal((await get("/repo/%2e%2e/%2e%2e/etc/passwd")).status, 404);
      const json = await get("/repo/data/x.json");
      assert.equal(json.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(json.headers.get("content-encoding"), "gzip");
      assert.equal((await json.json() as { a: string }).a.length, 1000);
      const port = Number(new URL(server.url).port);
      await assert.rejects(serveSite(root, { base: "/", port }), (e: unknown) => e instanceof UserError && /port \d+ is in use/.test(e.message));
    } finally {
      await server.close();
    }
  });
});

describe("site html", () => {
  it("escapes what it interpolates, unless it is already HTML", () => {
    const inner = html`<b>${"<i>"}</b>`;
    assert.equal(html`<p title="${'"x"'}">${inner}${["a", "&"]}${null}</p>`.text, '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>a&amp;</p>');
  });
});
