import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { artifactName, collectResults, type CollectTrust } from "../../src/collect/collect.ts";
import type { MatrixEntry } from "../../src/releases/matrix.ts";
import { loadBenchRunners, type BenchRunner } from "../../src/releases/runners.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { loadResults } from "../../src/site/load.ts";
import { listResultFiles, readResultFile } from "../../src/results/store.ts";
import { writeResult } from "../../src/results/store.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { declaredMetrics } from "../../src/cli/commands/validate.ts";

/** An artifact as download-artifact lays it out: `<artifact name>/<runner>/<run id>/...`. */
async function artifact(root: string, name: string, docs: ReturnType<typeof makeResult>[]): Promise<string[]> {
  const paths: string[] = [];
  for (const doc of docs) paths.push(await writeResult(join(root, name), doc));
  return paths;
}

/** The time of the collects below: a day after the runs makeResult dates. */
const NOW = new Date("2026-11-02T00:00:00Z");

/** The machines the results claim, each with the fingerprint makeResult gives it. */
const RUNNERS: CollectTrust = { runners: loadBenchRunners(join(REPO_ROOT, "tests/fixtures/bench-runners.json")), declared: declaredMetrics(), now: NOW };

const x64Node = makeResult();
const x64Bun = makeResult({ runtime: { name: "bun", version: "1.2.0", package: "@oven/bun-linux-x64" } });
const armNode = makeResult({ run: { runner: "bench-arm64-1", id: "20261101T000100Z-123456", started_at: "2026-11-01T00:01:00.000Z" }, environment: { arch: "arm64" } });

