import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { readEnvironment } from "../../src/env/fingerprint.ts";
import { sweepPaceFile, sweepWorkDir } from "../../src/history/stage.ts";
import { listResultFiles, readResultFile } from "../../src/results/store.ts";
import type { ResultDocument } from "../../src/results/types.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** .github/bench-runners.json with this machine as the reference testbed, whatever CPU it has today. */
function thisMachineAsTestbed(): string {
  const { arch, cpu_model: model } = readEnvironment();
  const file = join(tempDir("sweep-runners"), "bench-runners.json");
  const testbed = { name: "reference-here", kind: "reference", arch, cpu_models: [model], description: "This machine, as the tests' reference testbed." };
  writeFileSync(file, JSON.stringify({ backfill_lines: 3, runners: [{ name: "bench-x64-1", arch: "x86_64", labels: ["self-hosted", "bench-x64-1"] }], testbeds: [testbed] }));
  return file;
}

/** Every result in data/, by path, read through the store. */
function results(data: string): Map<string, ResultDocument> {
  return new Map(listResultFiles([data]).map((file) => [file, readResultFile(file)]));
}

const interrupted = (doc: ResultDocument) => doc.details?.interrupted_after_trials !== undefined;

describe("a sweep interrupted during a link, run again", () => {
  it("measures the interrupted link again and no link twice, and loses nothing it had measured", async () => {
    const data = tempDir("sweep-data");
    // Three releases the runtime cache already holds: two links of one small scenario (a 150 ms program).
    const args = ["sweep", "--runtime", "node@22.10.0", "--runtime", "node@22.11.0", "--runtime", "node@22.13.1", "--scenario", "startup/slow"];
    // No adaptive trials: each link at its 4 trials, not up to 12; what is checked is which links run, not their verdicts.
    args.push("--data", data, "--runners", thisMachineAsTestbed(), "--max-load", "1000", "--no-narrow", "--trial-budget", "0");
    const env = { RUNTIME_BENCH_SUITES_DIR: join(REPO_ROOT, "tests/fixtures/suites") };

    const first = startBench(args, env);
    await first.waitFor("sweep 2/2: node 22.11.0 → 22.13.1");
    const linkStart = first.stderr().length;
    while (!first.stderr().slice(linkStart).includes("trial 2/")) await sleep(20);
    first.child.kill("SIGINT");
    assert.equal(await first.exited, 130, first.stderr());
    const afterFirst = results(data);
    const firstLink = [...afterFirst.values()].filter((doc) => doc.runtime.version === "22.10.0");
    assert.equal(firstLink.length, 1, "the first link is in data/");
    assert.ok([...afterFirst.values()].every((doc) => doc.run.runner === "reference-here" && doc.run.runner_kind === "reference"));

    const second = await bench(args, env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /sweep: 1 of 2 links are in data\/ already, each on every scenario at its version: skipped/);
    assert.match(second.stderr, /sweep 1\/1: node 22\.11\.0 → 22\.13\.1/);
    assert.doesNotMatch(second.stderr, /node 22\.10\.0 → 22\.11\.0 on/, "the first link is not measured again");
    assert.match(second.stderr, /× \d\.\d\d, the pace of the latest link of node\)/, "priced at the pace of the first sweep's link");
    assert.equal((JSON.parse(readFileSync(sweepPaceFile(data), "utf8")) as unknown[]).length, 2, "both links kept for the next sweep");
    rmSync(sweepPaceFile(data));

    const final = results(data);
    for (const [file, doc] of afterFirst) assert.deepEqual(final.get(file), doc, `${file} is still there, unchanged`);
    const completed = [...final.values()].filter((doc) => !interrupted(doc));
    const runsOf = (version: string) => new Set(completed.filter((doc) => doc.runtime.version === version).map((doc) => doc.run.id));
    assert.equal(runsOf("22.10.0").size, 1, "link 1 measured once");
    assert.equal(runsOf("22.13.1").size, 1, "link 2 measured once to the end");
    assert.equal(runsOf("22.11.0").size, 2, "22.11.0 ends the first link and starts the second");
    assert.ok([...runsOf("22.13.1")].every((id) => runsOf("22.11.0").has(id)), "the second link's releases in one run");
    assert.ok(completed.every((doc) => doc.status === "ok"), completed.map((doc) => doc.error).join("; "));
    assert.ok(!existsSync(sweepWorkDir(data)), "nothing is left staged");
    assert.match(readFileSync(join(data, "reference-here", [...runsOf("22.10.0")][0]!, "run.json"), "utf8"), /"runner_kind":"reference"/);
  });
});

