import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { runCommand } from "../../src/process/children.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { provision } from "../../src/runtimes/provision.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

const RUNTIMES = { node: "22.11.0", deno: "2.1.4", bun: "1.2.0" } as const;
type Name = keyof typeof RUNTIMES;

/** A result as a run writes it, with the figure the project measured; the reproduction reads only its cell. */
function result(name: Name, suite: string, scenario: string, app: string, params: ResultDocument["params"], metric: string, unit: string, value: number): ResultDocument {
  return makeResult({
    runtime: { name, version: RUNTIMES[name], spec: `${name}@${RUNTIMES[name]}` },
    suite,
    scenario,
    app,
    params,
    metrics: { [metric]: metricOf([value, value * 1.02, value * 0.98], unit, "higher") },
  });
}

function write(dir: string, docs: readonly ResultDocument[]): string[] {
  return docs.map((doc) => {
    const file = join(dir, `${doc.runtime.name}.json`);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  });
}

describe("standalone reproductions, run with the real runtimes", () => {
  const binaries = new Map<Name, string>();
  before(async () => {
    for (const name of Object.keys(RUNTIMES) as Name[]) binaries.set(name, (await provision(`${name}@${RUNTIMES[name]}`)).binary);
  });

  it("workers/throughput: each runtime's script prints the headline figure and the version that ran", async () => {
    const dir = tempDir("repro-workers");
    const point = { payload: "bytes", size: 65536, batch: 64, transfer: false };
    const files = write(dir, (Object.keys(RUNTIMES) as Name[]).map((name) => result(name, "workers", "throughput", "worker-threads", point, "throughput_mb_s", "MB/s", 500)));
    const out = join(dir, "repro");
    const made = await bench(["repro", ...files, "--out", out]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(readFileSync(join(out, "README.md"), "utf8"), /\| deno 2\.1\.4 \| 500\.0 MB\/s \|/);
    for (const name of Object.keys(RUNTIMES) as Name[]) {
      const run = await runCommand(join(out, `run-${name}-${RUNTIMES[name]}.sh`), [binaries.get(name)!], { timeoutMs: 120_000 });
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      // The quick profile's iterations (suites/workers/throughput/scenario.json).
      assert.match(run.stdout, new RegExp(`^throughput_mb_s: [0-9.]+ MB/s \\(median of 2\\) on ${name} ${RUNTIMES[name].replace(/\./g, "\\.")}$`, "m"));
    }
  });

  it("startup/import-graph: the script generates the graph, checks the start, times starts with hyperfine and prints their median in ms", async () => {
    const dir = tempDir("repro-startup");
    const files = write(dir, [makeResult({ runtime: { name: "deno", version: RUNTIMES.deno, spec: `deno@${RUNTIMES.deno}` }, suite: "startup", scenario: "import-graph", metrics: { wall_ms: metricOf([40, 41, 39]) } })]);
    const out = join(dir, "repro");
    const made = await bench(["repro", ...files, "--out", out]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(readFileSync(join(out, "README.md"), "utf8"), /\| deno 2\.1\.4 \| 40\.00 ms \|/);
    // The generated graph is made again by the script, never copied.
    assert.ok(!existsSync(join(out, "suites", "startup", "import-graph", "graph")));
    const run = await runCommand(join(out, `run-deno-${RUNTIMES.deno}.sh`), [binaries.get("deno")!], { timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(join(out, "suites", "startup", "import-graph", "graph", "m0.js")), "the script ran the scenario's prepare step");
    // The quick profile's runs (src/suites/startup/index.ts); a start of a runtime takes milliseconds, not microseconds or seconds.
    const printed = /^wall_ms: ([0-9.]+) ms \(median of 10\) on deno 2\.1\.4$/m.exec(run.stdout);
    assert.ok(printed, run.stdout);
    const ms = Number(printed[1]);
    assert.ok(ms > 1 && ms < 5000, `${ms} ms for one start of deno`);
  });

  it("database/update-tx: the script loads a fresh SQLite database with sqlite3 and prints ops/s; a PostgreSQL app is refused in one line", async () => {
    const dir = tempDir("repro-database");
    const cell = (app: string, engine: string) =>
      makeResult({ runtime: { name: "node", version: RUNTIMES.node, spec: `node@${RUNTIMES.node}` }, suite: "database", scenario: "update-tx", app, params: { engine, concurrency: 1 }, metrics: { ops_per_s: metricOf([5000, 5100, 4900], "ops/s", "higher") } });
    const sqlite = write(dir, [cell("node-sqlite", "sqlite")]);
    const postgres = write(tempDir("repro-database-pg"), [cell("pg", "postgres")]);
    const out = join(dir, "repro");
    const made = await bench(["repro", ...sqlite, "--out", out]);
    assert.equal(made.code, 0, made.stderr);
    const run = await runCommand(join(out, `run-node-${RUNTIMES.node}.sh`), [binaries.get("node")!], { timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stderr);
    // The quick profile's measured iterations (src/suites/database/index.ts), each of 10 transactions.
    assert.match(run.stdout, /^ops_per_s: [0-9.]+ ops\/s \(median of 5\) on node 22\.11\.0$/m);
    const refused = await bench(["repro", ...postgres, "--out", join(dir, "repro-pg")]);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr.trim(), "runtime-bench: repro: database/update-tx on pg needs a PostgreSQL server, which a standalone reproduction does not start (its SQLite apps have one)");
  });

  it("fileio/walk-tree: the script makes the tree the harness makes, with the runtime under test, and prints the walk's wall time", async () => {
    const dir = tempDir("repro-fileio");
    const files = write(dir, [result("deno", "fileio", "walk-tree", "native", { cache: "warm" }, "wall_ms", "ms", 100)]);
    const out = join(dir, "repro");
    const made = await bench(["repro", ...files, "--out", out]);
    assert.equal(made.code, 0, made.stderr);
    const run = await runCommand(join(out, `run-deno-${RUNTIMES.deno}.sh`), [binaries.get("deno")!], { timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stderr);
    // The quick profile's iterations (src/suites/fileio/index.ts), each walking its 5,018 entries: milliseconds, not microseconds or minutes.
    const printed = /^wall_ms: ([0-9.]+) ms \(median of 5\) on deno 2\.1\.4$/m.exec(run.stdout);
    assert.ok(printed, run.stdout);
    assert.ok(Number(printed[1]) > 1 && Number(printed[1]) < 60_000, `${printed[1]} ms for one walk`);
    // A tree other than the harness's is caught by its digest, as a trial would be.
    const script = join(out, `run-deno-${RUNTIMES.deno}.sh`);
    writeFileSync(script, readFileSync(script, "utf8").replace('"tree_packages":300', '"tree_packages":299'));
    const other = await runCommand(script, [binaries.get("deno")!], { timeoutMs: 120_000 });
    assert.equal(other.code, 1);
    assert.match(other.stderr, /^the app reported digest [0-9a-f]{64}, expected [0-9a-f]{64}: what it read or wrote is not what runtime-bench measured$/m);
  });

  it("a script without its runtime says so in one line", async () => {
    const dir = tempDir("repro-missing");
    const files = write(dir, [result("node", "workers", "throughput", "worker-threads", { payload: "string", size: 1024, batch: 64, transfer: false }, "throughput_mb_s", "MB/s", 100)]);
    await bench(["repro", ...files, "--out", join(dir, "repro")]);
    const run = await runCommand(join(dir, "repro", "run-node-22.11.0.sh"), ["/nonexistent/node"]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr.trim(), "node not found: give its binary as the first argument");
  });

  it("http/compute: the server under oha; profile keeps node's CPU profile and its top functions, and says why deno 2.1.4 has none", async () => {
    const dir = tempDir("repro-http");
    const point = { connections: 10, keepalive: true, rate: 100 };
    const files = write(dir, (["node", "deno"] as const).map((name) => result(name, "http", "compute", "native", point, "rps", "req/s", 1000)));
    const out = join(dir, "repro");
    const profiled = await bench(["profile", ...files, "--out", out]);
    assert.equal(profiled.code, 0, profiled.stderr);
    assert.match(profiled.stdout, /^node@22\.11\.0: rps: [0-9.]+ req\/s \(median of 1\) on node 22\.11\.0; [1-9] profile file\(s\)$/m);
    // Deno 2.1.4 panics under --cpu-prof: recorded as unavailable, with the reason, never as a profile.
    assert.match(profiled.stdout, /^deno@2\.1\.4: unavailable: deno 2\.1\.4 failed under --cpu-prof \(exit \d+\): .+$/m);
    assert.match(profiled.stdout, /node@22\.11\.0: function\s+self ms\s+%/);
    const summary = JSON.parse(readFileSync(join(out, "profiles", "summary.json"), "utf8")) as { runtime: string; files: string[]; top: { name: string }[]; unavailable?: string }[];
    assert.deepEqual(summary.map((p) => [p.runtime, p.unavailable === undefined]), [["node", true], ["deno", false]]);
    const node = summary[0]!;
    assert.ok(node.top.some((f) => /^(leastFactor|primeReport|handle) \(/.test(f.name)), "the app's own functions are among node's top ones");
    for (const file of node.files) assert.ok(existsSync(join(out, "profiles", file)), file);
  });
});
