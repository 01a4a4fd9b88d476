import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { REPO_ROOT } from "../../src/core/paths.ts";

/** The parts of a workflow file these rules read. */
interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  "runs-on"?: string | string[];
  uses?: string;
  permissions?: string | Record<string, string>;
  concurrency?: string | { group?: string; "cancel-in-progress"?: unknown; queue?: unknown };
  steps?: Step[];
}
interface Workflow {
  name?: string;
  on?: string | string[] | Record<string, unknown>;
  permissions?: unknown;
  concurrency?: unknown;
  jobs: Record<string, Job>;
}
interface WorkflowFile {
  readonly file: string;
  readonly text: string;
  readonly doc: Workflow;
}
type Workflows = ReadonlyMap<string, WorkflowFile>;

const WORKFLOWS_DIR = join(REPO_ROOT, ".github", "workflows");

function workflowFile(file: string, text: string): WorkflowFile {
  return { file, text, doc: parse(text) as Workflow };
}

function loadWorkflows(): Workflows {
  const files = readdirSync(WORKFLOWS_DIR).filter((f) => /\.ya?ml$/.test(f)).sort();
  return new Map(files.map((file) => [file, workflowFile(file, readFileSync(join(WORKFLOWS_DIR, file), "utf8"))]));
}

function events(doc: Workflow): string[] {
  if (typeof doc.on === "string") return [doc.on];
  if (Array.isArray(doc.on)) return doc.on;
  return Object.keys(doc.on ?? {});
}

const PULL_REQUEST_EVENTS = ["pull_request", "pull_request_target"];
const LOCAL_WORKFLOW = /^\.\/\.github\/workflows\/(.+)$/;

/** Files whose jobs a pull request starts: triggered by one, or called from such a file. */
function pullRequestWorkflows(workflows: Workflows): Set<string> {
  const reached = new Set([...workflows.values()].filter((w) => events(w.doc).some((e) => PULL_REQUEST_EVENTS.includes(e))).map((w) => w.file));
  return withCalledWorkflows(workflows, reached);
}

/** Files run by `workflow_run` after a pull-request workflow: they run on the pull request's behalf. */
function pullRequestFollowers(workflows: Workflows, triggered: ReadonlySet<string>): Set<string> {
  const names = new Set([...triggered].map((file) => workflows.get(file)!.doc.name ?? file));
  const followers = new Set(
    [...workflows.values()]
      .filter((w) => {
        const on = w.doc.on;
        const after = typeof on === "object" && !Array.isArray(on) ? (on.workflow_run as { workflows?: string[] } | undefined)?.workflows : undefined;
        return (after ?? []).some((name) => names.has(name));
      })
      .map((w) => w.file),
  );
  return withCalledWorkflows(workflows, followers);
}

function withCalledWorkflows(workflows: Workflows, start: Set<string>): Set<string> {
  const pending = [...start];
  while (pending.length > 0) {
    for (const job of Object.values(workflows.get(pending.pop()!)!.doc.jobs)) {
      const called = LOCAL_WORKFLOW.exec(job.uses ?? "")?.[1];
      if (called && !start.has(called)) {
        start.add(called);
        pending.push(called);
      }
    }
  }
  return start;
}

function jobs(workflows: Workflows, files: Iterable<string>): [string, Job][] {
  return [...files].flatMap((file) => Object.entries(workflows.get(file)!.doc.jobs).map(([id, job]): [string, Job] => [`${file}/${id}`, job]));
}

// ---- the rules: each returns one line per breach ----

/** Pull-request code never reaches a self-hosted machine: such jobs name a GitHub-hosted image literally. */
function selfHostedProblems(workflows: Workflows): string[] {
  const triggered = pullRequestWorkflows(workflows);
  const reached = new Set([...triggered, ...pullRequestFollowers(workflows, triggered)]);
  return jobs(workflows, reached).flatMap(([where, job]) => {
    if (job.uses) return [];
    const labels = [job["runs-on"] ?? []].flat();
    const hosted = labels.length === 1 && /^ubuntu-[\w.-]+$/.test(labels[0]!) && !labels[0]!.includes("${{");
    return hosted ? [] : [`${where}: runs on ${JSON.stringify(job["runs-on"])}, reachable from a pull request; use a GitHub-hosted ubuntu image`];
  });
}