describe("a sweep over a window with a release whose binary is refused", () => {
  it("leaves that release out, saying why, and chains the next release of its line instead", async () => {
    const data = tempDir("sweep-data");
    // The registry's deno 2.3.0 is a binary that reports 2.4.0: no link may claim to have measured 2.3.0.
    const args = ["sweep", "--runtime", "deno", "--from", "deno@2.3.0", "--to", "deno@2.3.2", "--scenario", "startup/hello"];
    args.push("--data", data, "--runners", thisMachineAsTestbed(), "--max-load", "1000", "--time-limit", "1s");
    const run = await bench(args);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /sweep: left out deno 2\.3\.0: deno@2\.3\.0: the binary reports 2\.4\.0, not 2\.3\.0/);
    assert.match(run.stderr, /time limit: deno 2\.3\.1 → 2\.3\.2 may take/, "the chain goes on from the next release of the line");
    assert.doesNotMatch(run.stderr, /2\.3\.0 →|→ 2\.3\.0/);
    assert.equal(results(data).size, 0, "nothing measured within the time limit");
  });

  it("refuses a chain none of whose scenarios runs on its runtime, rather than calling it measured", async () => {
    const args = ["sweep", "--runtime", "deno", "--from", "deno@2.3.1", "--to", "deno@2.3.2", "--scenario", "startup/slow"];
    args.push("--data", tempDir("sweep-data"), "--runners", thisMachineAsTestbed(), "--time-limit", "1s");
    const run = await bench(args, { RUNTIME_BENCH_SUITES_DIR: join(REPO_ROOT, "tests/fixtures/suites") });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /sweep: deno: none of the chosen scenarios runs on it/);
  });
});

describe("a sweep of the newest releases side by side", () => {
  it("measures them in one run, collected as the testbed's, and finds them in data/ when run again", async () => {
    const data = tempDir("sweep-data");
    // Two trials and no adaptive ones: what is checked is the one run and its collect, not its verdicts.
    const args = ["sweep", "--side-by-side", "--runtime", "node@22.11.0", "--runtime", "bun@1.2.0", "--scenario", "startup/hello", "--trials", "2", "--trial-budget", "0"];
    args.push("--data", data, "--runners", thisMachineAsTestbed(), "--max-load", "1000");
    // A sweep of two runtimes' chains names the run its newest releases still lack, and after it, that data/ holds it
    // (with a trial budget, as the run below has: only then is a run that took no adaptive trials counted).
    const chainsPlan = ["sweep", "--plan", "--runtime", "node@22.10.0", "--runtime", "node@22.11.0", "--runtime", "bun@1.1.45", "--runtime", "bun@1.2.0", "--scenario", "startup/hello", "--trial-budget", "0", "--data", data, "--runners", thisMachineAsTestbed()];
    const before = await bench(chainsPlan);
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, /node@22\.11\.0, bun@1\.2\.0 side by side on reference-here: one run of 1 scenario \(startup\/hello\).*Measure them with scripts\/bench sweep --side-by-side --runtime node@22\.11\.0 --runtime bun@1\.2\.0\./);
    const first = await bench(args);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /sweep: node@22\.11\.0, bun@1\.2\.0 measured side by side on 1 scenario/);
    const docs = [...results(data).values()];
    assert.deepEqual(docs.map((doc) => `${doc.runtime.name} ${doc.runtime.version} ${doc.status}`).sort(), ["bun 1.2.0 ok", "node 22.11.0 ok"]);
    assert.equal(new Set(docs.map((doc) => doc.run.id)).size, 1, "both in one run");
    assert.ok(docs.every((doc) => doc.run.runner === "reference-here" && doc.run.runner_kind === "reference"));
    assert.ok(!existsSync(sweepWorkDir(data)), "nothing is left staged");

    assert.match((await bench(chainsPlan)).stdout, /The newest releases of the chains, node@22\.11\.0, bun@1\.2\.0, are in data\/ side by side\./);

    const again = await bench(args);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /node@22\.11\.0, bun@1\.2\.0 side by side are in data\/ already/);
    assert.equal(results(data).size, 2, "nothing measured twice");

    const unknown = await bench(["sweep", "--side-by-side", "--runtime", "node@99.0.0", "--data", data, "--runners", thisMachineAsTestbed()]);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr.trim(), /^runtime-bench: sweep: node@99\.0\.0 is not published for \w+$/);
  });
});
