import assert from "node:assert/strict";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { runProcess, tempDir } from "../../benchmarks/lib/cli.ts";
import { processesUnder } from "../helpers/processes.ts";

const REPOSITORY = "bench-org/runtime-bench";
const MAIN = "refs/heads/main";

/** Commits of the default branch as the fake GitHub API knows them: the head, and two older ones. */
const HEAD = "c".repeat(40);
const OLD_SAME_WORKFLOWS = "d".repeat(40);
const OLD_OTHER_BENCHMARK = "e".repeat(40);
const BLOBS: Record<string, Record<string, string>> = {
  [HEAD]: { "benchmark.yml": "1".repeat(40), "canary.yml": "4".repeat(40), "release-watch.yml": "2".repeat(40) },
  [OLD_SAME_WORKFLOWS]: { "benchmark.yml": "1".repeat(40), "canary.yml": "4".repeat(40), "release-watch.yml": "2".repeat(40) },
  [OLD_OTHER_BENCHMARK]: { "benchmark.yml": "3".repeat(40), "canary.yml": "4".repeat(40), "release-watch.yml": "2".repeat(40) },
};

/** The two calls the hook makes, answered as GitHub's REST API answers them. */
function fakeApi(): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const base = `/repos/${REPOSITORY}/`;
    const blob = /^contents\/\.github\/workflows\/([^/]+)$/.exec(url.pathname.slice(base.length));
    if (url.pathname === `${base}commits/main` && request.headers.accept === "application/vnd.github.sha") {
      response.end(HEAD);
    } else if (url.pathname.startsWith(base) && blob && BLOBS[url.searchParams.get("ref") ?? ""]?.[blob[1]!]) {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ type: "file", sha: BLOBS[url.searchParams.get("ref")!]![blob[1]!] }));
    } else {
      response.statusCode = 404;
      response.end('{"message":"Not Found"}');
    }
  });
}

const api = fakeApi();
let apiUrl = "";
let HOOK: Hook;
before(async () => {
  await new Promise<void>((ready) => api.listen(0, "127.0.0.1", ready));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  HOOK = installHook();
});
after(() => api.close());

interface Hook {
  readonly path: string;
  readonly outOfService: string;
}

/** A root-owned copy on the machine, beside its job-started.conf, as docs/self-hosted-runner.md installs it. */
function installHook(conf?: (outOfService: string) => string): Hook {
  const dir = tempDir("hook");
  const path = join(dir, "job-started.sh");
  const outOfService = join(dir, "out-of-service");
  copyFileSync(join(REPO_ROOT, "scripts/runner/job-started.sh"), path);
  const text = conf ? conf(outOfService) : `repository=${REPOSITORY}\ndefault_branch=main\nout_of_service=${outOfService}\napi_url=${apiUrl}\n`;
  writeFileSync(join(dir, "job-started.conf"), text);
  return { path, outOfService };
}

interface Job {
  readonly repository?: string;
  readonly event: string;
  /** The workflow file, as GITHUB_WORKFLOW_REF names it: the caller's, for a called workflow. */
  readonly workflow: string;
  /** The ref the run is for, and the one the workflow file was read from. */
  readonly ref: string;
  readonly headRef?: string;
  /** The commit the workflow file was read from (GITHUB_WORKFLOW_SHA). */
  readonly workflowSha?: string;
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
    GITHUB_WORKFLOW_SHA: job.workflowSha ?? HEAD,
    GITHUB_REF: job.ref,
    GITHUB_REF_NAME: job.ref.replace(/^refs\/(heads|tags)\//, ""),
    GITHUB_HEAD_REF: job.headRef ?? "",
    GITHUB_BASE_REF: job.headRef ? "main" : "",
    GITHUB_SHA: "b".repeat(40),
    GITHUB_RUN_ID: "1234",
    RUNNER_NAME: "bench-x64-1",
  };
}

interface Ran {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: string[];
}

