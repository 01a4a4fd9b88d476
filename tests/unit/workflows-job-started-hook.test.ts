import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

const REPOSITORY = "bench-org/runtime-bench";

/** A root-owned copy on the machine, beside its job-started.conf, as docs/self-hosted-runner.md installs it. */
function installHook(conf: string | undefined): string {
  const dir = tempDir("hook");
  const hook = join(dir, "job-started.sh");
  copyFileSync(join(REPO_ROOT, "scripts/runner/job-started.sh"), hook);
  if (conf !== undefined) writeFileSync(join(dir, "job-started.conf"), conf);
  return hook;
}

const HOOK = installHook(`repository=${REPOSITORY}\ndefault_branch=main\n`);

interface Job {
  readonly repository?: string;
  readonly event: string;
  /** The workflow file, as GITHUB_WORKFLOW_REF names it: the caller's, for a called workflow. */
  readonly workflow: string;
  /** The ref the run is for, and the one the workflow file was read from. */
  readonly ref: string;
  readonly headRef?: string;
}

/** The default variables GitHub sets for a job, which the runner hands to the hook. */
function githubEnv(job: Job): Record<string, string> {
  const repository = job.repository ?? REPOSITORY;
  const payload = join(tempDir("event"), "event.json");
  writeFileSync(payload, JSON.stringify({ repository: { full_name: repository } }));
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: repository,
    GITHUB_REPOSITORY_OWNER: repository.split("/")[0]!,
    GITHUB_EVENT_NAME: job.event,
    GITHUB_EVENT_PATH: payload,
    GITHUB_WORKFLOW_REF: `${repository}/.github/workflows/${job.workflow}@${job.ref}`,
    GITHUB_WORKFLOW_SHA: "a".repeat(40),
    GITHUB_REF: job.ref,
    GITHUB_REF_NAME: job.ref.replace(/^refs\/(heads|tags)\//, ""),
    GITHUB_HEAD_REF: job.headRef ?? "",
    GITHUB_BASE_REF: job.headRef ? "main" : "",
    GITHUB_SHA: "b".repeat(40),
    GITHUB_RUN_ID: "1234",
    RUNNER_NAME: "bench-x64-1",
  };
}

/** Runs the hook the way the runner does: `bash -e {path}`. */
function hook(job: Job, path = HOOK): { code: number | null; lines: string[] } {
  const result = spawnSync("bash", ["-e", path], { env: githubEnv(job), encoding: "utf8" });
  return { code: result.status, lines: (result.stdout + result.stderr).split("\n").filter((line) => line !== "") };
}

function assertRefused(job: Job, reason: RegExp, path = HOOK): void {
  const { code, lines } = hook(job, path);
  assert.notEqual(code, 0, `admitted ${JSON.stringify(job)}`);
  assert.equal(lines.length, 1, `one line, not:\n${lines.join("\n")}`);
  assert.match(lines[0]!, /^::error::benchmark machine refused this job: /);
  assert.match(lines[0]!, reason);
}

const MAIN = "refs/heads/main";

describe("the benchmark machines' job-started hook", () => {
  it("admits benchmark.yml from the default branch, dispatched or on its schedule", () => {
    for (const event of ["workflow_dispatch", "schedule"]) {
      const { code, lines } = hook({ event, workflow: "benchmark.yml", ref: MAIN });
      assert.equal(code, 0, lines.join("\n"));
      assert.deepEqual(lines, [`benchmark machine admitted this job: benchmark.yml, ${event}`]);
    }
  });

  it("admits benchmark.yml called by the release watch or the nightly canary from the default branch (the caller's context)", () => {
    for (const workflow of ["release-watch.yml", "canary.yml"]) {
      const { code, lines } = hook({ event: "schedule", workflow, ref: MAIN });
      assert.equal(code, 0, lines.join("\n"));
    }
  });

  it("refuses a pull request, whichever workflow file it edited to reach the machine", () => {
    const merge = "refs/pull/7/merge";
    assertRefused({ event: "pull_request", workflow: "ci.yml", ref: merge, headRef: "patch-1" }, /event 'pull_request' is not one of: schedule workflow_dispatch$/);
    assertRefused({ event: "pull_request", workflow: "benchmark.yml", ref: merge, headRef: "patch-1" }, /event 'pull_request'/);
    assertRefused({ event: "pull_request_target", workflow: "benchmark.yml", ref: MAIN, headRef: "patch-1" }, /event 'pull_request_target'/);
    assertRefused({ event: "workflow_run", workflow: "scenario-pr-comment.yml", ref: MAIN }, /event 'workflow_run'/);
  });

  it("refuses another workflow of the repository, even from the default branch", () => {
    assertRefused({ event: "workflow_dispatch", workflow: "pages.yml", ref: MAIN }, /workflow 'pages\.yml' is not one of: benchmark\.yml canary\.yml release-watch\.yml$/);
    assertRefused({ event: "push", workflow: "ci.yml", ref: MAIN }, /event 'push'/);
  });

  it("refuses benchmark.yml from another branch or a tag", () => {
    assertRefused({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: "refs/heads/feature" }, /workflow file from 'refs\/heads\/feature', not the default branch refs\/heads\/main$/);
    assertRefused({ event: "workflow_dispatch", workflow: "release-watch.yml", ref: "refs/tags/v1" }, /workflow file from 'refs\/tags\/v1'/);
  });

  it("refuses a fork: the same workflow from the default branch of another repository", () => {
    assertRefused({ repository: "mallory/runtime-bench", event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN }, /repository 'mallory\/runtime-bench' is not bench-org\/runtime-bench$/);
  });

  it("refuses a workflow ref of another repository, and a run for another ref than its workflow file", () => {
    const env = { event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN };
    const run = (overrides: Record<string, string>) =>
      spawnSync("bash", ["-e", HOOK], { env: { ...githubEnv(env), ...overrides }, encoding: "utf8" });
    const other = run({ GITHUB_WORKFLOW_REF: `mallory/tools/.github/workflows/benchmark.yml@${MAIN}` });
    assert.equal(other.status, 1);
    assert.match(other.stdout, /workflow 'mallory\/tools\/\.github\/workflows\/benchmark\.yml@refs\/heads\/main' is not a workflow file of bench-org\/runtime-bench\n$/);
    const elsewhere = run({ GITHUB_REF: "refs/heads/feature" });
    assert.equal(elsewhere.status, 1);
    assert.match(elsewhere.stdout, /run for 'refs\/heads\/feature', not the default branch/);
  });

  it("refuses everything when its job-started.conf is missing or incomplete", () => {
    const job = { event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN };
    assertRefused(job, /job-started\.conf must set repository= and default_branch=/, installHook(undefined));
    assertRefused(job, /job-started\.conf must set repository= and default_branch=/, installHook(`repository=${REPOSITORY}\n`));
    const hookDir = installHook(`default_branch=main\nrepository=${REPOSITORY}`);
    assert.equal(hook(job, hookDir).code, 0, "key order and a missing final newline do not matter");
    rmSync(hookDir);
  });
});