describe("collecting artifacts into data/", () => {
  it("adds every new result at the place its contents name, and nothing the second time", async () => {
    const artifacts = tempDir("artifacts");
    const data = tempDir("data");
    await artifact(artifacts, "results-bench-x64-1-node-22.11.0", [x64Node, x64Bun]);
    await artifact(artifacts, "results-bench-arm64-1-node-22.11.0", [armNode]);
    const first = await collectResults([artifacts], data, RUNNERS);
    assert.deepEqual(first.problems, []);
    assert.deepEqual(first.added.sort(), [
      "bench-arm64-1/20261101T000100Z-123456/startup/hello/node-22.11.0.json",
      "bench-x64-1/20261101T000000Z-abcdef/startup/hello/bun-1.2.0.json",
      "bench-x64-1/20261101T000000Z-abcdef/startup/hello/node-22.11.0.json",
    ]);
    assert.deepEqual(readResultFile(join(data, "bench-arm64-1/20261101T000100Z-123456/startup/hello/node-22.11.0.json")), armNode);
    const second = await collectResults([artifacts], data, RUNNERS);
    assert.deepEqual({ added: second.added, alreadyPresent: second.alreadyPresent, problems: second.problems }, { added: [], alreadyPresent: 3, problems: [] });
    assert.equal(listResultFiles([data]).length, 3);
  });

  it("refuses an emulated result, even a dedicated runner's, and the site leaves it out", async () => {
    const artifacts = tempDir("artifacts");
    const emulated = makeResult({ run: { id: "20261101T000200Z-0a0b0c" }, environment: { arch: "arm64", emulated: { emulator: "qemu-aarch64-static", host_arch: "x86_64" } } });
    await artifact(artifacts, "emulated", [emulated, x64Bun]);
    const outcome = await collectResults([artifacts], tempDir("data"), RUNNERS);
    assert.deepEqual(outcome.added, [], "nothing is written while any file is refused");
    assert.ok(outcome.problems.every((problem) => problem.includes("node-22.11.0.json")), "bun's result is not the problem");
    const emulatedProblems = outcome.problems.filter((problem) => problem.includes("measured under"));
    assert.equal(emulatedProblems.length, 1);
    assert.match(emulatedProblems[0]!, /node-22\.11\.0\.json: measured under qemu-aarch64-static \(arm64 on x86_64\): an emulated result checks that a runtime runs, and is never published$/);
    const site = loadResults(join(artifacts, "emulated"));
    assert.deepEqual(site.results.map((r) => r.doc.runtime.name), ["bun"]);
    assert.equal(site.skipped.length, 1);
    assert.match(site.skipped[0]!, /emulated \(qemu-aarch64-static\), never published$/);
  });

  it("counts the same result in two artifacts once", async () => {
    const artifacts = tempDir("artifacts");
    const data = tempDir("data");
    await artifact(artifacts, "first", [x64Node]);
    await artifact(artifacts, "again", [x64Node]);
    const outcome = await collectResults([artifacts], data, RUNNERS);
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
    const outcome = await collectResults([artifacts], data, RUNNERS);
    assert.equal(outcome.problems.length, 5, outcome.problems.join("\n"));
    assert.match(outcome.problems.join("\n"), /claims runner 'github-hosted', which \.github\/bench-runners\.json does not list/);
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
    const outcome = await collectResults([artifacts], data, RUNNERS);
    assert.match(outcome.problems.join(), /already holds a different result, and results are never rewritten/);
    assert.equal(readFileSync(join(data, "bench-x64-1/20261101T000000Z-abcdef/startup/hello/node-22.11.0.json"), "utf8"), before);
  });

  it("rejects two different results for one place among the artifacts", async () => {
    const artifacts = tempDir("artifacts");
    await artifact(artifacts, "a", [x64Node]);
    await artifact(artifacts, "b", [makeResult({ reproduce: "scripts/bench run --suite startup --scenario hello --runtime node@22.11.0 --profile full" })]);
    const outcome = await collectResults([artifacts], tempDir("data"), RUNNERS);
    assert.match(outcome.problems.join(), /differs from .*another result for bench-x64-1\//);
  });

  describe("against the job that made each artifact", () => {
    const job = (runner: string, arch: "x86_64" | "arm64", runtime: "node" | "bun", version: string): MatrixEntry => ({
      runtime, version, runner, arch, labels: ["self-hosted", runner], suites: "startup", scenarios: "", apps: "", channel: "release", predecessor: "",
    });
    const jobs = [job("bench-x64-1", "x86_64", "node", "22.11.0"), job("bench-arm64-1", "arm64", "node", "22.11.0")];
    const planned: CollectTrust = { ...RUNNERS, plan: { call: "call-0", jobs } };

    it("adds what each planned job's artifact holds when every claim matches its job", async () => {
      const artifacts = tempDir("artifacts");
      await artifact(artifacts, artifactName("call-0", jobs[0]!), [x64Node]);
      await artifact(artifacts, artifactName("call-0", jobs[1]!), [armNode]);
      const outcome = await collectResults([artifacts], tempDir("data"), planned);
      assert.deepEqual(outcome.problems, []);
      assert.equal(outcome.added.length, 2);
    });

    it("adds the predecessor a release job measured beside its release, and nothing older", async () => {
      const release = { ...job("bench-x64-1", "x86_64", "node", "22.11.0"), predecessor: "22.10.0" };
      const trust: CollectTrust = { ...RUNNERS, plan: { call: "call-0", jobs: [release] } };
      const beside = makeResult({ run: { id: "20261101T000000Z-bbbbb1" }, runtime: { ...x64Node.runtime, version: "22.10.0" } });
      const older = makeResult({ run: { id: "20261101T000000Z-bbbbb2" }, runtime: { ...x64Node.runtime, version: "22.9.0" } });
      const artifacts = tempDir("artifacts");
      await artifact(artifacts, artifactName("call-0", release), [x64Node, beside]);
      assert.deepEqual((await collectResults([artifacts], tempDir("data"), trust)).problems, []);
      const [stray] = await artifact(artifacts, artifactName("call-0", release), [older]);
      assert.deepEqual((await collectResults([artifacts], tempDir("data"), trust)).problems, [`${stray}: claims node 22.9.0, but its job measured node 22.11.0 and 22.10.0`]);
    });

    it("refuses another runner, another architecture, an unplanned version and an unknown artifact, naming each, and leaves data/ as it was", async () => {
      const artifacts = tempDir("artifacts");
      const data = tempDir("data");
      await writeResult(data, makeResult({ run: { id: "20261101T000000Z-0000aa" }, runtime: x64Bun.runtime }));
      const before = listResultFiles([data]).map((file) => [file, readFileSync(file, "utf8")]);
      // The x86_64 machine's job publishes for the arm64 machine; the arm64 job claims x86_64
      // hardware; a job of node 22.11.0 claims a version nobody planned; a job's own upload.
      const [otherRunner] = await artifact(artifacts, artifactName("call-0", jobs[0]!), [makeResult({ run: { runner: "bench-arm64-1", id: "20261101T000000Z-aaaaa1" }, environment: { arch: "arm64" } })]);
      const [otherArch] = await artifact(artifacts, artifactName("call-0", jobs[1]!), [makeResult({ run: { runner: "bench-arm64-1", id: "20261101T000000Z-aaaaa2" } })]);
      const unplanned = makeResult({ run: { id: "20261101T000000Z-aaaaa3" }, runtime: { ...x64Node.runtime, version: "99.0.0" } });
      const [otherVersion] = await artifact(artifacts, artifactName("call-0", jobs[0]!), [unplanned]);
      const [unknown] = await artifact(artifacts, "results-call-0-bench-x64-1-node-99.0.0", [unplanned]);
      const [unlisted] = await artifact(artifacts, artifactName("call-0", jobs[0]!), [makeResult({ run: { runner: "bench-x64-9", id: "20261101T000000Z-aaaaa4" } })]);
      const [otherMachine] = await artifact(artifacts, artifactName("call-0", jobs[0]!), [makeResult({ run: { id: "20261101T000000Z-aaaaa5" }, environment: { fingerprint: "fedcba9876543210" } })]);
      await artifact(artifacts, artifactName("call-0", jobs[0]!), [x64Node]);
      const outcome = await collectResults([artifacts], data, planned);
      const problems = outcome.problems.join("\n");
      assert.equal(outcome.problems.length, 7, problems);
      const named = (file: string, problem: string) => assert.ok(outcome.problems.includes(`${file}: ${problem}`), `${file}: ${problem}\nnot in\n${problems}`);
      named(otherRunner!, "claims runner 'bench-arm64-1', but its job ran on bench-x64-1");
      named(otherArch!, "claims architecture x86_64, but bench-arm64-1 is arm64 (.github/bench-runners.json)");
      named(otherVersion!, "claims node 99.0.0, but its job measured node 22.11.0");
      named(unknown!, "is in artifact 'results-call-0-bench-x64-1-node-99.0.0', which no job of call 'call-0' uploads");
      named(unlisted!, "claims runner 'bench-x64-9', which .github/bench-runners.json does not list");
      named(unlisted!, "claims runner 'bench-x64-9', but its job ran on bench-x64-1");
      named(otherMachine!, "claims fingerprint fedcba9876543210, but bench-x64-1's is 0123456789abcdef (.github/bench-runners.json)");
      assert.deepEqual(outcome.added, []);
      assert.deepEqual(listResultFiles([data]).map((file) => [file, readFileSync(file, "utf8")]), before, "data/ unchanged");
    });

    it("refuses every result of a machine whose fingerprint is not yet recorded, naming the one it carries", async () => {
      const artifacts = tempDir("artifacts");
      const [file] = await artifact(artifacts, artifactName("call-0", jobs[0]!), [x64Node]);
      const unrecorded: CollectTrust = { ...planned, runners: (planned.runners as BenchRunner[]).map(({ fingerprint: _, ...runner }) => runner) };
      const outcome = await collectResults([artifacts], tempDir("data"), unrecorded);
      assert.deepEqual(outcome.problems, [`${file}: bench-x64-1 has no fingerprint in .github/bench-runners.json; this result's is 0123456789abcdef (docs/self-hosted-runner.md, "Check the machine")`]);
    });
  });
});