/** Runs `command` in a process group of its own (as runProcess starts every command), as the runner's service starts the runner. */
async function run(command: string, args: string[], env: Record<string, string>, cwd?: string): Promise<Ran> {
  const { code, signal, stdout, stderr } = await runProcess(command, args, { env, cwd });
  return { code, signal: signal ?? null, lines: (stdout + stderr).split("\n").filter((line) => line !== "") };
}

/** Runs the hook the way the runner does: `bash -e {path}`. */
function hook(job: Job, installed = HOOK, overrides: Record<string, string> = {}): Promise<Ran> {
  return run("bash", ["-e", installed.path], { ...githubEnv(job), ...overrides });
}

async function assertRefused(job: Job, reason: RegExp, installed = HOOK): Promise<void> {
  const { code, lines } = await hook(job, installed);
  assert.notEqual(code, 0, `admitted ${JSON.stringify(job)}`);
  assert.equal(lines.length, 1, `one line, not:\n${lines.join("\n")}`);
  assert.match(lines[0]!, /^::error::benchmark machine refused this job: /);
  assert.match(lines[0]!, reason);
}

/**
 * A runner as the hook finds it: Runner.Listener starts Runner.Worker, which starts a step's
 * process in the background, runs the hook as `bash -e`, and then, whatever the hook said, runs
 * the next step (as the runner does for an `if: always()` step). All in their own process group,
 * working in their own folder.
 */
