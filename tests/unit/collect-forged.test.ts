import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { declaredMetrics } from "../../src/cli/commands/validate.ts";
import { artifactName, collectResults, type CollectTrust } from "../../src/collect/collect.ts";
import { uploadStepName, type WorkflowRun } from "../../src/collect/workflow-run.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import type { MatrixEntry } from "../../src/releases/matrix.ts";
import { loadBenchRunners } from "../../src/releases/runners.ts";
import { readResultFile, resultPath, writeResult } from "../../src/results/store.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

/*
 * What a compromised benchmark job could upload as its artifact, or as another job's, and what
 * collect does with it: refuses it, naming the file and what it claims, and writes nothing at all,
 * not even the honest artifacts beside it. Every case runs through collectResults and through
 * `scripts/bench collect` itself.
 */

const RUNNERS_FILE = join(REPO_ROOT, "tests/fixtures/bench-runners.json");
const CALL = "run";
const NOW = new Date("2026-11-02T00:00:00Z");

const job = (runner: string, arch: "x86_64" | "arm64", version: string, predecessor: string, channel: "release" | "canary" = "release"): MatrixEntry => ({
  runtime: "node", version, runner, arch, labels: ["self-hosted", runner], suites: "startup", scenarios: "", apps: "", channel, predecessor,
});
const X64 = job("bench-x64-1", "x86_64", "22.11.0", "22.10.0");
const ARM = job("bench-arm64-1", "arm64", "22.11.0", "22.10.0");
const CANARY = job("bench-x64-1", "x86_64", "23-nightly", "22.11.0", "canary");

const x64Node = makeResult();
const armNode = makeResult({ run: { runner: "bench-arm64-1", id: "20261101T000100Z-123456", started_at: "2026-11-01T00:01:00.000Z" }, environment: { arch: "arm64" } });

/** A job of the run as GitHub's API lists it, its upload step named for its artifact. */
function listedJob(entry: MatrixEntry, upload: "success" | "failure" = "success", call = CALL) {
  return {
    name: `${entry.runtime} ${entry.version} on ${entry.runner}`,
    started_at: "2026-10-31T23:50:00Z",
    completed_at: "2026-11-01T02:00:00Z",
    steps: [
      { name: "Run the benchmarks", conclusion: "success", started_at: "2026-10-31T23:55:00Z", completed_at: "2026-11-01T01:59:00Z" },
      { name: uploadStepName(artifactName(call, entry)), conclusion: upload, started_at: "2026-11-01T01:59:00Z", completed_at: "2026-11-01T01:59:30Z" },
    ],
  };
}

/** The run's record: each job and its upload; each artifact made while its job uploaded it, unless `created` says otherwise. */
function runRecord(jobs: { entry: MatrixEntry; upload?: "success" | "failure"; created?: string }[], call = CALL): WorkflowRun {
  return {
    jobs: jobs.map(({ entry, upload }) => listedJob(entry, upload, call)),
    artifacts: jobs.map(({ entry, created }) => ({ name: artifactName(call, entry), created_at: created ?? "2026-11-01T01:59:10Z" })),
  };
}

/** A result file written as a forger would: any text at the place its contents name. */
function writeRaw(root: string, doc: ResultDocument, text = JSON.stringify(doc)): string {
  const path = resultPath(root, doc);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Every entry below `dir`, hidden ones included, with its size: what "nothing written" is held to. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => {
    const path = join(entry.parentPath, entry.name);
    return `${relative(dir, path)} ${entry.isFile() ? statSync(path).size : "dir"}`;
  }).sort();
}

interface ForgedCase {
  readonly name: string;
  readonly jobs: readonly MatrixEntry[];
  readonly call?: string;
  /** The run's record, for the cases only GitHub's record of the run gives away. */
  readonly run?: WorkflowRun;
  /** Writes the artifacts (one folder each, named for its job) and what data/ holds; returns the forged file. */
  readonly make: (artifacts: string, data: string) => Promise<string>;
  readonly refused: RegExp;
}

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

