import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { scenarioDirs } from "../../src/scenarios/manifest.ts";
import { describe, it } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { calls, evaluate, recorder, runJob, runStep, step, workflow, type ExpressionContext, type VersionLine } from "../helpers/workflow-steps.ts";

/** Steps that need what the stubs are not: the tools' installs, and the check of real binaries against the registry (tests/integration/check-runtime.test.ts). */
const SKIPPED = /^(Install the suites' tools|Check the runtimes against the registry)$/;

const BENCHMARK = workflow("benchmark.yml");
const WATCH = workflow("release-watch.yml");
const CANARY = workflow("canary.yml");

/** What each runtime prints for `--version`; a nightly or canary build reports a version of its own. */
const versionLine: VersionLine = (runtime, requested) => {
  const version = requested === "canary" ? (runtime === "deno" ? "2.7.0+1a2b3c4" : "1.5.0-canary.12+abcdef0") : requested.endsWith("-nightly") ? `${requested.split("-")[0]}.0.0-nightly20261124abcdef0` : requested;
  return runtime === "node" ? `v${version}` : runtime === "deno" ? `deno ${version} (stable, release, x86_64-unknown-linux-gnu)` : version;
};

/** The bench job of benchmark.yml for one matrix entry, up to `scripts/bench run`; the tool installs are left out. */
function benchJob(entry: Record<string, string>, inputs: Record<string, string | boolean> = { profile: "full" }) {
  const matrix = { runner: "bench-x64-1", suites: "startup", scenarios: "", apps: "", channel: "release", predecessor: "", ...entry };
  const context: ExpressionContext = { matrix, inputs, runner: { os: "Linux", arch: "X64", temp: "/tmp" }, needs: {} };
  const job = runJob(BENCHMARK, "bench", context, versionLine, SKIPPED);
  const run = job.bench.find((args) => args[0] === "run");
  /** The `--runtime` values of the run, and what each measured binary reports. */
  const runtimes = (run ?? []).flatMap((arg, i) => (run![i - 1] === "--runtime" ? [arg] : []));
  const reported = runtimes.map((spec) => `${spec.split("@path:")[0]} ${execFileSync(spec.split("@path:")[1]!, ["--version"], { encoding: "utf8" }).trim()}`);
  return { ...job, runtimes, reported };
}

describe("the release job: each new release measured beside its predecessor", () => {
  it("sets up the predecessor, then the release, then the harness's Node, and runs both builds in one run", () => {
    const job = benchJob({ runtime: "node", version: "24.5.0", predecessor: "24.4.0" });
    assert.equal(job.code, 0, job.output);
    assert.deepEqual(job.setups, ["actions/setup-node 24.4.0", "actions/setup-node 24.5.0", "actions/setup-node 20"]);
    assert.deepEqual(job.reported, ["node v24.4.0", "node v24.5.0"], "the baseline first");
    assert.equal(job.bench.length, 1);
    assert.deepEqual(job.bench[0]!.slice(5, 8), ["--profile", "full", "--out"]);
    assert.deepEqual(job.bench[0]!.slice(9), ["--suite", "startup", "--time-limit", "6h", "--default-selection"], "adaptive trials within the job's 6 h, on the default run's selection");
  });

  it("measures the scenarios and apps a dispatch names as named, beside the predecessor", () => {
    const job = benchJob({ runtime: "node", version: "24.5.0", predecessor: "24.4.0", suites: "http", scenarios: "http/json", apps: "express" });
    assert.equal(job.code, 0, job.output);
    assert.deepEqual(job.bench[0]!.slice(9), ["--suite", "http", "--scenario", "http/json", "--app", "express", "--time-limit", "6h"]);
  });

  it("keeps each build's own binary where the setup action installs every version to one path (Bun)", () => {
    const job = benchJob({ runtime: "bun", version: "1.4.1", predecessor: "1.4.0" });
    assert.equal(job.code, 0, job.output);
    assert.deepEqual(job.setups, ["oven-sh/setup-bun 1.4.0", "oven-sh/setup-bun 1.4.1", "actions/setup-node 20"]);
    assert.deepEqual(job.reported, ["bun 1.4.0", "bun 1.4.1"]);
  });

  it("measures the version alone when the plan gives no predecessor (a dispatch, the weekly run, the first release there is)", () => {
    const job = benchJob({ runtime: "deno", version: "2.6.2" });
    assert.equal(job.code, 0, job.output);
    assert.deepEqual(job.setups, ["denoland/setup-deno 2.6.2", "actions/setup-node 20"]);
    assert.deepEqual(job.reported, ["deno deno 2.6.2 (stable, release, x86_64-unknown-linux-gnu)"]);
    assert.ok(!job.bench[0]!.includes("--time-limit"), "a version measured alone has no adaptive trials to limit");
  });

  it("fails before measuring when a setup action installed another version than the plan's", () => {
    const wrong: VersionLine = (runtime, requested) => versionLine(runtime, requested === "24.4.0" ? "24.3.0" : requested);
    const context: ExpressionContext = { matrix: { runtime: "node", version: "24.5.0", predecessor: "24.4.0", channel: "release", runner: "bench-x64-1", suites: "startup", scenarios: "", apps: "" }, inputs: { profile: "full" }, runner: {}, needs: {} };
    const job = runJob(BENCHMARK, "bench", context, wrong, SKIPPED);
    assert.equal(job.code, 1);
    assert.match(job.output, /::error::.*reports 'v24\.3\.0', not node 24\.4\.0/);
    assert.deepEqual(job.bench, []);
  });

  it("is what the release watch asks for: benchmark.yml with with-predecessor, and a summary naming each predecessor", () => {
    assert.equal(WATCH.jobs.benchmark!.with!["with-predecessor"], true);
    const bin = tempDir("watch-bin");
    mkdirSync(join(bin, "scripts"));
    const log = join(bin, "bench.log");
    const matrix = '{"include":[{"runtime":"node","version":"24.5.0","predecessor":"24.4.0","runner":"bench-x64-1","suites":"startup","scenarios":""}]}';
    recorder(join(bin, "scripts"), "bench", log, `echo '${matrix}'\n`);
    const watch = runStep(step(WATCH, "watch", /^List the releases/).run!, { PRERELEASES: "false" }, bin, bin);
    assert.equal(watch.code, 0, watch.output);
    assert.deepEqual(calls(log).map((args) => args.slice(4)), [["--with-predecessor", "--json"], ["--calls"]]);
    assert.match(watch.summary, /\| node \| 24\.5\.0 \| 24\.4\.0 \| bench-x64-1 \|/);
  });

  it("reaches benchmark.yml's plan as --with-predecessor, and --canary for the nightly canary", () => {
    const checkout = tempDir("plan");
    mkdirSync(join(checkout, "scripts"));
    const log = join(checkout, "bench.log");
    recorder(join(checkout, "scripts"), "bench", log, `echo '{"include":[]}'\n`);
    const env = { RUNTIMES: "node@24.5.0", RUNNERS: "", SUITES: "", SCENARIOS: "", APPS: "", MISSING_ONLY: "true", BACKFILL: "false" };
    for (const [extra, flag] of [[{ WITH_PREDECESSOR: "true", CANARY: "false" }, "--with-predecessor"], [{ WITH_PREDECESSOR: "false", CANARY: "true" }, "--canary"]] as const) {
      const plan = runStep(step(BENCHMARK, "plan", /^Resolve the versions/).run!, { ...env, ...extra }, checkout, tempDir("bin"));
      assert.equal(plan.code, 0, plan.output);
      const args = calls(log).at(-1)!;
      assert.deepEqual(args.slice(0, 4), ["releases", "--json", "--runtime", "node@24.5.0"]);
      assert.deepEqual(args.filter((arg) => arg === "--with-predecessor" || arg === "--canary"), [flag]);
    }
    assert.equal(BENCHMARK.on.workflow_call!.inputs!["with-predecessor"]!.type, "boolean");
    assert.equal(BENCHMARK.on.workflow_dispatch!.inputs!.canary!.type, "boolean");
  });
});

describe("the nightly canary", () => {
  it("runs every night and on dispatch, calling benchmark.yml with canary on the newest releases, startup and three HTTP scenarios, full profile", () => {
    assert.deepEqual(Object.keys(CANARY.on), ["schedule", "workflow_dispatch"]);
    const call = CANARY.jobs.benchmark!;
    assert.equal(call.uses, "./.github/workflows/benchmark.yml");
    assert.equal(call.with!.canary, true);
    assert.equal(call.with!.runtimes, "node@latest deno@latest bun@latest");
    assert.deepEqual(String(call.with!.scenarios).split(" "), [...scenarioDirs("startup").map((dir) => `startup/${basename(dir)}`), "http/json", "http/plaintext", "http/compute"], "every startup scenario");
    assert.equal(call.with!.profile, "full");
    for (const name of Object.keys(call.with!)) assert.ok(BENCHMARK.on.workflow_call!.inputs![name], `benchmark.yml takes no input '${name}'`);
  });

  it("adds no point to github-action-benchmark's comparison store: canary builds are no releases", () => {
    const exportStep = BENCHMARK.jobs.collect!.steps.find((s) => s.name === "Export for github-action-benchmark")!;
    assert.match(exportStep.if!, /&& !inputs\.canary$/);
    const gab = BENCHMARK.jobs.collect!.steps.filter((s) => s.uses?.startsWith("benchmark-action/"));
    assert.ok(gab.length > 0 && gab.every((s) => s.if!.startsWith("steps.export.outcome == 'success'")), "every github-action-benchmark step waits for the export");
  });

  for (const [runtime, version, newest, setup, canaryReports] of [
    ["node", "27-nightly", "26.1.0", "actions/setup-node", "v27.0.0-nightly20261124abcdef0"],
    ["deno", "canary", "2.6.2", "denoland/setup-deno", "deno 2.7.0+1a2b3c4 (stable, release, x86_64-unknown-linux-gnu)"],
    ["bun", "canary", "1.4.1", "oven-sh/setup-bun", "1.5.0-canary.12+abcdef0"],
  ] as const) {
    it(`measures ${runtime}'s ${version} build beside its newest release, labelled canary and release`, () => {
      const job = benchJob({ runtime, version, predecessor: newest, channel: "canary", suites: "startup http" });
      assert.equal(job.code, 0, job.output);
      assert.deepEqual(job.setups.slice(0, 2), [`${setup} ${newest}`, `${setup} ${version}`]);
      const newestReports = versionLine(runtime, newest);
      assert.deepEqual(job.reported, [`release=${runtime} ${newestReports}`, `canary=${runtime} ${canaryReports}`]);
      assert.deepEqual(job.bench[0]!.slice(-6), ["--suite", "startup", "--suite", "http", "--time-limit", "6h"]);
    });
  }

  it("reads the expressions it depends on the way GitHub does", () => {
    const context: ExpressionContext = { matrix: { predecessor: "", runtime: "bun" }, inputs: { profile: "" } };
    assert.equal(evaluate("matrix.predecessor != '' && matrix.runtime == 'bun'", context), false);
    assert.equal(evaluate("inputs.profile || 'full'", context), "full");
    assert.equal(evaluate("!(matrix.runtime == 'node')", context), true);
    assert.throws(() => evaluate("contains(matrix.runtime, 'b')", context), /outside what this evaluator knows|cannot read/);
  });
});
