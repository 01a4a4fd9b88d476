import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { collectResults } from "../../src/collect/collect.ts";
import { loadResults } from "../../src/site/load.ts";
import { listResultFiles } from "../../src/results/store.ts";
import { writeResult } from "../../src/results/store.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

/** An artifact as download-artifact lays it out: `<artifact name>/<runner>/<run id>/...`. */
async function artifact(root: string, name: string, docs: ReturnType<typeof makeResult>[]): Promise<string[]> {
  const paths: string[] = [];
  for (const doc of docs) paths.push(await writeResult(join(root, name), doc));
  return paths;
}

const x64Node = makeResult();
const x64Bun = makeResult({ runtime: { name: "bun", version: "1.2.0", package: "@oven/bun-linux-x64" } });
const armNode = makeResult({ run: { runner: "bench-arm64-1", id: "20261101T000100Z-123456" }, environment: { arch: "arm64" } });

describe("collecting artifacts into data/", () => {
  it("adds every new result at the place its contents name, and nothing the second time", async () => {
    const artifacts = tempDir("artifacts");
    const data = tempDir("data");
    await artifact(artifacts, "results-bench-x64-1-node-22.11.0", [x64Node, x64Bun]);
    await artifact(artifacts, "results-bench-arm64-1-node-22.11.0", [armNode]);
    const first = await collectResults([artifacts], data);
    assert.deepEqual(first.problems, []);
    assert.deepEqual(first.added.sort(), [
      "bench-arm64-1/20261101T000100Z-123456/startup/hello/node-22.11.0.json",
      "bench-x64-1/20261101T000000Z-abcdef/startup/hello/bun-1.2.0.json",
      "bench-x64-1/20261101T000000Z-abcdef/startup/hello/node-22.11.0.json",
    ]);
    assert.deepEqual(JSON.parse(readFileSync(join(data, "bench-arm64-1/20261101T000100Z-123456/startup/hello/node-22.11.0.json"), "utf8")), armNode);
    const second = await collectResults([artifacts], data);
    assert.deepEqual({ added: second.added, alreadyPresent: second.alreadyPresent, problems: second.problems }, { added: [], alreadyPresent: 3, problems: [] });
    assert.equal(listResultFiles([data]).length, 3);
  });

  it("refuses an emulated result, even a dedicated runner's, and the site leaves it out", async () => {
    const artifacts = tempDir("artifacts");
    const emulated = makeResult({ run: { id: "20261101T000200Z-0a0b0c" }, environment: { arch: "arm64", emulated: { emulator: "qemu-aarch64-static", host_arch: "x86_64" } } });
    await artifact(artifacts, "emulated", [emulated, x64Bun]);
    const outcome = await collectResults([artifacts], tempDir("data"));
    assert.deepEqual(outcome.added, [], "nothing is written while any file is refused");
    assert.equal(outcome.problems.length, 1);
    assert.match(outcome.problems[0]!, /node-22\.11\.0\.json: measured under qemu-aarch64-static \(arm64 on x86_64\): an emulated result checks that a runtime runs, and is never published$/);
    const site = loadResults(join(artifacts, "emulated"));
    assert.deepEqual(site.results.map((r) => r.measurement.runtime), ["bun"]);
    assert.equal(site.skipped.length, 1);
    assert.match(site.skipped[0]!, /emulated \(qemu-aarch64-static\), never published$/);
  });

  it("counts the same result in two artifacts once", async () => {
    const artifacts = tempDir("artifacts");
    const data = tempDir("data");
    await artifact(artifacts, "first", [x64Node]);
    await artifact(artifacts, "again", [x64Node]);
    const outcome = await collectResults([artifacts], data);
    assert.equal(outcome.added.length, 1);
    assert.equal(outcome.files, 2);
  });

  it("writes nothing when any file has a problem, and names each problem", async () => {
    const artifacts = tempDir("artifacts");
    const data = tempDir("data");
    await artifact(artifacts, "good", [x64Node]);
    await artifact(artifacts, "hosted", [makeResult({ run: { runner: "github-hosted", runner_kind: "hosted" } })]);
    const [moved] = await artifact(artifacts, "moved", [x64Bun]);
    renameSync(moved!, join(dirname(moved!), "bun-1.3.0.json"));
    mkdirSync(join(artifacts, "broken"));
    writeFileSync(join(artifacts, "broken", "node-1.json"), "{not json");
    const [invalid] = await artifact(artifacts, "invalid", [armNode]);
    writeFileSync(invalid!, JSON.stringify({ ...armNode, metrics: {} }));
    const outcome = await collectResults([artifacts], data);
    assert.equal(outcome.problems.length, 4, outcome.problems.join("\n"));
    assert.match(outcome.problems.join("\n"), /hosted runner's result; only dedicated/);
    assert.match(outcome.problems.join("\n"), /bun-1\.3\.0\.json: its contents belong at .*bun-1\.2\.0\.json/);
    assert.match(outcome.problems.join("\n"), /node-1\.json: not valid JSON/);
    assert.match(outcome.problems.join("\n"), /\/metrics: must NOT have fewer than 1 properties/);
    assert.deepEqual(outcome.added, []);
    assert.equal(existsSync(join(data, "bench-x64-1")), false);
  });

  it("never rewrites a result: a different file at the same place is a problem", async () => {
    const artifacts = tempDir("artifacts");
    const data = tempDir("data");
    await writeResult(data, x64Node);
    const before = readFileSync(join(data, "bench-x64-1/20261101T000000Z-abcdef/startup/hello/node-22.11.0.json"), "utf8");
    await artifact(artifacts, "rerun", [makeResult({ metrics: { wall_ms: { ...x64Node.metrics.wall_ms!, median: 1 } } })]);
    const outcome = await collectResults([artifacts], data);
    assert.match(outcome.problems.join(), /already holds a different result, and results are never rewritten/);
    assert.equal(readFileSync(join(data, "bench-x64-1/20261101T000000Z-abcdef/startup/hello/node-22.11.0.json"), "utf8"), before);
  });

  it("rejects two different results for one place among the artifacts", async () => {
    const artifacts = tempDir("artifacts");
    await artifact(artifacts, "a", [x64Node]);
    await artifact(artifacts, "b", [makeResult({ reproduce: "something else" })]);
    const outcome = await collectResults([artifacts], tempDir("data"));
    assert.match(outcome.problems.join(), /differs from .*another result for bench-x64-1\//);
  });
});