const CASES: readonly ForgedCase[] = [
  {
    name: "a parameter holding a line break, which a reproduction script would run",
    jobs: [X64, ARM],
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), { ...armNode, params: { mode: "fast\ntouch /tmp/pwned" } });
    },
    refused: /\/params\/mode: must be one line with no control character/,
  },
  {
    name: "a unit holding markup, which github-action-benchmark writes raw",
    jobs: [X64, ARM],
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), { ...armNode, metrics: { wall_ms: { ...armNode.metrics.wall_ms!, unit: "<img src=x onerror=alert(1)> @maintainer | <!--" } } });
    },
    refused: /\/metrics\/wall_ms\/unit: '<img src=x onerror=alert\(1\)> @maintainer \| <!--', but the startup suite declares 'ms'/,
  },
  {
    name: "a metric of 1e999, which JSON reads as Infinity",
    jobs: [X64, ARM],
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), armNode, JSON.stringify(armNode).replace('"samples":[30,', '"samples":[1e999,'));
    },
    refused: /\/metrics\/wall_ms\/samples\/0: Infinity is not a finite number/,
  },
  {
    name: "a canary job's node 99.0.0, labelled canary",
    jobs: [CANARY],
    call: "canary",
    make: async (artifacts) => {
      const folder = join(artifacts, artifactName("canary", CANARY));
      await writeResult(folder, makeResult({ label: "release" }));
      return writeRaw(folder, makeResult({ label: "canary", runtime: { ...x64Node.runtime, version: "99.0.0" } }));
    },
    refused: /claims node 99\.0\.0 labelled canary, but 99\.0\.0 is a release, not a nightly or canary build/,
  },
  {
    name: "a canary job's unlabelled node 22.11.0",
    jobs: [CANARY],
    call: "canary",
    make: async (artifacts) => {
      const folder = join(artifacts, artifactName("canary", CANARY));
      await writeResult(folder, makeResult({ run: { id: "20261101T000000Z-c0ffee" }, label: "canary", runtime: { ...x64Node.runtime, version: "23.0.0-nightly20261031a1b2c3d4e5" } }));
      return writeRaw(folder, makeResult({ run: { id: "20261101T000000Z-c0ffee" } }));
    },
    refused: /claims node 22\.11\.0, but a canary job's results are labelled release or canary/,
  },
  {
    name: "a run dated 2099, which would shadow the honest run of its version",
    jobs: [X64, ARM],
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), makeResult({ run: { ...armNode.run, id: "20990101T000000Z-123456", started_at: "2099-01-01T00:00:00.000Z" }, environment: { arch: "arm64" } }));
    },
    refused: /claims a run started at 2099-01-01T00:00:00\.000Z, later than now/,
  },
  {
    name: "a result added to an old run's folder",
    jobs: [X64, ARM],
    make: async (artifacts, data) => {
      const old = { id: "20261001T000000Z-0001d0", started_at: "2026-10-01T00:00:00.000Z" };
      await writeResult(data, makeResult({ run: old, runtime: { ...x64Node.runtime, version: "22.10.0" } }));
      await writeResult(join(artifacts, artifactName(CALL, ARM)), armNode);
      return writeRaw(join(artifacts, artifactName(CALL, X64)), makeResult({ run: old }));
    },
    refused: /adds to run folder bench-x64-1\/20261001T000000Z-0001d0, which data\/ already holds/,
  },
  {
    name: "details nested 5,000 deep",
    jobs: [X64, ARM],
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), armNode, JSON.stringify(armNode).replace(/\}$/, `,"details":${deep(5000)}}`));
    },
    refused: /\/details(\/a)+: nested deeper than 32 levels/,
  },
  {
    name: "a metric of 100,001 samples",
    jobs: [X64, ARM],
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      const samples = Array.from({ length: 100_001 }, (_, i) => 30 + (i % 3));
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), { ...armNode, metrics: { wall_ms: { ...armNode.metrics.wall_ms!, samples } } });
    },
    refused: /\/metrics\/wall_ms\/samples: 100001 samples, more than a metric's 100000/,
  },
  {
    name: "a result file of 17 MB",
    jobs: [X64, ARM],
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), armNode, JSON.stringify({ ...armNode, details: { padding: "x".repeat(17 * 1024 * 1024) } }));
    },
    refused: /\d+ bytes, more than a result's 16777216/,
  },
  {
    name: "an arm64 result made elsewhere, in an artifact named for the arm64 job before that job uploaded its own",
    jobs: [X64, ARM],
    // The arm64 job's own upload then fails: the name is taken.
    run: runRecord([{ entry: X64 }, { entry: ARM, upload: "failure", created: "2026-11-01T00:30:00Z" }]),
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), armNode);
    },
    refused: /the upload of artifact 'results-run-bench-arm64-1-node-22\.11\.0' in job 'node 22\.11\.0 on bench-arm64-1' ended failure/,
  },
  {
    name: "an artifact put in place of the arm64 job's after it uploaded its own",
    jobs: [X64, ARM],
    run: runRecord([{ entry: X64 }, { entry: ARM, created: "2026-11-01T02:10:00Z" }]),
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), armNode);
    },
    refused: /artifact 'results-run-bench-arm64-1-node-22\.11\.0' was created at 2026-11-01T02:10:00Z, not while job 'node 22\.11\.0 on bench-arm64-1' uploaded it/,
  },
  {
    name: "a run dated before its job started",
    jobs: [X64, ARM],
    run: runRecord([{ entry: X64 }, { entry: ARM }]),
    make: async (artifacts) => {
      await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
      return writeRaw(join(artifacts, artifactName(CALL, ARM)), makeResult({ run: { ...armNode.run, id: "20261020T000000Z-123456", started_at: "2026-10-20T00:00:00.000Z" }, environment: { arch: "arm64" } }));
    },
    refused: /claims a run started at 2026-10-20T00:00:00\.000Z, but job 'node 22\.11\.0 on bench-arm64-1' ran from 2026-10-31T23:50:00Z to 2026-11-01T02:00:00Z/,
  },
];