function pullRequestTargetProblems(workflows: Workflows): string[] {
  return [...workflows.values()].filter((w) => events(w.doc).includes("pull_request_target")).map((w) => `${w.file}: pull_request_target runs fork code with a write token`);
}

const USES_LINE = /^\s*(?:-\s+)?uses:\s*["']?([^\s"'#]+)["']?\s*(?:#\s*(.*))?$/;
const PINNED = /^([\w.-]+\/[\w.-]+)(?:\/[\w./-]+)?@([0-9a-f]{40})$/;

/** Every action from outside this repository is pinned to a full commit SHA, its version in a comment, the same pin everywhere. */
function pinProblems(workflows: Workflows): string[] {
  const problems: string[] = [];
  const pins = new Map<string, string>();
  for (const { file, text } of workflows.values()) {
    text.split("\n").forEach((line, index) => {
      const match = USES_LINE.exec(line);
      if (!match || match[1]!.startsWith("./")) return;
      const where = `${file}:${index + 1}`;
      const pinned = PINNED.exec(match[1]!);
      if (!pinned) return problems.push(`${where}: ${match[1]} is not pinned to a full commit SHA`);
      if (!/^v\d+(\.\d+)*$/.test(match[2]?.trim() ?? "")) return problems.push(`${where}: ${match[1]} has no '# vX.Y.Z' version comment`);
      const pin = `${pinned[2]} # ${match[2]!.trim()}`;
      const earlier = pins.get(pinned[1]!);
      if (earlier && earlier !== pin) problems.push(`${where}: ${pinned[1]} pinned as ${pin} here but ${earlier} elsewhere`);
      pins.set(pinned[1]!, pin);
    });
  }
  return problems;
}

/** Grants beyond the workflows' `contents: read`, job by job: everything else inherits read-only. */
const GRANTS: Readonly<Record<string, Record<string, string>>> = {
  "benchmark.yml/collect": { contents: "write" },
  "benchmark.yml/pages": { contents: "read", pages: "write", "id-token": "write" },
  "pages.yml/build": { contents: "read", pages: "read" },
  "pages.yml/deploy": { pages: "write", "id-token": "write" },
  "release-watch.yml/benchmark": { contents: "write", pages: "write", "id-token": "write" },
  "scenario-pr-comment.yml/comment": { actions: "read", "pull-requests": "write" },
};

function permissionProblems(workflows: Workflows, grants = GRANTS): string[] {
  const problems: string[] = [];
  for (const { file, doc } of workflows.values()) {
    if (JSON.stringify(doc.permissions) !== JSON.stringify({ contents: "read" })) {
      problems.push(`${file}: top-level permissions must be exactly {contents: read}, not ${JSON.stringify(doc.permissions)}`);
    }
  }
  for (const [where, job] of jobs(workflows, workflows.keys())) {
    const expected = grants[where];
    if (JSON.stringify(job.permissions) !== JSON.stringify(expected)) {
      problems.push(`${where}: permissions ${JSON.stringify(job.permissions)}, expected ${JSON.stringify(expected)}`);
    }
  }
  for (const [where, job] of jobs(workflows, pullRequestWorkflows(workflows))) {
    if (job.permissions !== undefined) problems.push(`${where}: a pull-request job takes no permission beyond contents: read`);
  }
  return problems;
}

const pushes = (job: Job) => (job.steps ?? []).some((step) => step.run?.includes("scripts/ci/commit-results"));
const checkouts = (job: Job) => (job.steps ?? []).filter((step) => step.uses?.startsWith("actions/checkout@"));

/** Checkout leaves the token behind only in the job that pushes. */
function credentialProblems(workflows: Workflows): string[] {
  return jobs(workflows, workflows.keys()).flatMap(([where, job]) =>
    checkouts(job).flatMap((step) => {
      const persisted = step.with?.["persist-credentials"];
      if (pushes(job)) return persisted === true ? [] : [`${where}: pushes, so its checkout sets persist-credentials: true explicitly`];
      return persisted === false ? [] : [`${where}: does not push, so its checkout needs persist-credentials: false`];
    }),
  );
}

function secretProblems(workflows: Workflows): string[] {
  return [...pullRequestWorkflows(workflows)].flatMap((file) =>
    /\bsecrets\.|github\.token/.test(workflows.get(file)!.text) ? [`${file}: runs for pull requests and names a secret or the token`] : [],
  );
}

/** A workflow that acts for a pull request with a write token never checks out (so never runs) its code. */
function followerCheckoutProblems(workflows: Workflows): string[] {
  const followers = pullRequestFollowers(workflows, pullRequestWorkflows(workflows));
  return jobs(workflows, followers).flatMap(([where, job]) => (checkouts(job).length > 0 ? [`${where}: checks out code after a pull request`] : []));
}

/** Jobs on a dedicated machine (a runs-on from the matrix) run one at a time per runner, every waiting job queued. */
function concurrencyProblems(workflows: Workflows): string[] {
  return jobs(workflows, workflows.keys()).flatMap(([where, job]) => {
    const problems: string[] = [];
    const concurrency = typeof job.concurrency === "object" ? job.concurrency : undefined;
    if (concurrency?.queue !== undefined && !["single", "max"].includes(String(concurrency.queue))) problems.push(`${where}: queue must be single or max`);
    const onMachine = String(job["runs-on"] ?? "").includes("matrix.");
    if (onMachine && !(concurrency?.group?.includes("matrix.runner") && concurrency["cancel-in-progress"] === false && concurrency.queue === "max")) {
      problems.push(`${where}: needs concurrency {group: …matrix.runner…, cancel-in-progress: false, queue: max}`);
    }
    return problems;
  });
}

const ALL_RULES = [selfHostedProblems, pullRequestTargetProblems, pinProblems, permissionProblems, credentialProblems, secretProblems, followerCheckoutProblems, concurrencyProblems];

// ---- tests ----

describe("the workflows in .github/workflows", () => {
  const workflows = loadWorkflows();

  it("are the ones the issue asks for", () => {
    assert.deepEqual([...workflows.keys()], ["benchmark.yml", "ci.yml", "pages.yml", "release-watch.yml", "scenario-pr-comment.yml", "scenario-pr.yml"]);
  });

  for (const rule of ALL_RULES) {
    it(`keep the rule: ${rule.name.replace(/Problems$/, "")}`, () => {
      assert.deepEqual(rule(workflows), []);
    });
  }

  it("start pull-request jobs only where expected: scenario-pr and ci, commented on by scenario-pr-comment", () => {
    const triggered = pullRequestWorkflows(workflows);
    assert.deepEqual([...triggered].sort(), ["ci.yml", "scenario-pr.yml"]);
    assert.deepEqual([...pullRequestFollowers(workflows, triggered)], ["scenario-pr-comment.yml"]);
  });

  it("run the benchmark matrix on the runners' label sets, from dispatch, calls and the weekly schedule only", () => {
    const benchmark = workflows.get("benchmark.yml")!.doc;
    assert.deepEqual(events(benchmark), ["workflow_dispatch", "workflow_call", "schedule"]);
    assert.equal(benchmark.jobs.bench!["runs-on"], "${{ matrix.labels }}");
  });
});

describe("the rules catch what they are about", () => {
  const good = loadWorkflows();
  const withFile = (file: string, text: string): Workflows => new Map([...good, [file, workflowFile(file, text)]]);
  const prWorkflow = (job: string, extra = "") =>
    `name: bad\non:\n  pull_request:\n${extra}permissions:\n  contents: read\njobs:\n  job:\n${job}`;
  const checkoutStep = "    steps:\n      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0\n        with:\n          persist-credentials: false\n";

  it("a self-hosted or matrix-chosen runner in a pull-request workflow, or in one it calls", () => {
    assert.match(selfHostedProblems(withFile("bad.yml", prWorkflow(`    runs-on: [self-hosted, linux, x64, bench]\n${checkoutStep}`))).join(), /bad\.yml\/job: runs on/);
    assert.match(selfHostedProblems(withFile("bad.yml", prWorkflow(`    runs-on: \${{ matrix.labels }}\n${checkoutStep}`))).join(), /bad\.yml\/job/);
    assert.match(selfHostedProblems(withFile("bad.yml", prWorkflow("    uses: ./.github/workflows/benchmark.yml\n"))).join(), /benchmark\.yml\/bench: runs on/);
  });

  it("an action pinned to a tag, a short SHA, or without its version comment; two pins of one action", () => {
    const step = (uses: string) => withFile("bad.yml", prWorkflow(`    runs-on: ubuntu-latest\n    steps:\n      - uses: ${uses}\n`));
    assert.match(pinProblems(step("actions/setup-node@v5")).join(), /not pinned to a full commit SHA/);
    assert.match(pinProblems(step("actions/setup-node@a0853c2")).join(), /not pinned to a full commit SHA/);
    assert.match(pinProblems(step("actions/setup-node@a0853c24544627f65ddf259abe73b1d18a591444")).join(), /no '# vX\.Y\.Z' version comment/);
    assert.match(pinProblems(step("actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0")).join(), /pinned as .* here but .* elsewhere/);
  });

  it("wider top-level permissions, an unlisted grant, a write grant in a pull-request job", () => {
    const wide = withFile("bad.yml", "on: push\npermissions: write-all\njobs:\n  job:\n    runs-on: ubuntu-latest\n    steps: []\n");
    assert.match(permissionProblems(wide).join(), /bad\.yml: top-level permissions must be exactly/);
    const granted = withFile("bad.yml", prWorkflow(`    runs-on: ubuntu-latest\n    permissions:\n      pull-requests: write\n${checkoutStep}`));
    assert.match(permissionProblems(granted).join(), /bad\.yml\/job: permissions .*expected undefined/);
    assert.match(permissionProblems(granted, { ...GRANTS, "bad.yml/job": { "pull-requests": "write" } }).join(), /a pull-request job takes no permission/);
  });

  it("a checkout that keeps its token in a job that does not push", () => {
    const kept = withFile("bad.yml", prWorkflow("    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0\n"));
    assert.match(credentialProblems(kept).join(), /bad\.yml\/job: does not push/);
  });

  it("a secret or the token in a pull-request workflow", () => {
    const env = "    env:\n      TOKEN: ${{ secrets.NPM_TOKEN }}\n";
    assert.match(secretProblems(withFile("bad.yml", prWorkflow(`    runs-on: ubuntu-latest\n${env}${checkoutStep}`))).join(), /names a secret/);
  });

  it("pull_request_target, and a workflow_run follower that checks out the pull request", () => {
    assert.match(pullRequestTargetProblems(withFile("bad.yml", "on: pull_request_target\njobs: {}\n")).join(), /pull_request_target/);
    const follower = `on:\n  workflow_run:\n    workflows: [scenario-pr]\n    types: [completed]\npermissions:\n  contents: read\njobs:\n  job:\n    runs-on: ubuntu-latest\n${checkoutStep}`;
    assert.match(followerCheckoutProblems(withFile("follower.yml", follower)).join(), /follower\.yml\/job: checks out code after a pull request/);
  });

  it("a matrix-chosen machine without its per-runner queue", () => {
    const bench = "on: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  job:\n    runs-on: ${{ matrix.labels }}\n    concurrency:\n      group: bench-${{ matrix.runner }}\n      queue: maxx\n    steps: []\n";
    const problems = concurrencyProblems(withFile("bad.yml", bench)).join("\n");
    assert.match(problems, /queue must be single or max/);
    assert.match(problems, /needs concurrency/);
  });
});
