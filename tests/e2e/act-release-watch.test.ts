import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeResult } from "../../src/results/store.ts";
import { SUITES } from "../../src/suites/index.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readEnvironment } from "../../src/env/fingerprint.ts";
import { machineArch, RUNTIMES } from "../../src/runtimes/catalog.ts";
import type { OverviewData } from "../../src/site/model.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { act, DEFAULT_BRANCH, listJobsOf, registrySnapshot, remoteFiles, remoteLog, removeScratch, scratchRepository, standInRecords, tailOf, type RegistrySnapshot, type Scratch } from "../helpers/act.ts";
import { fewestStartsOfHello } from "../helpers/fewest-starts.ts";

/*
 * The release watch, end to end under act: the watch finds the one release a benchmark machine
 * lacks, calls benchmark.yml for it, which measures it beside its predecessor on that machine's
 * label, uploads the results, collects them into data/ on the remote and calls pages, which builds the site from them.
 *
 * The scratch repository's machines are a pool of two of this machine's architecture: bench-local
 * runs startup/hello only (its full profile set to the suite's quick one with the fewest starts a
 * trial may have, so the watch's full-profile call stays short), bench-rest the rest. The registry offers node 22.10.0 and 22.11.0, deno 2.1.4
 * and bun 1.2.0; data/ holds every one of them on both, except node 22.11.0 on bench-local.
 */
const LOCAL = "bench-local";
const PREDECESSOR = "22.10.0";
const MISSING = "22.11.0";
const RELEASES = { node: [PREDECESSOR, MISSING], deno: ["2.1.4"], bun: ["1.2.0"] } as const;

async function releaseWatchFixture(dir: string): Promise<void> {
  // This machine stands in for both: collect holds each result to the fingerprint listed here.
  const fingerprint = readEnvironment().fingerprint;
  const runner = (name: string, suites: string[]) => ({ name, arch: machineArch(), fingerprint, labels: ["self-hosted", "linux", name], pool: "local", suites });
  const runners = { backfill_lines: 3, runners: [runner(LOCAL, ["startup/hello"]), runner("bench-rest", SUITES.map((suite) => suite.name))] };
  writeFileSync(join(dir, ".github/bench-runners.json"), `${JSON.stringify(runners, null, 2)}\n`);
  // The watch measures a release beside its predecessor with adaptive trials, which run an A/A-like
  // pair to its 10-trial maximum: each trial is kept to the fewest starts.
  fewestStartsOfHello(dir, "full");
  const seed = async (runnerName: string, id: string, scenario: string, runtime: keyof typeof RELEASES, version: string) =>
    writeResult(
      join(dir, "data"),
      makeResult({ run: { runner: runnerName, id }, runtime: { name: runtime, version, spec: `${runtime}@${version}`, package: RUNTIMES[runtime].packageName(machineArch()) }, environment: { arch: machineArch() }, suite: "startup", scenario }),
    );
  for (const [runtime, versions] of Object.entries(RELEASES) as [keyof typeof RELEASES, readonly string[]][]) {
    for (const version of versions) {
      await seed("bench-rest", "20261101T000000Z-000002", "import-graph", runtime, version);
      if (!(runtime === "node" && version === MISSING)) await seed(LOCAL, "20261101T000000Z-000001", "hello", runtime, version);
    }
  }
}

