import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readEnvironment } from "../../src/env/fingerprint.ts";
import { machineArch } from "../../src/runtimes/catalog.ts";
import { act, DEFAULT_BRANCH, listJobsOf, registrySnapshot, remoteFiles, remoteLog, removeScratch, scratchRepository, tailOf, type RegistrySnapshot, type Scratch } from "../helpers/act.ts";

/*
 * Two benchmark.yml runs at once, each measuring on its own machine, whose collect jobs push to the
 * same branch of the remote: both sets of results arrive, each once. The remote holds each push
 * until the other one has arrived too (a pre-receive hook), so both are made from the same tip and
 * one of them certainly loses the race.
 */
const RUNNERS = ["bench-local", "bench-local-2"];

describe("two benchmark runs whose collects race, under act", { timeout: 600_000 }, () => {
  let registry: RegistrySnapshot;
  let scratch: Scratch;
  before(async () => {
    registry = await registrySnapshot({ node: ["22.11.0"], deno: ["2.1.4"], bun: ["1.2.0"] });
    scratch = await scratchRepository("collect-race", (dir) => {
      // This machine stands in for both: collect holds each result to the fingerprint listed here.
      const runners = RUNNERS.map((name) => ({ name, arch: machineArch(), fingerprint: readEnvironment().fingerprint, labels: ["self-hosted", "linux", name] }));
      writeFileSync(join(dir, ".github/bench-runners.json"), `${JSON.stringify({ backfill_lines: 3, runners }, null, 2)}\n`);
    });
    const arrived = join(scratch.root, "arrived");
    mkdirSync(arrived);
    const hook = join(scratch.remote, "hooks/pre-receive");
    writeFileSync(hook, `#!/bin/sh\ntouch "${arrived}/$$"\nfor _ in $(seq 1200); do [ "$(ls "${arrived}" | wc -l)" -ge 2 ] && exit 0; sleep 0.1; done\n`);
    chmodSync(hook, 0o755);
  });
  after(async () => {
    await registry.close();
    removeScratch(scratch);
  });

  it("leaves both runs' results on the remote, none lost and none twice", async () => {
    listJobsOf(scratch, RUNNERS.map((runner) => `results-run-${runner}-node-22.11.0`));
    const runs = await Promise.all(
      RUNNERS.map((runner) =>
        act(scratch, "benchmark.yml", "workflow_dispatch", {
          inputs: { runtimes: "node@22.11.0", runners: runner, scenarios: "startup/hello", profile: "quick" },
          ref: `refs/heads/${DEFAULT_BRANCH}`,
          repository: { default_branch: DEFAULT_BRANCH },
        }, { runnerName: runner, env: { RUNTIME_BENCH_REGISTRY: registry.url, COMMIT_RESULTS_BACKOFF_SECONDS: "1" } }),
      ),
    );
    for (const run of runs) assert.equal(run.code, 0, tailOf(run));
    const files = await remoteFiles(scratch, "data");
    // Each run folder holds its run.json beside its result (src/results/store.ts).
    const expected = RUNNERS.flatMap((runner) => [`data/${runner}/run.json`, `data/${runner}/startup/hello/node-22.11.0.json`]).sort();
    assert.deepEqual(files.map((file) => file.split("/").filter((_, i) => i !== 2).join("/")).sort(), expected);
    const commits = (await remoteLog(scratch)).filter((subject) => /^data: \d+ results from /.test(subject));
    assert.deepEqual(commits.map((subject) => subject.replace(/ \(workflow run \d+\)$/, "")).sort(), RUNNERS.map((runner) => `data: 1 results from ${runner}`).sort());
    const retried = runs.filter((run) => run.stdout.includes("push rejected (another collect got there first)"));
    assert.equal(retried.length, 1, "exactly one collect lost the race and pushed again");
  });
});
