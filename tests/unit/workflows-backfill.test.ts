import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { calls, recorder, runStep, step, workflow } from "../helpers/workflow-steps.ts";

const BACKFILL = workflow("backfill.yml");
const BENCHMARK = workflow("benchmark.yml");

/** Runs backfill.yml's dispatch step for a push whose diff is `changed`, with git and gh stubbed. */
function dispatch(changed: string[]): { code: number | null; gh: string[][]; output: string; summary: string } {
  const bin = tempDir("bin");
  const log = join(bin, "gh.log");
  recorder(bin, "gh", log);
  // `git cat-file` finds the previous commit; `git diff` lists the changed paths.
  writeFileSync(join(bin, "git"), `#!/usr/bin/env bash\ncase "$1" in\n  cat-file) exit 0 ;;\n  diff) printf '%s\\n' ${changed.map((p) => `'${p}'`).join(" ")} ;;\n  *) exit 3 ;;\nesac\n`);
  chmodSync(join(bin, "git"), 0o755);
  const env = { BEFORE: "a".repeat(40), AFTER: "b".repeat(40), DEFAULT_BRANCH: "main", GH_REPO: "bench-org/runtime-bench", GH_TOKEN: "token" };
  const { code, output, summary } = runStep(step(BACKFILL, "dispatch", /^Start benchmark\.yml/).run!, env, REPO_ROOT, bin);
  return { code, gh: calls(log), output, summary };
}

/** `-f name=value` pairs of a `gh workflow run` call. */
function fields(call: readonly string[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  call.forEach((arg, i) => {
    if (arg === "-f") {
      const [name, ...value] = call[i + 1]!.split("=");
      pairs[name!] = value.join("=");
    }
  });
  return pairs;
}

/** Runs one of benchmark.yml's steps in a checkout whose `scripts/bench` only records its arguments. */
function benchmarkStep(job: string, name: RegExp, env: Record<string, string>, benchOutput = '{"include":[]}'): { code: number | null; bench: string[][]; output: string } {
  const checkout = tempDir("checkout");
  mkdirSync(join(checkout, "scripts"));
  const log = join(checkout, "bench.log");
  recorder(join(checkout, "scripts"), "bench", log, `echo '${benchOutput}'\n`);
  const { code, output } = runStep(step(BENCHMARK, job, name).run!, env, checkout, tempDir("bin"));
  return { code, bench: calls(log), output };
}

describe("the backfill of scenarios merged into the default branch", () => {
  it("starts on a push to the default branch that touches suites or apps, on a GitHub-hosted machine", () => {
    assert.deepEqual(Object.keys(BACKFILL.on), ["push"]);
    assert.deepEqual(BACKFILL.on.push!.branches, ["main"]);
    assert.deepEqual(BACKFILL.on.push!.paths, ["suites/**", "apps/**"]);
    assert.equal(BACKFILL.jobs.dispatch!["runs-on"], "ubuntu-latest");
  });

  it("dispatches benchmark.yml from the default branch with the changed scenarios and apps, every runtime by name, backfill and the full profile", () => {
    const { code, gh, output, summary } = dispatch(["suites/http/json/scenario.json", "README.md"]);
    assert.equal(code, 0, output);
    assert.equal(gh.length, 1, output);
    assert.deepEqual(gh[0]!.slice(0, 4), ["workflow", "run", "benchmark.yml", "--ref"]);
    assert.equal(gh[0]![4], "main");
    // A change to a scenario of a suite with apps measures all its apps (scripts/ci/changed-scenarios).
    assert.deepEqual(fields(gh[0]!), { runtimes: "node deno bun", backfill: "true", "missing-only": "true", profile: "full", scenarios: "http/json", apps: "" });
    assert.match(summary, /- http\/json/);
  });

  it("narrows to the changed apps when only apps changed", () => {
    const { code, gh, output } = dispatch(["apps/http/hono/server.js"]);
    assert.equal(code, 0, output);
    const sent = fields(gh[0]!);
    assert.match(sent.scenarios!, /^http\/[a-z-]+( http\/[a-z-]+)+$/);
    assert.equal(sent.apps, "hono");
  });

  it("dispatches nothing for a change that leaves no scenario to measure", () => {
    const { code, gh, summary } = dispatch(["suites/http/gone-scenario/scenario.json"]);
    assert.equal(code, 0);
    assert.deepEqual(gh, []);
    assert.match(summary, /No scenario left to measure/);
  });

  it("sends only inputs benchmark.yml's dispatch declares, and backfill as its boolean", () => {
    const declared = BENCHMARK.on.workflow_dispatch!.inputs!;
    const { gh } = dispatch(["suites/startup/hello/hello.js"]);
    for (const name of Object.keys(fields(gh[0]!))) assert.ok(declared[name], `benchmark.yml has no dispatch input '${name}'`);
    assert.equal(declared.backfill!.type, "boolean");
    assert.equal(BENCHMARK.on.workflow_call!.inputs!.backfill!.type, "boolean");
  });

  it("reaches benchmark.yml's plan as a backfill of those scenarios, each input word checked first", () => {
    const env = { RUNTIMES: "node deno bun", RUNNERS: "", SUITES: "", SCENARIOS: "http/json startup/hello", APPS: "hono", MISSING_ONLY: "false", BACKFILL: "true" };
    const plan = benchmarkStep("plan", /^Resolve the versions/, env);
    assert.equal(plan.code, 0, plan.output);
    assert.deepEqual(plan.bench, [
      ["releases", "--json", "--runtime", "node", "--runtime", "deno", "--runtime", "bun", "--scenario", "http/json", "--scenario", "startup/hello", "--app", "hono", "--backfill"],
    ]);
    for (const [input, value] of [["SCENARIOS", "http/json;touch x"], ["APPS", "--data=/tmp"], ["RUNTIMES", "node$(id)"], ["SUITES", "../etc"]] as const) {
      const bad = benchmarkStep("plan", /^Resolve the versions/, { ...env, [input]: value });
      assert.equal(bad.code, 1, `${input}=${value} was accepted`);
      assert.deepEqual(bad.bench, [], `${input}=${value} reached scripts/bench`);
      assert.match(bad.output, new RegExp(`^::error::the ${input.toLowerCase()} input holds '.+', which does not match \\^`, "m"));
    }
  });
});

describe("a benchmark job on a member of a pool", () => {
  it("runs its machine's suites and the requested scenarios and apps of them, from the matrix", () => {
    const env = { SUITES: "http fileio", SCENARIOS: "http/json", APPS: "hono", PROFILE: "full", RUNTIME: "node", RUNTIME_BIN: "/opt/node/bin/node" };
    const job = benchmarkStep("bench", /^Run the benchmarks$/, env);
    assert.equal(job.code, 0, job.output);
    const run = job.bench[0]!;
    assert.deepEqual(run.slice(0, 5), ["run", "--runtime", "node@path:/opt/node/bin/node", "--profile", "full"]);
    assert.deepEqual(run.slice(7), ["--suite", "http", "--suite", "fileio", "--scenario", "http/json", "--app", "hono"]);
  });

  it("runs every scenario of its suites when the matrix names none", () => {
    const job = benchmarkStep("bench", /^Run the benchmarks$/, { SUITES: "startup database", SCENARIOS: "", APPS: "", PROFILE: "full", RUNTIME: "bun", RUNTIME_BIN: "/b" });
    assert.equal(job.code, 0, job.output);
    assert.deepEqual(job.bench[0]!.slice(7), ["--suite", "startup", "--suite", "database"]);
  });
});