/** The watch's path from the event to the deployed site; throws where a step did not do its part. */
async function watchToSite(scratch: Scratch, registry: RegistrySnapshot, event: string, payload: object): Promise<void> {
  const before = await remoteFiles(scratch, "data");
  listJobsOf(scratch, [`results-call-0-${LOCAL}-node-${MISSING}`]);
  const out = await act(scratch, "release-watch.yml", event, payload, { runnerName: LOCAL, env: { RUNTIME_BENCH_REGISTRY: registry.url } });
  assert.equal(out.code, 0, tailOf(out));
  const records = standInRecords(scratch);

  // One call, one bench job: node 22.11.0 beside 22.10.0 on bench-local, named for its call in its artifact.
  const setups = records.filter((r) => r.action === "actions/setup-node" && r.job === "bench");
  assert.deepEqual(
    setups.map((r) => r.inputs["node-version"] || r.inputs["node-version-file"]),
    [PREDECESSOR, MISSING, ".node-version"],
    "the predecessor, the runtime under test, then the harness's Node (by the file the tests' Node is named in)",
  );
  const uploads = records.filter((r) => r.action === "actions/upload-artifact");
  assert.deepEqual(uploads.map((r) => r.inputs.name), [`results-call-0-${LOCAL}-node-${MISSING}`]);
  const downloads = records.filter((r) => r.action === "actions/download-artifact");
  assert.deepEqual(downloads.map((r) => [r.inputs.pattern, r.downloaded]), [["results-call-0-*", [uploads[0]!.inputs.name]]]);
  // The call's one artifact arrives without its name folder (download-artifact v8), named by the run's record.
  const listed = records.filter((r) => r.action === "actions/github-script" && r.job === "collect");
  assert.deepEqual(listed.flatMap((r) => (r.calls as { method: string }[]).map((call) => call.method)), ["actions.listJobsForWorkflowRun", "actions.listWorkflowRunArtifacts"]);

  // collect pushed exactly the new run's two results to the default branch of the remote.
  const added = (await remoteFiles(scratch, "data")).filter((file) => !before.includes(file));
  const runIds = [...new Set(added.map((file) => file.split("/")[2]))];
  assert.equal(runIds.length, 1, `one new run on the remote, got ${added.join(", ")}`);
  const runId = runIds[0]!;
  assert.deepEqual(added.sort(), [`data/${LOCAL}/${runId}/run.json`, ...[PREDECESSOR, MISSING].map((version) => `data/${LOCAL}/${runId}/startup/hello/node-${version}.json`)].sort(), "the run's run.json and its two results");
  assert.match((await remoteLog(scratch))[0]!, new RegExp(`^data: 2 results from ${LOCAL} \\(workflow run \\d+\\)$`));

  // pages built and deployed the site from the remote's tip, with that run in it.
  const checkout = records.find((r) => r.action === "actions/checkout" && r.workflow === "pages");
  assert.ok(checkout, "pages checked out the repository");
  const card = JSON.parse(readFileSync(join(scratch.state, "pages/data/overview/startup--hello.json"), "utf8")) as OverviewData["scenarios"][number];
  const shown = card.groups.filter((g) => g.testbed.runner === LOCAL).flatMap((g) => g.figures).filter((f) => f.runtime === "node" && f.version === MISSING);
  assert.ok(shown.length > 0 && shown.every((f) => f.run === runId), `the deployed site shows run ${runId} of node ${MISSING} on ${LOCAL}:\n${JSON.stringify(card.groups)}`);
}

// The three runs share nothing but the registry snapshot, and assert no timing: they run at once.
describe("the release watch under act", { timeout: 600_000, concurrency: true }, () => {
  let registry: RegistrySnapshot;
  const scratches: Scratch[] = [];
  const scratch = async (name: string, edit: (dir: string) => Promise<void>) => {
    const made = await scratchRepository(name, edit);
    scratches.push(made);
    return made;
  };
  before(async () => {
    registry = await registrySnapshot(RELEASES);
  });
  after(async () => {
    await registry.close();
    scratches.forEach(removeScratch);
  });

  it("dispatched: measures the missing release on its machine, pushes it to data/ and deploys the site with it", async () => {
    const repo = await scratch("watch", releaseWatchFixture);
    await watchToSite(repo, registry, "workflow_dispatch", { inputs: { prereleases: false }, ref: `refs/heads/${DEFAULT_BRANCH}`, repository: { default_branch: DEFAULT_BRANCH } });
  });

  it("scheduled: the payload names no repository, and the site still shows what collect just pushed", async () => {
    const repo = await scratch("watch-schedule", releaseWatchFixture);
    await watchToSite(repo, registry, "schedule", { schedule: "41 */6 * * *" });
    for (const file of readdirSync(join(REPO_ROOT, ".github/workflows"))) {
      const text = readFileSync(join(REPO_ROOT, ".github/workflows", file), "utf8");
      assert.doesNotMatch(text, /\$\{\{[^}]*'main'[^}]*\}\}|ref:\s*main\s*$/m, `${file} names the default branch in an expression`);
    }
  });

  it("fails when benchmark.yml's plan job misnames an output", async () => {
    const repo = await scratch("watch-broken", async (dir) => {
      await releaseWatchFixture(dir);
      const workflow = join(dir, ".github/workflows/benchmark.yml");
      const text = readFileSync(workflow, "utf8");
      const broken = text.replace("call: ${{ steps.call.outputs.call }}", "call: ${{ steps.call.outputs.name }}");
      assert.notEqual(broken, text, "the output to break is there");
      writeFileSync(workflow, broken);
    });
    await assert.rejects(
      watchToSite(repo, registry, "workflow_dispatch", { inputs: { prereleases: false }, ref: `refs/heads/${DEFAULT_BRANCH}`, repository: { default_branch: DEFAULT_BRANCH } }),
      // The artifacts' names lose the call: collect, holding them to the run's record of its uploads, refuses them.
      (error: Error) => error.name === "AssertionError" && /results-call-0-|; nothing collected/.test(error.message),
    );
  });
});
