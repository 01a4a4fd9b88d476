import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { loadBenchRunners, type BenchRunner } from "../../src/releases/runners.ts";
import { artifactName } from "../../src/collect/collect.ts";
import { uploadStepName } from "../../src/collect/workflow-run.ts";
import type { MatrixEntry } from "../../src/releases/matrix.ts";

/** The parts of a workflow file these rules read. */
interface Step {
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
type Concurrency = string | { group?: string; "cancel-in-progress"?: unknown; queue?: unknown };
interface Job {
  "runs-on"?: string | string[];
  uses?: string;
  permissions?: string | Record<string, string>;
  concurrency?: Concurrency;
  steps?: Step[];
  with?: Record<string, unknown>;
  strategy?: { matrix?: unknown };
}
interface Workflow {
  name?: string;
  on?: string | string[] | Record<string, unknown>;
  permissions?: unknown;
  concurrency?: Concurrency;
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

/** A GitHub-hosted image named literally: the only runs-on that reaches no dedicated machine. */
const isHosted = (job: Job): boolean => {
  const labels = [job["runs-on"] ?? []].flat();
  return labels.length === 1 && /^ubuntu-[\w.-]+$/.test(labels[0]!) && !labels[0]!.includes("${{");
};

/** Pull-request code never reaches a self-hosted machine: such jobs name a GitHub-hosted image literally. */
function selfHostedProblems(workflows: Workflows): string[] {
  const triggered = pullRequestWorkflows(workflows);
  const reached = new Set([...triggered, ...pullRequestFollowers(workflows, triggered)]);
  return jobs(workflows, reached).flatMap(([where, job]) =>
    job.uses || isHosted(job) ? [] : [`${where}: runs on ${JSON.stringify(job["runs-on"])}, reachable from a pull request; use a GitHub-hosted ubuntu image`],
  );
}

function pullRequestTargetProblems(workflows: Workflows): string[] {
  return [...workflows.values()].filter((w) => events(w.doc).includes("pull_request_target")).map((w) => `${w.file}: pull_request_target runs fork code with a write token`);
}

const USES_LINE = /^\s*(?:-\s+)?uses:\s*["']?([^\s"'#]+)["']?\s*(?:#\s*(.*))?$/;
const PINNED = /^([\w.-]+\/[\w.-]+)(?:\/[\w./-]+)?@([0-9a-f]{40})$/;

/** .github/action-pins.json: each action's release, the commit of its tag, and what it runs on. */
interface Pin {
  version: string;
  sha: string;
  runs: string;
  unverified?: string;
}
interface PinTable {
  minimum_runner_version: string;
  pins: Record<string, Pin>;
}
const PIN_TABLE_FILE = join(REPO_ROOT, ".github", "action-pins.json");
const loadPinTable = (): PinTable => JSON.parse(readFileSync(PIN_TABLE_FILE, "utf8")) as PinTable;

/** Every action from outside this repository is pinned exactly as the pin table says (full SHA, its version in a comment); the table holds no unused pin. */
function pinProblems(workflows: Workflows, table = loadPinTable()): string[] {
  const problems: string[] = [];
  const used = new Set<string>();
  for (const { file, text } of workflows.values()) {
    text.split("\n").forEach((line, index) => {
      const match = USES_LINE.exec(line);
      if (!match || match[1]!.startsWith("./")) return;
      const where = `${file}:${index + 1}`;
      const pinned = PINNED.exec(match[1]!);
      if (!pinned) return problems.push(`${where}: ${match[1]} is not pinned to a full commit SHA`);
      const [action, sha] = [pinned[1]!, pinned[2]!];
      const pin = table.pins[action];
      if (!pin) return problems.push(`${where}: ${action} is not in .github/action-pins.json`);
      used.add(action);
      if (sha !== pin.sha) problems.push(`${where}: ${action}@${sha}, but the pin table says ${pin.sha} (${pin.version})`);
      if (match[2]?.trim() !== pin.version) problems.push(`${where}: ${action} needs the comment '# ${pin.version}', not '${match[2] ?? ""}'`);
    });
  }
  for (const [action, pin] of Object.entries(table.pins)) {
    if (!used.has(action)) problems.push(`.github/action-pins.json: ${action} is pinned but no workflow uses it`);
    if (!/node24/.test(pin.runs)) problems.push(`.github/action-pins.json: ${action} ${pin.version} runs on ${pin.runs}, not node24`);
    if (pin.unverified !== undefined) problems.push(`.github/action-pins.json: ${action} ${pin.version} is not verified to be its release tag's commit: ${pin.unverified}`);
  }
  return problems;
}

/** Grants beyond the workflows' `contents: read`, job by job: everything else inherits read-only. */
const GRANTS: Readonly<Record<string, Record<string, string>>> = {
  "backfill.yml/dispatch": { actions: "write" },
  "benchmark.yml/collect": { contents: "write", actions: "read" },
  "benchmark.yml/pages": { contents: "read", pages: "write", "id-token": "write" },
  "pages.yml/site": { contents: "read", pages: "write", "id-token": "write" },
  "canary.yml/benchmark": { contents: "write", actions: "read", pages: "write", "id-token": "write" },
  "release-watch.yml/benchmark": { contents: "write", actions: "read", pages: "write", "id-token": "write" },
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

const concurrencies = (workflows: Workflows): [string, Concurrency][] => [
  ...[...workflows.values()].flatMap((w): [string, Concurrency][] => (w.doc.concurrency ? [[w.file, w.doc.concurrency]] : [])),
  ...jobs(workflows, workflows.keys()).flatMap(([where, job]): [string, Concurrency][] => (job.concurrency ? [[where, job.concurrency]] : [])),
];

/**
 * A queue drops no pending run: a group that never cancels the run in progress keeps every
 * waiting one too (`queue: max`; the default keeps one and cancels the rest). Jobs on a dedicated
 * machine (a runs-on from the matrix) queue per runner.
 */
function concurrencyProblems(workflows: Workflows): string[] {
  const problems = concurrencies(workflows).flatMap(([where, concurrency]) => {
    if (typeof concurrency === "string") return [`${where}: concurrency needs cancel-in-progress: false and queue: max, not the default queue`];
    if (concurrency.queue !== undefined && !["single", "max"].includes(String(concurrency.queue))) return [`${where}: queue must be single or max`];
    return concurrency["cancel-in-progress"] === false && concurrency.queue !== "max" ? [`${where}: waits for the run in progress, so it needs queue: max`] : [];
  });
  for (const [where, job] of jobs(workflows, workflows.keys())) {
    const concurrency = typeof job.concurrency === "object" ? job.concurrency : undefined;
    const onMachine = String(job["runs-on"] ?? "").includes("matrix.");
    if (onMachine && !(concurrency?.group?.includes("matrix.runner") && concurrency["cancel-in-progress"] === false && concurrency.queue === "max")) {
      problems.push(`${where}: needs concurrency {group: …matrix.runner…, cancel-in-progress: false, queue: max}`);
    }
  }
  return problems;
}

/** actionlint.yaml silences only the `queue` message, only for workflows that use `queue`. */
function actionlintConfigProblems(workflows: Workflows, config = readFileSync(join(REPO_ROOT, ".github", "actionlint.yaml"), "utf8")): string[] {
  const paths = (parse(config) as { paths?: Record<string, { ignore?: string[] }> }).paths ?? {};
  const queued = new Set(concurrencies(workflows).filter(([, c]) => typeof c === "object" && c.queue !== undefined).map(([where]) => `.github/workflows/${where.split("/")[0]}`));
  const problems = Object.entries(paths).flatMap(([path, { ignore = [] }]) => [
    ...ignore.filter((message) => message !== 'unexpected key "queue" for "concurrency" section').map((message) => `${path}: actionlint.yaml silences '${message}'`),
    ...(queued.has(path) ? [] : [`${path}: actionlint.yaml silences the queue message, but the workflow uses no queue`]),
  ]);
  return [...problems, ...[...queued].filter((path) => !paths[path]).map((path) => `${path}: uses queue, which actionlint 1.7 does not know: silence that message for it`)];
}

/** Every downloaded artifact is checked against the digest its upload recorded. */
function digestProblems(workflows: Workflows): string[] {
  return jobs(workflows, workflows.keys()).flatMap(([where, job]) =>
    (job.steps ?? []).filter((step) => step.uses?.startsWith("actions/download-artifact@") && step.with?.["digest-mismatch"] !== "error").map(() => `${where}: download-artifact needs digest-mismatch: error`),
  );
}

const HOOK_FILE = join(REPO_ROOT, "scripts", "runner", "job-started.sh");
const hookList = (name: string, hook = readFileSync(HOOK_FILE, "utf8")): string[] =>
  new RegExp(`^${name}=\\(([^)]*)\\)$`, "m").exec(hook)?.[1]!.trim().split(/\s+/) ?? [];

/**
 * The machines' job-started hook admits exactly the workflows whose jobs may land on them: the
 * one workflow with jobs off GitHub-hosted images, and the workflows that call it (a called
 * workflow runs in its caller's context). Those callers start only on the events the hook admits.
 */
function hookProblems(workflows: Workflows, hook = readFileSync(HOOK_FILE, "utf8")): string[] {
  const problems: string[] = [];
  const onMachines = jobs(workflows, workflows.keys()).filter(([, job]) => !job.uses && !isHosted(job));
  const files = [...new Set(onMachines.map(([where]) => where.split("/")[0]!))];
  for (const file of files) {
    const callers = [...workflows.values()].filter((w) => Object.values(w.doc.jobs).some((job) => LOCAL_WORKFLOW.exec(job.uses ?? "")?.[1] === file)).map((w) => w.file);
    const expected = [file, ...callers].sort();
    const admitted = hookList("ADMITTED_WORKFLOWS", hook).sort();
    if (JSON.stringify(admitted) !== JSON.stringify(expected)) problems.push(`scripts/runner/job-started.sh admits ${admitted.join(" ")}, but jobs reach the machines from ${expected.join(" ")}`);
    const admittedEvents = hookList("ADMITTED_EVENTS", hook);
    for (const starter of [file, ...callers]) {
      const others = events(workflows.get(starter)!.doc).filter((e) => e !== "workflow_call" && !admittedEvents.includes(e));
      if (others.length > 0) problems.push(`${starter}: starts on ${others.join(", ")}, which the job-started hook refuses`);
    }
  }
  if (files.length !== 1) problems.push(`jobs off GitHub-hosted images in ${files.join(", ") || "no workflow"}: only benchmark.yml may have them`);
  return problems;
}

/** Each dedicated machine is selected by a label of its own name, carried by it alone. */
function labelProblems(workflows: Workflows, runners: readonly BenchRunner[] = loadBenchRunners()): string[] {
  const problems = runners.flatMap((runner) => {
    if (!runner.labels.includes(runner.name)) return [`.github/bench-runners.json: ${runner.name} lacks the label ${runner.name}`];
    const shared = runners.filter((other) => other !== runner && other.labels.includes(runner.name));
    return shared.map((other) => `.github/bench-runners.json: ${other.name} carries ${runner.name}'s own label`);
  });
  const bench = workflows.get("benchmark.yml")?.doc.jobs.bench;
  if (bench?.["runs-on"] !== "${{ matrix.labels }}") problems.push("benchmark.yml/bench: runs-on must be the runner's labels from the matrix, ${{ matrix.labels }}");
  if (!/if \[ "\$RUNNER_NAME" != "\$RUNTIME_BENCH_RUNNER" \]; then[^]*exit 1/.test(bench?.steps?.[0]?.run ?? "")) {
    problems.push("benchmark.yml/bench: its first step must fail when RUNNER_NAME is not the planned machine");
  }
  return problems;
}

/**
 * Calls of benchmark.yml in one workflow run share its artifacts: each call's artifact names and
 * download pattern carry its own name, which every caller sets per call (its matrix index).
 */
function discriminatorProblems(workflows: Workflows): string[] {
  const problems: string[] = [];
  const benchmark = workflows.get("benchmark.yml")?.doc;
  if (!benchmark) return ["benchmark.yml is missing"];
  const CALL = "${{ needs.plan.outputs.call }}";
  for (const [id, job] of Object.entries(benchmark.jobs)) {
    for (const step of job.steps ?? []) {
      const named = (key: string) => {
        const value = step.with?.[key];
        if (value !== undefined && !String(value).includes(CALL)) problems.push(`benchmark.yml/${id}: ${step.uses?.split("@")[0]} ${key} '${String(value)}' lacks the call's name`);
      };
      if (step.uses?.startsWith("actions/upload-artifact@")) named("name");
      if (step.uses?.startsWith("actions/download-artifact@")) named("pattern");
    }
  }
  for (const w of workflows.values()) {
    for (const [id, job] of Object.entries(w.doc.jobs)) {
      if (LOCAL_WORKFLOW.exec(job.uses ?? "")?.[1] !== "benchmark.yml") continue;
      // The name comes from the matrix (act leaves strategy.job-index empty); a single call names itself.
      const call = String(job.with?.call ?? "");
      if (job.strategy?.matrix !== undefined ? !call.includes("matrix.call") : !/^[A-Za-z0-9_-]+$/.test(call)) {
        problems.push(`${w.file}/${id}: calls benchmark.yml without a call name ${job.strategy?.matrix !== undefined ? "per matrix entry (matrix.call)" : "of letters, digits, - and _"}`);
      }
    }
  }
  return problems;
}

/** The site is built from the tip of the default branch, so a later deploy never shows older data. */
function pagesTipProblems(workflows: Workflows): string[] {
  const pages = workflows.get("pages.yml")?.doc;
  const checkout = Object.values(pages?.jobs ?? {}).flatMap((job) => checkouts(job));
  const tip = "${{ github.event.repository.default_branch || github.ref_name }}";
  return checkout.length === 1 && checkout[0]!.with?.ref === tip ? [] : [`pages.yml: one checkout, of ref ${tip}`];
}

const runsApps = (job: Job) => (job.steps ?? []).findIndex((step) => /scripts\/bench run\b/.test(step.run ?? ""));

/**
 * Caches are restored by their exact key only (a prefix would take whatever a job saved under a
 * matching name last), and a job that runs apps saves its caches before the step that runs them,
 * never in a post-job step (`actions/cache` saves after every step).
 */
function cacheProblems(workflows: Workflows): string[] {
  return jobs(workflows, workflows.keys()).flatMap(([where, job]) => {
    const steps = job.steps ?? [];
    const problems = steps.filter((step) => step.with?.["restore-keys"] !== undefined).map((step) => `${where}: ${step.uses?.split("@")[0]} restores by prefix (restore-keys); restore by the exact key`);
    const measure = runsApps(job);
    if (measure < 0) return problems;
    steps.forEach((step, index) => {
      if (/^actions\/cache@/.test(step.uses ?? "")) problems.push(`${where}: actions/cache saves after the apps ran; use cache/restore and cache/save before the step that runs them`);
      if (/^actions\/cache\/save@/.test(step.uses ?? "") && index > measure) problems.push(`${where}: saves a cache after the apps ran`);
    });
    return problems;
  });
}

/**
 * Concurrency groups are repository-wide: a group that cancels what is in progress could cancel a
 * benchmark or a collect of the same name. So no group on the default branch cancels, except a
 * pull-request workflow's, whose group names its pull request's number.
 */
function cancellingGroupProblems(workflows: Workflows): string[] {
  const pullRequests = pullRequestWorkflows(workflows);
  return concurrencies(workflows).flatMap(([where, concurrency]) => {
    if (typeof concurrency === "object" && concurrency["cancel-in-progress"] === false) return [];
    const file = where.split("/")[0]!;
    const group = typeof concurrency === "string" ? concurrency : String(concurrency.group ?? "");
    return pullRequests.has(file) && group.includes("github.event.pull_request.number") ? [] : [`${where}: a group that may cancel a run in progress, outside a pull-request workflow's own group (…github.event.pull_request.number…)`];
  });
}

const NODE_VERSION_FILE = join(REPO_ROOT, ".node-version");

/** The harness runs on the Node its tests run on: every harness setup-node reads .node-version, which package.json's engines admit. */
function harnessNodeProblems(workflows: Workflows, nodeVersion = readFileSync(NODE_VERSION_FILE, "utf8").trim()): string[] {
  const problems = jobs(workflows, workflows.keys()).flatMap(([where, job]) =>
    (job.steps ?? [])
      .filter((step) => step.uses?.startsWith("actions/setup-node@") && !["${{ matrix.version }}", "${{ matrix.predecessor }}"].includes(String(step.with?.["node-version"] ?? "")))
      .flatMap((step) => (step.with?.["node-version-file"] === ".node-version" && step.with["node-version"] === undefined ? [] : [`${where}: the harness's setup-node must read node-version-file: .node-version`])),
  );
  const engines = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
  if (!/^\d+$/.test(nodeVersion) || Number(nodeVersion) < Number(/\d+/.exec(engines)![0])) problems.push(`.node-version: '${nodeVersion}' is not a major version that package.json's engines (${engines}) admit`);
  return problems;
}

/**
 * collect checks every result against the plan's jobs and GitHub's record of the run: the job that
 * pushes passes it the plan, the call and the run's jobs and artifacts, listed by a step before it.
 */
function collectTrustProblems(workflows: Workflows): string[] {
  const collect = workflows.get("benchmark.yml")?.doc.jobs.collect;
  const steps = collect?.steps ?? [];
  const push = steps.findIndex((s) => s.run?.includes("scripts/ci/commit-results"));
  const step = steps[push];
  const listing = steps.findIndex((s) => s.uses?.startsWith("actions/github-script@") && s.env?.RECORD === "${{ runner.temp }}/run.json" && /listJobsForWorkflowRun[\s\S]*listWorkflowRunArtifacts/.test(String(s.with?.script)));
  return step && /--plan "\$RUNNER_TEMP\/plan\.json" --call "\$CALL" --run "\$RUNNER_TEMP\/run\.json"/.test(step.run!) && step.run!.includes('"$PLAN" >"$RUNNER_TEMP/plan.json"') && listing >= 0 && listing < push
    ? []
    : ["benchmark.yml/collect: commit-results must get the plan's matrix (--plan), the call (--call) and the run's jobs and artifacts (--run, listed by an earlier github-script step), so that collect checks each result against its job"];
}

/**
 * collect finds each job's artifact by the name the bench job uploads it under, and the upload step
 * by its name, the artifact's: the same template, an upload that fails when it finds no file, and
 * a file written before any other step, so that a successful upload always made its artifact.
 */
function artifactNameProblems(workflows: Workflows): string[] {
  const steps = workflows.get("benchmark.yml")?.doc.jobs.bench?.steps ?? [];
  const upload = steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"));
  const matrix = (key: string) => `\${{ matrix.${key} }}`;
  const expected = artifactName("${{ needs.plan.outputs.call }}", { runner: matrix("runner"), runtime: matrix("runtime"), version: matrix("version") } as unknown as MatrixEntry);
  const problems: string[] = [];
  if (upload?.with?.name !== expected) problems.push(`benchmark.yml/bench: uploads its results as '${String(upload?.with?.name)}', but collect looks for ${expected} (src/collect/collect.ts artifactName)`);
  if (upload?.name !== uploadStepName(expected)) problems.push(`benchmark.yml/bench: its upload step is named '${String(upload?.name)}', but collect looks for '${uploadStepName(expected)}' (src/collect/workflow-run.ts)`);
  if (upload?.with?.["if-no-files-found"] !== "error") problems.push("benchmark.yml/bench: its upload must fail when it finds no file (if-no-files-found: error)");
  const file = steps.findIndex((step) => step.run?.includes('>"$RUNNER_TEMP/results/artifact.txt"') && step.if === "${{ !cancelled() }}");
  const firstAction = steps.findIndex((step) => step.uses !== undefined);
  if (file < 0 || file > firstAction) problems.push("benchmark.yml/bench: a step before any action must write $RUNNER_TEMP/results/artifact.txt, unless cancelled, so every upload holds a file");
  return problems;
}

/** A code fence in a job summary is closed by any result string holding one: summaries print reports inside an escaped <pre>. */
function summaryFenceProblems(workflows: Workflows): string[] {
  return jobs(workflows, workflows.keys()).flatMap(([where, job]) =>
    (job.steps ?? []).filter((step) => step.run?.includes("GITHUB_STEP_SUMMARY") && step.run.includes("```")).map((step) => `${where}: step '${step.name ?? step.uses}' fences text in its summary; print it HTML-escaped inside <pre>`),
  );
}

/** Every binary a setup action installed is checked against the registry before the measure step runs it. */
function runtimeCheckProblems(workflows: Workflows): string[] {
  const steps = workflows.get("benchmark.yml")?.doc.jobs.bench?.steps ?? [];
  const measure = steps.findIndex((step) => step.run?.includes("scripts/bench run "));
  const checks = (variable: string) => steps.findIndex((step) => step.run?.includes(`scripts/ci/check-runtime "$${variable}" "$RUNTIME"`));
  return ["PREDECESSOR_BIN", "RUNTIME_BIN"].flatMap((variable) => {
    const at = checks(variable);
    return at >= 0 && at < measure ? [] : [`benchmark.yml/bench: $${variable} must be checked with scripts/ci/check-runtime before the measure step`];
  });
}

const ALL_RULES = [
  selfHostedProblems,
  pullRequestTargetProblems,
  pinProblems,
  permissionProblems,
  credentialProblems,
  secretProblems,
  followerCheckoutProblems,
  concurrencyProblems,
  actionlintConfigProblems,
  digestProblems,
  hookProblems,
  labelProblems,
  discriminatorProblems,
  pagesTipProblems,
  cacheProblems,
  cancellingGroupProblems,
  harnessNodeProblems,
  collectTrustProblems,
  summaryFenceProblems,
  artifactNameProblems,
  runtimeCheckProblems,
];

// ---- tests ----

describe("the workflows in .github/workflows", () => {
  const workflows = loadWorkflows();

  it("are the ones the issue asks for", () => {
    assert.deepEqual([...workflows.keys()], ["backfill.yml", "benchmark.yml", "canary.yml", "ci.yml", "pages.yml", "release-watch.yml", "scenario-pr-comment.yml", "scenario-pr.yml"]);
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
  const checkoutStep = "    steps:\n      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n        with:\n          persist-credentials: false\n";

  it("a self-hosted or matrix-chosen runner in a pull-request workflow, or in one it calls", () => {
    assert.match(selfHostedProblems(withFile("bad.yml", prWorkflow(`    runs-on: [self-hosted, linux, x64, bench]\n${checkoutStep}`))).join(), /bad\.yml\/job: runs on/);
    assert.match(selfHostedProblems(withFile("bad.yml", prWorkflow(`    runs-on: \${{ matrix.labels }}\n${checkoutStep}`))).join(), /bad\.yml\/job/);
    assert.match(selfHostedProblems(withFile("bad.yml", prWorkflow("    uses: ./.github/workflows/benchmark.yml\n"))).join(), /benchmark\.yml\/bench: runs on/);
  });

  it("an action pinned to a tag or a short SHA, or otherwise than the pin table says; an unused or Node 20 pin in the table", () => {
    const step = (uses: string) => withFile("bad.yml", prWorkflow(`    runs-on: ubuntu-latest\n    steps:\n      - uses: ${uses}\n`));
    const NODE = "820762786026740c76f36085b0efc47a31fe5020";
    assert.deepEqual(pinProblems(step(`actions/setup-node@${NODE} # v7.0.0`)), []);
    assert.match(pinProblems(step("actions/setup-node@v7")).join(), /not pinned to a full commit SHA/);
    assert.match(pinProblems(step("actions/setup-node@8207627")).join(), /not pinned to a full commit SHA/);
    assert.match(pinProblems(step(`actions/setup-node@${NODE}`)).join(), /needs the comment '# v7\.0\.0'/);
    assert.match(pinProblems(step(`actions/setup-node@${NODE} # v6.5.0`)).join(), /needs the comment '# v7\.0\.0', not 'v6\.5\.0'/);
    assert.match(pinProblems(step("actions/setup-node@a0853c24544627f65ddf259abe73b1d18a591444 # v7.0.0")).join(), /but the pin table says 8207627/);
    assert.match(pinProblems(step("mallory/setup-node@a0853c24544627f65ddf259abe73b1d18a591444 # v1.0.0")).join(), /mallory\/setup-node is not in \.github\/action-pins\.json/);
    const table = loadPinTable();
    const extra = { ...table, pins: { ...table.pins, "actions/stale": { version: "v9.0.0", sha: "a".repeat(40), runs: "node20" } } };
    const problems = pinProblems(good, extra).join("\n");
    assert.match(problems, /actions\/stale is pinned but no workflow uses it/);
    assert.match(problems, /actions\/stale v9\.0\.0 runs on node20, not node24/);
  });

  it("wider top-level permissions, an unlisted grant, a write grant in a pull-request job", () => {
    const wide = withFile("bad.yml", "on: push\npermissions: write-all\njobs:\n  job:\n    runs-on: ubuntu-latest\n    steps: []\n");
    assert.match(permissionProblems(wide).join(), /bad\.yml: top-level permissions must be exactly/);
    const granted = withFile("bad.yml", prWorkflow(`    runs-on: ubuntu-latest\n    permissions:\n      pull-requests: write\n${checkoutStep}`));
    assert.match(permissionProblems(granted).join(), /bad\.yml\/job: permissions .*expected undefined/);
    assert.match(permissionProblems(granted, { ...GRANTS, "bad.yml/job": { "pull-requests": "write" } }).join(), /a pull-request job takes no permission/);
  });

  it("a checkout that keeps its token in a job that does not push", () => {
    const kept = withFile("bad.yml", prWorkflow("    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n"));
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

  it("a queue that drops waiting runs, and an actionlint.yaml that silences more than the queue key", () => {
    const dropping = "on: workflow_dispatch\npermissions:\n  contents: read\nconcurrency:\n  group: x\n  cancel-in-progress: false\njobs: {}\n";
    assert.match(concurrencyProblems(withFile("bad.yml", dropping)).join(), /bad\.yml: waits for the run in progress, so it needs queue: max/);
    const bare = "on: workflow_dispatch\npermissions:\n  contents: read\nconcurrency: x\njobs: {}\n";
    assert.match(concurrencyProblems(withFile("bad.yml", bare)).join(), /bad\.yml: concurrency needs cancel-in-progress: false and queue: max/);
    const config = readFileSync(join(REPO_ROOT, ".github", "actionlint.yaml"), "utf8");
    assert.deepEqual(actionlintConfigProblems(good, config), []);
    assert.match(actionlintConfigProblems(good, `${config}  .github/workflows/ci.yml:\n    ignore:\n      - 'shellcheck reported issue'\n`).join("\n"), /ci\.yml: actionlint\.yaml silences 'shellcheck reported issue'[^]*ci\.yml: actionlint\.yaml silences the queue message, but the workflow uses no queue/);
  });

  it("a download that does not fail on a digest mismatch", () => {
    const download = "on: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  job:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c # v8.0.1\n        with:\n          digest-mismatch: warn\n";
    assert.deepEqual(digestProblems(withFile("bad.yml", download)), ["bad.yml/job: download-artifact needs digest-mismatch: error"]);
  });

  it("a hook that admits other workflows than those reaching the machines, a caller on an event it refuses, a second workflow on the machines", () => {
    const hook = readFileSync(HOOK_FILE, "utf8");
    assert.deepEqual(hookProblems(good, hook), []);
    const wider = hook.replace("ADMITTED_WORKFLOWS=(benchmark.yml canary.yml release-watch.yml)", "ADMITTED_WORKFLOWS=(benchmark.yml canary.yml release-watch.yml ci.yml)");
    assert.match(hookProblems(good, wider).join(), /admits benchmark\.yml canary\.yml ci\.yml release-watch\.yml, but jobs reach the machines from benchmark\.yml canary\.yml release-watch\.yml/);
    const caller = "on:\n  push:\npermissions:\n  contents: read\njobs:\n  call:\n    uses: ./.github/workflows/benchmark.yml\n";
    const problems = hookProblems(withFile("caller.yml", caller), hook).join("\n");
    assert.match(problems, /but jobs reach the machines from benchmark\.yml caller\.yml canary\.yml release-watch\.yml/);
    assert.match(problems, /caller\.yml: starts on push, which the job-started hook refuses/);
    const second = "on: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  job:\n    runs-on: [self-hosted, bench-x64-1]\n    steps: []\n";
    assert.match(hookProblems(withFile("second.yml", second), hook).join(), /only benchmark\.yml may have them/);
  });

  it("a machine without a label of its own name, or carrying another's, and a bench job not selecting by it", () => {
    const runners = loadBenchRunners();
    assert.deepEqual(labelProblems(good, runners), []);
    const generic = runners.map((r) => ({ ...r, labels: r.labels.filter((label) => label !== r.name).concat("bench") }));
    assert.match(labelProblems(good, generic).join(), /bench-x64-1 lacks the label bench-x64-1/);
    const borrowed = [runners[0]!, { ...runners[1]!, labels: [...runners[1]!.labels, runners[0]!.name] }];
    assert.match(labelProblems(good, borrowed).join(), /bench-arm64-1 carries bench-x64-1's own label/);
    const text = good.get("benchmark.yml")!.text.replace("runs-on: ${{ matrix.labels }}", "runs-on: [self-hosted, linux, x64]");
    assert.match(labelProblems(withFile("benchmark.yml", text), runners).join(), /benchmark\.yml\/bench: runs-on must be the runner's labels/);
    const unchecked = good.get("benchmark.yml")!.text.replace('if [ "$RUNNER_NAME" != "$RUNTIME_BENCH_RUNNER" ]; then', 'if false; then');
    assert.match(labelProblems(withFile("benchmark.yml", unchecked), runners).join(), /must fail when RUNNER_NAME is not the planned machine/);
  });

  it("artifacts, download pattern or comparison-store keys without the call's name, and a caller that gives none", () => {
    const benchmark = good.get("benchmark.yml")!.text;
    assert.deepEqual(discriminatorProblems(good), []);
    const shared = benchmark.replace("pattern: results-${{ needs.plan.outputs.call }}-*", "pattern: results-*");
    const problems = discriminatorProblems(withFile("benchmark.yml", shared)).join("\n");
    assert.match(problems, /benchmark\.yml\/collect: actions\/download-artifact pattern 'results-\*' lacks the call's name/);
    const watch = good.get("release-watch.yml")!.text.replace(/\n *call: .*\n/, "\n");
    assert.match(discriminatorProblems(withFile("release-watch.yml", watch)).join(), /release-watch\.yml\/benchmark: calls benchmark\.yml without a call name/);
  });

  it("a site built from the triggering commit instead of the branch tip", () => {
    const pages = good.get("pages.yml")!.text.replace("ref: ${{ github.event.repository.default_branch || github.ref_name }}", "ref: ${{ github.sha }}");
    assert.match(pagesTipProblems(withFile("pages.yml", pages)).join(), /pages\.yml: one checkout, of ref/);
  });

  it("a matrix-chosen machine without its per-runner queue", () => {
    const bench = "on: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  job:\n    runs-on: ${{ matrix.labels }}\n    concurrency:\n      group: bench-${{ matrix.runner }}\n      queue: maxx\n    steps: []\n";
    const problems = concurrencyProblems(withFile("bad.yml", bench)).join("\n");
    assert.match(problems, /queue must be single or max/);
    assert.match(problems, /needs concurrency/);
  });

  it("an unverified pin", () => {
    const table = loadPinTable();
    const unverified = { ...table, pins: { ...table.pins, "actions/checkout": { ...table.pins["actions/checkout"]!, unverified: "the tag could not be read" } } };
    assert.match(pinProblems(good, unverified).join(), /actions\/checkout v7\.0\.1 is not verified to be its release tag's commit/);
  });

  it("a cache restored by prefix, saved after the apps ran, or saved by a post-job step in a job that runs apps", () => {
    assert.deepEqual(cacheProblems(good), []);
    const benchmark = good.get("benchmark.yml")!.text;
    const prefixed = benchmark.replace("key: gab-store-${{ hashFiles('data/**') }}\n", "key: gab-store-${{ hashFiles('data/**') }}\n          restore-keys: gab-store-\n");
    assert.match(cacheProblems(withFile("benchmark.yml", prefixed)).join(), /benchmark\.yml\/collect: actions\/cache\/restore restores by prefix/);
    const combined = benchmark.replace("uses: actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n        with:\n          path: ~/.cache/runtime-bench/tools", "uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n        with:\n          path: ~/.cache/runtime-bench/tools");
    assert.match(cacheProblems(withFile("benchmark.yml", combined)).join(), /benchmark\.yml\/bench: actions\/cache saves after the apps ran/);
    const late = `on: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  job:\n    runs-on: ubuntu-latest\n    steps:\n      - run: scripts/bench run --suite http\n      - uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n        with:\n          path: x\n          key: y\n`;
    assert.deepEqual(cacheProblems(withFile("late.yml", late)), ["late.yml/job: saves a cache after the apps ran"]);
  });

  it("a group that may cancel a run in progress, unless it is a pull-request workflow's own", () => {
    assert.deepEqual(cancellingGroupProblems(good), []);
    const hostile = (group: string) => prWorkflow(`    runs-on: ubuntu-latest\n${checkoutStep}`, "").replace("jobs:", `concurrency:\n  group: ${group}\n  cancel-in-progress: true\njobs:`);
    assert.match(cancellingGroupProblems(withFile("bad.yml", hostile("bench-runner-bench-x64-1"))).join(), /bad\.yml: a group that may cancel a run in progress/);
    assert.deepEqual(cancellingGroupProblems(withFile("ok.yml", hostile("pr-${{ github.event.pull_request.number }}"))), []);
    const cancelling = good.get("benchmark.yml")!.text.replace("group: benchmark-collect\n      cancel-in-progress: false", "group: benchmark-collect\n      cancel-in-progress: true");
    assert.match(cancellingGroupProblems(withFile("benchmark.yml", cancelling)).join(), /benchmark\.yml\/collect: a group that may cancel/);
  });

  it("a harness Node other than the tests', and a .node-version the engines refuse", () => {
    assert.deepEqual(harnessNodeProblems(good), []);
    const pinned = good.get("benchmark.yml")!.text.replace("node-version-file: .node-version", "node-version: 22");
    assert.match(harnessNodeProblems(withFile("benchmark.yml", pinned)).join(), /benchmark\.yml\/plan: the harness's setup-node must read node-version-file: \.node-version/);
    assert.match(harnessNodeProblems(good, "18").join(), /\.node-version: '18' is not a major version that package\.json's engines \(>=20\) admit/);
  });

  it("a collect that does not check results against the plan, and a fenced summary", () => {
    const benchmark = good.get("benchmark.yml")!.text;
    const unchecked = benchmark.replace(' --plan "$RUNNER_TEMP/plan.json" --call "$CALL"', "");
    assert.match(collectTrustProblems(withFile("benchmark.yml", unchecked)).join(), /must get the plan's matrix/);
    const fenced = benchmark.replace('echo "<pre>"', "echo '```'");
    assert.match(summaryFenceProblems(withFile("benchmark.yml", fenced)).join(), /benchmark\.yml\/collect: step 'Regression report' fences text/);
    const renamed = benchmark.replace("name: results-${{ needs.plan.outputs.call }}-${{ matrix.runner }}-", "name: results-${{ matrix.runner }}-");
    assert.match(artifactNameProblems(withFile("benchmark.yml", renamed)).join(), /benchmark\.yml\/bench: uploads its results as 'results-\$\{\{ matrix\.runner \}\}-.*', but collect looks for results-\$\{\{ needs\.plan\.outputs\.call \}\}-/);
    const unverified = benchmark.replace('scripts/ci/check-runtime "$RUNTIME_BIN"', 'echo "$RUNTIME_BIN"');
    assert.deepEqual(runtimeCheckProblems(withFile("benchmark.yml", unverified)), ["benchmark.yml/bench: $RUNTIME_BIN must be checked with scripts/ci/check-runtime before the measure step"]);
    const unrecorded = benchmark.replace(' --run "$RUNNER_TEMP/run.json"', "");
    assert.match(collectTrustProblems(withFile("benchmark.yml", unrecorded)).join(), /and the run's jobs and artifacts \(--run/);
    const unnamed = benchmark.replace("- name: Upload results-${{ needs.plan.outputs.call }}", "- name: Upload the results-${{ needs.plan.outputs.call }}");
    assert.match(artifactNameProblems(withFile("benchmark.yml", unnamed)).join(), /its upload step is named 'Upload the results-.*', but collect looks for 'Upload results-/);
    const empty = benchmark.replace("if-no-files-found: error", "if-no-files-found: warn").replace('>"$RUNNER_TEMP/results/artifact.txt"', ">/dev/null");
    assert.deepEqual(artifactNameProblems(withFile("benchmark.yml", empty)), [
      "benchmark.yml/bench: its upload must fail when it finds no file (if-no-files-found: error)",
      "benchmark.yml/bench: a step before any action must write $RUNNER_TEMP/results/artifact.txt, unless cancelled, so every upload holds a file",
    ]);
  });
});