/** Makes a case's artifacts, data/ and plan under a folder of its own. */
async function setUp(forged: ForgedCase) {
  const root = tempDir("forged");
  const artifacts = join(root, "artifacts");
  const data = join(root, "data");
  mkdirSync(artifacts);
  mkdirSync(data);
  const file = await forged.make(artifacts, data);
  const plan = join(root, "plan.json");
  writeFileSync(plan, JSON.stringify({ include: forged.jobs }));
  const run = join(root, "run.json");
  if (forged.run) writeFileSync(run, JSON.stringify(forged.run));
  return { artifacts, data, file, plan, run, before: snapshot(data) };
}

describe("a forged artifact: refused, and nothing at all written", () => {
  for (const forged of CASES) {
    it(forged.name, async () => {
      const { artifacts, data, file, before } = await setUp(forged);
      const trust: CollectTrust = {
        runners: loadBenchRunners(RUNNERS_FILE),
        declared: declaredMetrics(),
        plan: { call: forged.call ?? CALL, jobs: forged.jobs },
        now: NOW,
        ...(forged.run ? { run: forged.run } : {}),
      };
      const outcome = await collectResults([artifacts], data, trust);
      assert.deepEqual(outcome.added, []);
      assert.ok(outcome.problems.some((problem) => forged.refused.test(problem)), `${forged.refused}\nnot in\n${outcome.problems.join("\n")}`);
      if (!forged.run) assert.ok(outcome.problems.every((problem) => problem.startsWith(`${file}: `)), `only the forged file is named:\n${outcome.problems.join("\n")}`);
      assert.deepEqual(snapshot(data), before, "data/ as it was");
    });
  }

  it("scripts/bench collect, for every case: exit 1, the problem named, data/ as it was", async () => {
    for (const forged of CASES) {
      const { artifacts, data, plan, run, before } = await setUp(forged);
      const args = ["collect", artifacts, "--data", data, "--runners", RUNNERS_FILE, "--plan", plan, "--call", forged.call ?? CALL, ...(forged.run ? ["--run", run] : [])];
      const out = await bench(args);
      assert.equal(out.code, 1, `${forged.name}: ${out.stderr}`);
      assert.match(out.stderr, forged.refused, forged.name);
      assert.match(out.stderr, /; nothing collected\n$/, forged.name);
      assert.deepEqual(snapshot(data), before, `${forged.name}: data/ as it was`);
    }
  });
});

