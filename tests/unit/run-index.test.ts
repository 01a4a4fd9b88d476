import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { indexedResults, readIndexedDocuments, readIndexedResults } from "../../src/results/run-index.ts";
import { layoutResultFiles, listResultFiles, readResultFile, runIndexPath, writeResult } from "../../src/results/store.ts";

const RUN = "bench-x64-1/20261101T000000Z-abcdef";

/** Moves the times of every folder below `dir` an hour back, as for a run written long ago. */
function age(dir: string): void {
  const past = new Date(Date.now() - 3_600_000);
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) if (entry.isDirectory()) walk(join(folder, entry.name));
    utimesSync(folder, past, past);
  };
  walk(dir);
}

async function history(): Promise<{ data: string }> {
  const data = tempDir("run-index");
  const docs = [
    makeResult({ scenario: "hello" }),
    makeResult({ scenario: "hello", runtime: { name: "bun", version: "1.2.0" } }),
    makeResult({ scenario: "require", params: { modules: 10 } }),
    makeResult({ run: { id: "20261102T000000Z-abcdef" } }),
  ];
  for (const doc of docs) await writeResult(data, doc);
  return { data };
}

const fromFiles = (data: string) => layoutResultFiles(data).map((path) => ({ path, doc: readResultFile(path) }));

describe("the run index", () => {
  it("gives the same files and documents as reading them one by one, first from the files and then from the index", async () => {
    const { data } = await history();
    age(join(data, "bench-x64-1"));
    const expected = fromFiles(data);
    assert.equal(expected.length, 4);
    assert.deepEqual(readIndexedResults(data), expected);
    assert.ok(existsSync(runIndexPath(data, RUN)), "a settled run is indexed");
    assert.deepEqual(readIndexedResults(data), expected);
    assert.deepEqual(readIndexedResults(data, "bench-x64-1"), expected);
    assert.deepEqual([...indexedResults(data, "bench-x64-1")], expected);
  });

  it("holds what a run's results share once, and gives each document back with its keys in their order", async () => {
    const { data } = await history();
    age(join(data, "bench-x64-1"));
    const expected = fromFiles(data);
    readIndexedResults(data);
    const text = readFileSync(runIndexPath(data, RUN), "utf8");
    assert.equal(text.split(`"fingerprint":"${expected[0]!.doc.environment.fingerprint}"`).length, 2, "the environment once");
    assert.equal(JSON.stringify(readIndexedResults(data)), JSON.stringify(expected));
  });

  it("is written in ASCII and gives back text beyond it as it was", async () => {
    const data = tempDir("run-index-text");
    const doc = makeResult({ status: "failed", error: "took 12 µs … then ≥ 3 s, ✓ 🐢", metrics: {} });
    await writeResult(data, doc);
    age(join(data, "bench-x64-1"));
    const expected = fromFiles(data);
    assert.equal(expected[0]!.doc.error, doc.error);
    assert.deepEqual(readIndexedResults(data), expected);
    const [run] = readdirSync(join(data, "bench-x64-1"));
    assert.match(readFileSync(runIndexPath(data, `bench-x64-1/${run}`), "utf8"), /^[\x00-\x7f]*$/);
    assert.deepEqual(readIndexedResults(data), expected, "read back from the index");
  });

  it("is hidden from every listing of results", async () => {
    const { data } = await history();
    age(join(data, "bench-x64-1"));
    readIndexedResults(data);
    assert.ok(existsSync(runIndexPath(data, RUN)));
    assert.ok(listResultFiles([data]).every((path) => !path.includes(".index")));
    assert.equal(layoutResultFiles(data).length, 4);
  });

  it("is served while the run's folders keep their times, and rebuilt once one changes", async () => {
    const { data } = await history();
    age(join(data, "bench-x64-1"));
    readIndexedResults(data);
    const path = runIndexPath(data, RUN);
    // A planted index: served as long as no folder time changed, which shows the index is what is read.
    const index = JSON.parse(readFileSync(path, "utf8"));
    index.files[0].doc.metrics.wall_ms.median = -1;
    writeFileSync(path, JSON.stringify(index));
    assert.equal(readIndexedResults(data)[0]!.doc!.metrics.wall_ms!.median, -1);
    const scenarioDir = dirname(readIndexedResults(data)[0]!.path);
    utimesSync(scenarioDir, new Date(), new Date());
    assert.deepEqual(readIndexedResults(data), fromFiles(data));
  });

  it("takes in results added to a run, in a folder it had and in a new one", async () => {
    const { data } = await history();
    age(join(data, "bench-x64-1"));
    readIndexedResults(data);
    await writeResult(data, makeResult({ scenario: "hello", runtime: { name: "deno", version: "2.1.4" } }));
    await writeResult(data, makeResult({ scenario: "import" }));
    const expected = fromFiles(data);
    assert.equal(expected.length, 6);
    assert.deepEqual(readIndexedResults(data), expected);
  });

  it("leaves a run whose folders changed in the last seconds unindexed, since it may still be being written", async () => {
    const { data } = await history();
    assert.equal(readIndexedResults(data).length, 4);
    assert.equal(existsSync(runIndexPath(data, RUN)), false);
  });

  it("gives a file that is not valid JSON a null document, and the strict reader names it", async () => {
    const { data } = await history();
    const broken = join(data, RUN, "startup", "hello", "node-20.0.0.json");
    writeFileSync(broken, "{ half written");
    age(join(data, "bench-x64-1"));
    assert.equal(readIndexedResults(data).find((r) => r.path === broken)?.doc, null);
    assert.throws(() => readIndexedDocuments(data), { message: `${broken}: not valid JSON` });
    assert.throws(() => readIndexedDocuments(join(data, "missing")), /missing: no such data folder/);
  });
});
