import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { validateResultFiles } from "../../src/cli/commands/validate.ts";
import { readIndexedDocuments } from "../../src/results/run-index.ts";
import { listResultFiles, readResultFile, resultPath, RUN_FILE, runFolder, writeResult } from "../../src/results/store.ts";

const MACHINE = {
  isolated_cpus: "",
  nohz_full_cpus: null,
  aslr: 2,
  load_average: [1.2, 1, 0.9] as [number, number, number],
  memory_available_bytes: 8e9,
  swap_total_bytes: 0,
  swap_used_bytes: 0,
  perf_counters: { readable: false as const, reason: "perf reports instructions <not supported>" },
  unmet: ["no isolated CPUs (want isolcpus= on the kernel command line)", "ASLR is 2 (want kernel.randomize_va_space = 0)"],
};

/** Two cells of one run, as the orchestrator writes them: each with its own trials. */
const first = makeResult({ environment: { machine: MACHINE }, run: { trials: 3 } });
const second = makeResult({ environment: { machine: MACHINE }, run: { trials: 7 }, runtime: { name: "bun", version: "1.2.0", spec: "bun@1.2.0", package: "@oven/bun-linux-x64" } });

describe("the layout of data/: a run's environment once per run folder", () => {
  it("writes the run and its environment once, each result compact without them, and reads every result back whole", async () => {
    const data = tempDir("layout");
    const paths = [await writeResult(data, first), await writeResult(data, second)];
    const runDir = runFolder(data, first.run);
    const runFile = JSON.parse(readFileSync(join(runDir, RUN_FILE), "utf8")) as Record<string, unknown>;
    assert.deepEqual(runFile.environment, first.environment);
    const { trials: _, ...shared } = first.run;
    assert.deepEqual(runFile.run, shared, "all of the run but each cell's trials");
    for (const [path, doc] of [[paths[0]!, first], [paths[1]!, second]] as const) {
      const text = readFileSync(path, "utf8");
      assert.equal(text.split("\n").length, 2, "one line of JSON and its newline");
      assert.ok(!text.includes(MACHINE.unmet[0]!), "the environment is not repeated in the result");
      assert.deepEqual(readResultFile(path), doc, "read through the store, the result is its whole document");
      assert.ok(text.length < JSON.stringify(doc, null, 1).length / 2, `${text.length} bytes against ${JSON.stringify(doc, null, 1).length} pretty-printed whole`);
    }
    assert.deepEqual(listResultFiles([data]), [...paths].sort(), "run.json is no result");
    assert.deepEqual(validateResultFiles([data]), { files: 2, problems: [] });
    assert.deepEqual(readIndexedDocuments(data), [second, first].sort((a, b) => resultPath(data, a).localeCompare(resultPath(data, b))));
  });

  it("refuses a result that claims a run written on another machine, and never rewrites run.json", async () => {
    const data = tempDir("layout-conflict");
    await writeResult(data, first);
    const before = readFileSync(join(runFolder(data, first.run), RUN_FILE), "utf8");
    const elsewhere = makeResult({ environment: { cpu_model: "Other CPU" }, runtime: { name: "deno", version: "2.1.4" } });
    await assert.rejects(writeResult(data, elsewhere), /result for startup\/hello claims run 20261101T000000Z-abcdef of bench-x64-1, whose run\.json records another run or machine/);
    assert.ok(!existsSync(resultPath(data, elsewhere)));
    assert.equal(readFileSync(join(runFolder(data, first.run), RUN_FILE), "utf8"), before);
    assert.deepEqual(readdirSync(runFolder(data, first.run)).sort(), [RUN_FILE, "startup"], "no temporary file is left");
  });

  it("still reads a history written before run.json, whole documents pretty-printed, beside compact runs", async () => {
    const data = tempDir("layout-old");
    const old = makeResult({ run: { id: "20261001T000000Z-0000aa" } });
    const oldPath = resultPath(data, old);
    mkdirSync(dirname(oldPath), { recursive: true });
    writeFileSync(oldPath, `${JSON.stringify(old, null, 1)}\n`);
    await writeResult(data, first);
    assert.deepEqual(readResultFile(oldPath), old);
    assert.deepEqual(validateResultFiles([data]), { files: 2, problems: [] });
    assert.equal(readIndexedDocuments(data).length, 2);
  });

  it("names a compact result whose run.json is gone", async () => {
    const data = tempDir("layout-lost");
    const path = await writeResult(data, first);
    rmSync(join(runFolder(data, first.run), RUN_FILE));
    // A process that has read the run file before keeps it; a new reader does not have it.
    const fresh = join(tempDir("layout-copy"), "bench-x64-1/20261101T000000Z-abcdef/startup/hello/node-22.11.0.json");
    mkdirSync(dirname(fresh), { recursive: true });
    writeFileSync(fresh, readFileSync(path));
    assert.throws(() => readResultFile(fresh), /node-22\.11\.0\.json: holds a result without its run, and its run folder has no readable run\.json/);
    assert.match(validateResultFiles([dirname(fresh)]).problems.join("\n"), /holds a result without its run/);
  });
});