describe("download-artifact's layouts", () => {
  it("takes a single artifact unpacked without its name folder (download-artifact v8, one match), as the run's record names it", async () => {
    const root = tempDir("single");
    const artifacts = join(root, "artifacts");
    await writeResult(artifacts, armNode);
    const base: CollectTrust = { runners: loadBenchRunners(RUNNERS_FILE), declared: declaredMetrics(), plan: { call: CALL, jobs: [X64, ARM] }, now: NOW };
    const listed = await collectResults([artifacts], join(root, "data"), { ...base, run: runRecord([{ entry: ARM }]) });
    assert.deepEqual([listed.problems, listed.added.length], [[], 1]);
    const alone = await collectResults([artifacts], join(root, "data-2"), { ...base, plan: { call: CALL, jobs: [ARM] } });
    assert.deepEqual([alone.problems, alone.added.length], [[], 1], "a plan of one job, without the run's record");
    const unnamed = await collectResults([artifacts], join(root, "data-3"), base);
    assert.match(unnamed.problems.join("\n"), /is in artifact 'bench-arm64-1', which no job of call 'run' uploads/, "two planned jobs and no record: which artifact it was is unknown");
    const other = await collectResults([artifacts], join(root, "data-4"), { ...base, run: runRecord([{ entry: X64 }]) });
    assert.match(other.problems.join("\n"), /claims runner 'bench-arm64-1', but its job ran on bench-x64-1/, "held to the one artifact the run lists");
  });

  it("refuses an artifact the run does not list, and one no upload step made", async () => {
    const root = tempDir("unlisted");
    const artifacts = join(root, "artifacts");
    await writeResult(join(artifacts, artifactName(CALL, X64)), x64Node);
    await writeResult(join(artifacts, artifactName(CALL, ARM)), armNode);
    const base: CollectTrust = { runners: loadBenchRunners(RUNNERS_FILE), declared: declaredMetrics(), plan: { call: CALL, jobs: [X64, ARM] }, now: NOW };
    const record = runRecord([{ entry: X64 }]);
    const unlisted = await collectResults([artifacts], join(root, "data"), { ...base, run: record });
    assert.match(unlisted.problems.join("\n"), /is in artifact 'results-run-bench-arm64-1-node-22\.11\.0', which the workflow run does not list/);
    const unmade = await collectResults([artifacts], join(root, "data"), { ...base, run: { ...record, artifacts: [...record.artifacts, { name: artifactName(CALL, ARM), created_at: "2026-11-01T01:00:00Z" }] } });
    assert.match(unmade.problems.join("\n"), /artifact 'results-run-bench-arm64-1-node-22\.11\.0' was made by no successful upload step of this call/);
    const honest = await collectResults([artifacts], join(root, "data"), { ...base, run: runRecord([{ entry: X64 }, { entry: ARM }]) });
    assert.deepEqual([honest.problems, honest.added.length], [[], 2]);
    assert.ok(!readdirSync(join(root, "data")).some((name) => name.startsWith(".")), "no staging folder left behind");
    assert.deepEqual(readResultFile(resultPath(join(root, "data"), x64Node)), x64Node);
  });
});
