import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readJsonFile } from "../../src/core/json-file.ts";
import { runStandIn, STAND_INS, writeStandIns } from "../../src/act/stand-ins.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

/** The stand-ins' behaviour that the end-to-end tests (tests/e2e/act-*.test.ts) do not reach. */
const { pins } = readJsonFile(join(REPO_ROOT, ".github/action-pins.json")) as { pins: Record<string, { sha: string }> };

function step(state: string, workspace: string, inputs: Record<string, string>) {
  const output = join(workspace, "output.txt");
  writeFileSync(output, "");
  return {
    env: { RUNTIME_BENCH_ACT_STATE: state, GITHUB_WORKSPACE: workspace, GITHUB_RUN_ID: "3", GITHUB_OUTPUT: output, RUNTIME_BENCH_ACT_INPUTS: JSON.stringify(inputs) },
    output: () => readFileSync(output, "utf8"),
  };
}

describe("scripts/act's stand-ins", () => {
  it("map every pinned action at its pinned commit, and refuse a pin without a stand-in", () => {
    const state = tempDir("stand-ins");
    const mappings = writeStandIns(state, pins);
    assert.deepEqual(mappings, Object.entries(pins).map(([repo, { sha }]) => `${repo}@${sha}=${join(state, "actions", repo)}`));
    for (const name of Object.keys(STAND_INS)) assert.ok(existsSync(join(state, "actions", name, "action.yml")), `${name} has an action.yml`);
    assert.match(readFileSync(join(state, "actions/actions/deploy-pages/action.yml"), "utf8"), /page_url:\n    value: \$\{\{ steps\.stand-in\.outputs\.page_url \}\}/);
    assert.throws(() => writeStandIns(state, { ...pins, "someone/else": { sha: "0".repeat(40) } }), (error: Error) => error instanceof UserError && /someone\/else/.test(error.message));
  });

  it("cache: save keeps the first entry of a key; restore takes the exact key, else the newest entry of a restore key", async () => {
    const state = tempDir("stand-in-cache");
    const workspace = tempDir("stand-in-workspace");
    const save = async (key: string, content: string, mtime: number) => {
      writeFileSync(join(workspace, "kept.txt"), content);
      await runStandIn("actions/cache/save", step(state, workspace, { path: "kept.txt", key }).env);
      utimesSync(join(state, "cache", key), mtime, mtime);
    };
    await save("store-1", "one", 1000);
    await save("store-2", "two", 2000);
    await save("store-2", "ignored", 3000);
    const restore = async (inputs: Record<string, string>) => {
      writeFileSync(join(workspace, "kept.txt"), "none");
      const { env, output } = step(state, workspace, { path: "kept.txt", ...inputs });
      await runStandIn("actions/cache/restore", env);
      return [readFileSync(join(workspace, "kept.txt"), "utf8"), /cache-hit<<\w+\n(\w+)/.exec(output())?.[1]];
    };
    assert.deepEqual(await restore({ key: "store-1" }), ["one", "true"]);
    assert.deepEqual(await restore({ key: "store-9", "restore-keys": "other-\nstore-" }), ["two", "false"]);
    assert.deepEqual(await restore({ key: "store-9" }), ["none", "false"]);
    const records = readFileSync(join(state, "records.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { action: string; restored?: string | null });
    assert.deepEqual(records.filter((r) => r.action === "actions/cache/restore").map((r) => r.restored), ["store-1", "store-2", null]);
  });

  it("cache: restore gives its key back as cache-primary-key, as the workflows save under it; save refuses an empty key", async () => {
    const state = tempDir("stand-in-cache-key");
    const workspace = tempDir("stand-in-workspace");
    const restore = step(state, workspace, { path: "kept.txt", key: "tools-abc" });
    await runStandIn("actions/cache/restore", restore.env);
    assert.equal(/cache-primary-key<<(\w+)\n(.*)\n\1/.exec(restore.output())?.[2], "tools-abc");
    writeFileSync(join(workspace, "kept.txt"), "one");
    await assert.rejects(runStandIn("actions/cache/save", step(state, workspace, { path: "kept.txt", key: " " }).env), (error: Error) => error instanceof UserError && /empty key/.test(error.message));
    assert.equal(existsSync(join(state, "cache")), false);
  });

  it("cache: a save whose copy fails warns and saves nothing, as the real action does, and leaves the key free", async () => {
    const state = tempDir("stand-in-cache-failed");
    const workspace = tempDir("stand-in-workspace");
    mkdirSync(join(workspace, "tools"));
    writeFileSync(join(workspace, "tools", "kept.txt"), "one");
    // A named pipe is what a copy cannot take, like a file that vanishes while the folder is copied.
    execFileSync("mkfifo", [join(workspace, "tools", "pipe")]);
    const save = () => runStandIn("actions/cache/save", step(state, workspace, { path: "tools", key: "tools-1" }).env);
    // The warning goes to the job's log, here this test's: kept, and checked, rather than printed.
    const printed: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => printed.push(chunk) > 0) as typeof process.stderr.write;
    try {
      await save();
    } finally {
      process.stderr.write = write;
    }
    assert.match(printed.join(""), /^::warning::Failed to save: .*FIFO.*; no cache entry saved under tools-1\n$/i);
    assert.equal(existsSync(join(state, "cache", "tools-1")), false);
    assert.deepEqual(existsSync(join(state, "cache-saving")) ? readdirSync(join(state, "cache-saving")) : [], []);
    const [record] = readFileSync(join(state, "records.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { warning?: string });
    assert.match(record?.warning ?? "", /^Failed to save: .*FIFO/i);
    rmSync(join(workspace, "tools", "pipe"));
    await save();
    assert.equal(readFileSync(join(state, "cache", "tools-1", "0", "kept.txt"), "utf8"), "one");
  });

  it("artifacts: a name is uploaded once per run, and a pattern downloads each match into its own folder", async () => {
    const state = tempDir("stand-in-artifacts");
    const workspace = tempDir("stand-in-workspace");
    for (const name of ["results-a-1", "results-a-2", "results-b-1"]) {
      mkdirSync(join(workspace, name));
      writeFileSync(join(workspace, name, "r.json"), name);
      await runStandIn("actions/upload-artifact", step(state, workspace, { name, path: name }).env);
    }
    await assert.rejects(runStandIn("actions/upload-artifact", step(state, workspace, { name: "results-a-1", path: "results-a-1" }).env), /already exists/);
    await runStandIn("actions/download-artifact", step(state, workspace, { pattern: "results-a-*", path: "got" }).env);
    assert.deepEqual(["results-a-1", "results-a-2"].map((name) => readFileSync(join(workspace, "got", name, "r.json"), "utf8")), ["results-a-1", "results-a-2"]);
    assert.equal(existsSync(join(workspace, "got", "results-b-1")), false);
  });

  it("artifacts: a pattern matching exactly one unpacks it without its name folder, as download-artifact v8 does", async () => {
    const state = tempDir("stand-in-artifacts");
    const workspace = tempDir("stand-in-workspace");
    mkdirSync(join(workspace, "out", "bench-x64-1"), { recursive: true });
    writeFileSync(join(workspace, "out", "bench-x64-1", "r.json"), "one");
    await runStandIn("actions/upload-artifact", step(state, workspace, { name: "results-call-0-bench-x64-1-node-22.11.0", path: "out" }).env);
    await runStandIn("actions/download-artifact", step(state, workspace, { pattern: "results-call-0-*", path: "got" }).env);
    assert.equal(readFileSync(join(workspace, "got", "bench-x64-1", "r.json"), "utf8"), "one");
    assert.equal(existsSync(join(workspace, "got", "results-call-0-bench-x64-1-node-22.11.0")), false);
  });

  it("github-script: lists a run's artifacts as uploaded, answers from the run's own files first, and paginates as Octokit does", async () => {
    const state = tempDir("stand-in-api");
    const workspace = tempDir("stand-in-workspace");
    mkdirSync(join(workspace, "out"));
    writeFileSync(join(workspace, "out", "r.json"), "one");
    await runStandIn("actions/upload-artifact", step(state, workspace, { name: "results-run-a", path: "out" }).env);
    mkdirSync(join(state, "github-api", "3"), { recursive: true });
    writeFileSync(join(state, "github-api", "actions.listJobsForWorkflowRun.json"), JSON.stringify({ total_count: 1, jobs: [{ name: "any run's" }] }));
    writeFileSync(join(state, "github-api", "3", "actions.listJobsForWorkflowRun.json"), JSON.stringify({ total_count: 1, jobs: [{ name: "run 3's" }] }));
    const script = [
      'const { writeFileSync } = require("node:fs");',
      "const run = { ...context.repo, run_id: context.runId, per_page: 100 };",
      "const jobs = await github.paginate(github.rest.actions.listJobsForWorkflowRun, run);",
      "const others = await github.paginate(github.rest.actions.listJobsForWorkflowRun, { ...run, run_id: 4 });",
      "const artifacts = await github.paginate(github.rest.actions.listWorkflowRunArtifacts, run);",
      `writeFileSync(${JSON.stringify(join(workspace, "run.json"))}, JSON.stringify({ jobs, others, artifacts }));`,
    ].join("\n");
    const before = Date.now() - 1000;
    await runStandIn("actions/github-script", step(state, workspace, { script }).env);
    const listed = JSON.parse(readFileSync(join(workspace, "run.json"), "utf8")) as { jobs: { name: string }[]; others: { name: string }[]; artifacts: { name: string; created_at: string }[] };
    assert.deepEqual(listed.jobs.map((job) => job.name), ["run 3's"]);
    assert.deepEqual(listed.others.map((job) => job.name), ["any run's"]);
    assert.deepEqual(listed.artifacts.map((artifact) => artifact.name), ["results-run-a"]);
    assert.ok(Date.parse(listed.artifacts[0]!.created_at) >= before, "created when uploaded");
  });
});