function fakeRunner(): string {
  const dir = tempDir("runner");
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/bash\n${body}\n`); // not through env: the command name must stay the script's
    chmodSync(join(dir, name), 0o755);
  };
  script("Runner.Listener", `"$(dirname "$0")/Runner.Worker"\necho "listener: worker ended" >"$(dirname "$0")/listener-went-on"`);
  script("Runner.Worker", `sleep 300 &\nstep=$!\nbash -e "$HOOK" || echo "hook failed"\ntouch "$(dirname "$0")/always-step-ran"\nkill "$step"`);
  return dir;
}

/** How long a refused job's runner may take to be gone: a hook that ends it takes well under a second. */
const ENDED_WITHIN_MS = 5_000;
/** A hook that fails to end the runner leaves it waiting on its step for minutes: the test ends the wait. */
const WATCHDOG_MS = 20_000;

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

/** The processes of the runner still there after `ms` (polled), or none as soon as all are gone. */
async function leftAfter(dir: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (processesUnder(dir).length > 0 && Date.now() < deadline) await sleep(50);
  return processesUnder(dir);
}

/**
 * Runs the hook inside a fake runner; returns what the job's later steps and the machine saw. Once
 * ENDED_WITHIN_MS has passed, whatever of the runner is left is sent SIGCONT, as systemd does when it
 * stops or restarts the service and as any process of the runner's user may: a runner merely
 * stopped would go on to the job's next step.
 */
async function underRunner(job: Job, installed = HOOK): Promise<{ ran: Ran; dir: string; left: number[] }> {
  const dir = fakeRunner();
  const listener = run(join(dir, "Runner.Listener"), [], { ...githubEnv(job), HOOK: installed.path }, dir);
  const left = await leftAfter(dir, ENDED_WITHIN_MS);
  for (const pid of left) process.kill(pid, "SIGCONT");
  const watchdog = setTimeout(() => processesUnder(dir).forEach((pid) => process.kill(pid, "SIGKILL")), WATCHDOG_MS);
  const ran = await listener;
  clearTimeout(watchdog);
  for (const pid of await leftAfter(dir, 5_000)) process.kill(pid, "SIGKILL");
  return { ran, dir, left };
}

describe("the benchmark machines' job-started hook", () => {
  it("admits benchmark.yml from the default branch, dispatched or on its schedule", async () => {
    for (const event of ["workflow_dispatch", "schedule"]) {
      const { code, lines } = await hook({ event, workflow: "benchmark.yml", ref: MAIN });
      assert.equal(code, 0, lines.join("\n"));
      assert.deepEqual(lines, [`benchmark machine admitted this job: benchmark.yml, ${event}`]);
    }
  });

  it("admits benchmark.yml called by the release watch or the nightly canary from the default branch (the caller's context)", async () => {
    for (const workflow of ["release-watch.yml", "canary.yml"]) {
      const { code, lines } = await hook({ event: "schedule", workflow, ref: MAIN });
      assert.equal(code, 0, lines.join("\n"));
    }
  });

  it("admits a re-run of an older default-branch commit whose workflow files are the head's, byte for byte", async () => {
    const { code, lines } = await hook({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN, workflowSha: OLD_SAME_WORKFLOWS });
    assert.equal(code, 0, lines.join("\n"));
  });

  it("refuses a pull request, whichever workflow file it edited to reach the machine", async () => {
    const merge = "refs/pull/7/merge";
    await assertRefused({ event: "pull_request", workflow: "ci.yml", ref: merge, headRef: "patch-1" }, /event 'pull_request' is not one of: schedule workflow_dispatch$/);
    await assertRefused({ event: "pull_request", workflow: "benchmark.yml", ref: merge, headRef: "patch-1" }, /event 'pull_request'/);
    await assertRefused({ event: "pull_request_target", workflow: "benchmark.yml", ref: MAIN, headRef: "patch-1" }, /event 'pull_request_target'/);
    await assertRefused({ event: "workflow_run", workflow: "scenario-pr-comment.yml", ref: MAIN }, /event 'workflow_run'/);
  });

  it("refuses another workflow of the repository, even from the default branch", async () => {
    await assertRefused({ event: "workflow_dispatch", workflow: "pages.yml", ref: MAIN }, /workflow 'pages\.yml' is not one of: benchmark\.yml canary\.yml release-watch\.yml$/);
    await assertRefused({ event: "push", workflow: "ci.yml", ref: MAIN }, /event 'push'/);
  });

  it("refuses benchmark.yml from another branch or a tag", async () => {
    await assertRefused({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: "refs/heads/feature" }, /workflow file from 'refs\/heads\/feature', not the default branch refs\/heads\/main$/);
    await assertRefused({ event: "workflow_dispatch", workflow: "release-watch.yml", ref: "refs/tags/v1" }, /workflow file from 'refs\/tags\/v1'/);
  });

  it("refuses a re-run of an older default-branch commit whose benchmark.yml differs from the head's, and any commit it cannot check", async () => {
    await assertRefused({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN, workflowSha: OLD_OTHER_BENCHMARK }, new RegExp(`a re-run of ${OLD_OTHER_BENCHMARK}, whose benchmark\\.yml differs from the default branch's head ${HEAD}$`));
    await assertRefused({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN, workflowSha: "f".repeat(40) }, /benchmark\.yml at the workflow commit f{40} could not be read/);
    await assertRefused({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN, workflowSha: "main" }, /workflow commit 'main' is not a commit$/);
    const offline = installHook((marker) => `repository=${REPOSITORY}\ndefault_branch=main\nout_of_service=${marker}\napi_url=http://127.0.0.1:9\n`);
    await assertRefused({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN }, /the head of refs\/heads\/main could not be read from http:\/\/127\.0\.0\.1:9$/, offline);
  });

  it("refuses a fork: the same workflow from the default branch of another repository", async () => {
    await assertRefused({ repository: "mallory/runtime-bench", event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN }, /repository 'mallory\/runtime-bench' is not bench-org\/runtime-bench$/);
  });

  it("refuses a workflow ref of another repository, and a run for another ref than its workflow file", async () => {
    const job = { event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN };
    const other = await hook(job, HOOK, { GITHUB_WORKFLOW_REF: `mallory/tools/.github/workflows/benchmark.yml@${MAIN}` });
    assert.equal(other.code, 1);
    assert.match(other.lines.join("\n"), /workflow 'mallory\/tools\/\.github\/workflows\/benchmark\.yml@refs\/heads\/main' is not a workflow file of bench-org\/runtime-bench$/);
    const elsewhere = await hook(job, HOOK, { GITHUB_REF: "refs/heads/feature" });
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.lines.join("\n"), /run for 'refs\/heads\/feature', not the default branch/);
  });

  it("refuses everything when its job-started.conf is missing or incomplete", async () => {
    const job = { event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN };
    const missing = installHook();
    rmSync(join(missing.path, "..", "job-started.conf"));
    const wanted = /job-started\.conf must set repository=, default_branch= and out_of_service=/;
    await assertRefused(job, wanted, missing);
    await assertRefused(job, wanted, installHook(() => `repository=${REPOSITORY}\ndefault_branch=main\n`));
    const reordered = installHook((marker) => `api_url=${apiUrl}\nout_of_service=${marker}\ndefault_branch=main\nrepository=${REPOSITORY}`);
    assert.equal((await hook(job, reordered)).code, 0, "key order and a missing final newline do not matter");
  });

  describe("inside a runner", () => {
    const refused: [string, Job][] = [
      ["a pull request", { event: "pull_request", workflow: "benchmark.yml", ref: "refs/pull/7/merge", headRef: "patch-1" }],
      ["pull_request_target", { event: "pull_request_target", workflow: "benchmark.yml", ref: MAIN, headRef: "patch-1" }],
      ["a push to another branch", { event: "push", workflow: "benchmark.yml", ref: "refs/heads/feature" }],
      ["benchmark.yml from another ref", { event: "workflow_dispatch", workflow: "benchmark.yml", ref: "refs/heads/feature" }],
      ["a re-run of an older main commit whose workflow differs", { event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN, workflowSha: OLD_OTHER_BENCHMARK }],
    ];
    for (const [name, job] of refused) {
      it(`refusing ${name}, ends the worker's tree and the listener, and marks the runner out of service before any later step runs`, async () => {
        const installed = installHook();
        const { ran, dir, left } = await underRunner(job, installed);
        assert.deepEqual(left, [], `every process of the runner ended within ${ENDED_WITHIN_MS} ms`);
        assert.equal(ran.signal, "SIGKILL", "the listener was killed");
        assert.match(ran.lines.join("\n"), /^::error::benchmark machine refused this job: /);
        assert.equal(existsSync(join(dir, "always-step-ran")), false, "no later step ran, even once what was left got SIGCONT");
        assert.equal(existsSync(join(dir, "listener-went-on")), false, "the listener took nothing further");
        assert.match(readFileSync(installed.outOfService, "utf8"), /refused bench-org\/runtime-bench\/\.github\/workflows\/benchmark\.yml@\S+ run 1234: /);
      });
    }

    it("refusing a job whose marker cannot be written (a folder there, left by an earlier job), still ends the runner first", async () => {
      const installed = installHook();
      mkdirSync(installed.outOfService);
      const { ran, dir, left } = await underRunner(refused[0]![1], installed);
      assert.deepEqual(left, [], `every process of the runner ended within ${ENDED_WITHIN_MS} ms`);
      assert.equal(ran.signal, "SIGKILL", "the listener was killed");
      assert.equal(existsSync(join(dir, "always-step-ran")), false, "no later step ran");
    });

    it("admitting a job, leaves the runner and the marker alone", async () => {
      const installed = installHook();
      const { ran, dir } = await underRunner({ event: "workflow_dispatch", workflow: "benchmark.yml", ref: MAIN }, installed);
      assert.equal(ran.code, 0, ran.lines.join("\n"));
      assert.equal(existsSync(join(dir, "always-step-ran")), true);
      assert.equal(existsSync(join(dir, "listener-went-on")), true);
      assert.equal(existsSync(installed.outOfService), false);
    });
  });
});
