import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import semver from "semver";
import { UserError } from "../core/errors.ts";
import { REPO_ROOT } from "../core/paths.ts";
import { runCommand } from "../process/children.ts";
import { prepareRuntimes } from "../runtimes/prepare.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";

/*
 * Local stand-ins for the third-party actions the workflows use, for scripts/act. Each does the
 * local equivalent of its action, on folders under the run's state directory, and appends what it
 * was given to records.jsonl there, so a test can assert what the real action would have received.
 * scripts/act maps each pinned `owner/repo@sha` of .github/action-pins.json to the stand-in's
 * folder; an action the pins list without a stand-in here stops scripts/act before anything runs.
 */

type Inputs = Readonly<Record<string, string>>;

/** What a stand-in sees: its inputs, the step's environment, and where its run keeps state. */
interface StandInContext {
  readonly inputs: Inputs;
  readonly env: NodeJS.ProcessEnv;
  readonly state: string;
  readonly workspace: string;
  /** Extra fields for this step's record. */
  readonly record: Record<string, unknown>;
  output(name: string, value: string): void;
}

interface StandIn {
  /** The inputs the workflows give it (a composite action only sees declared inputs). */
  readonly inputs: readonly string[];
  readonly outputs?: readonly string[];
  run(context: StandInContext): Promise<void>;
}

const env = (context: StandInContext, name: string): string => {
  const value = context.env[name];
  if (!value) throw new UserError(`the ${name} variable is not set: run this stand-in through scripts/act`);
  return value;
};

/** A path input as the runner reads it: `~` is the home directory, relative paths are in the workspace. */
const pathInput = (context: StandInContext, path: string): string =>
  path.startsWith("~/") ? join(homedir(), path.slice(2)) : isAbsolute(path) ? path : resolve(context.workspace, path);

const pathLines = (context: StandInContext, value: string | undefined): string[] =>
  (value ?? "").split("\n").map((line) => line.trim()).filter((line) => line !== "").map((line) => pathInput(context, line));

async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await runCommand("git", args, { cwd, timeoutMs: 120_000 });
  if (result.code !== 0) throw new UserError(`git ${args.join(" ")} failed in ${cwd}: ${result.stderr.trim().split("\n").pop()}`);
  return result.stdout.trim();
}

/** The workflow's repository, cloned from the run's remote at the ref asked (or the event's commit). */
const checkout: StandIn = {
  inputs: ["ref", "fetch-depth", "persist-credentials", "path"],
  async run(context) {
    const remote = env(context, "RUNTIME_BENCH_ACT_REMOTE");
    const dir = pathInput(context, context.inputs.path || ".");
    mkdirSync(dir, { recursive: true });
    await git(dir, "init", "--quiet");
    await git(dir, "remote", "add", "origin", remote);
    await git(dir, "fetch", "--quiet", "origin", "+refs/heads/*:refs/remotes/origin/*");
    const ref = context.inputs.ref ?? "";
    const branches = (await git(dir, "branch", "--remotes", "--format=%(refname:lstrip=3)")).split("\n");
    let commit: string;
    if (ref === "") {
      // As the real action: the event's commit, on its branch when the event names one.
      commit = env(context, "GITHUB_SHA");
      const eventRef = context.env.GITHUB_REF ?? "";
      if (eventRef.startsWith("refs/heads/")) await git(dir, "checkout", "--quiet", "-B", eventRef.slice("refs/heads/".length), commit);
      else await git(dir, "checkout", "--quiet", "--detach", commit);
    } else if (branches.includes(ref)) {
      await git(dir, "checkout", "--quiet", "-B", ref, `refs/remotes/origin/${ref}`);
    } else {
      await git(dir, "fetch", "--quiet", "origin", ref);
      await git(dir, "checkout", "--quiet", "--detach", "FETCH_HEAD");
    }
    commit = await git(dir, "rev-parse", "HEAD");
    context.record.commit = commit;
    // Without the credential the real action leaves behind, a push fails as it would there.
    if (context.inputs["persist-credentials"] === "false") await git(dir, "remote", "set-url", "--push", "origin", `${remote}.no-credentials`);
    // The harness's installed dependencies stand in for `npm ci` when the lockfile is the same.
    const lock = (root: string) => (existsSync(join(root, "package-lock.json")) ? readFileSync(join(root, "package-lock.json"), "utf8") : null);
    if (lock(dir) !== null && lock(dir) === lock(REPO_ROOT) && !existsSync(join(dir, "node_modules"))) {
      symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
    }
  },
};

/**
 * A runtime at the version asked, put first on PATH: the harness's own Node when it satisfies the
 * version (the runner's tool cache), else provisioned into the harness's runtime cache.
 */
/** A setup action: the version by its input, or (setup-node's `node-version-file`) read from a file of the workspace. */
const setupRuntime = (runtime: RuntimeName, input: string, fileInput?: string): StandIn => ({
  inputs: fileInput ? [input, fileInput] : [input],
  async run(context) {
    const file = fileInput ? context.inputs[fileInput] : undefined;
    const version = context.inputs[input] || (file ? readFileSync(pathInput(context, file), "utf8").trim() : "");
    if (!version) throw new UserError(`${fileInput ? `${input} and ${fileInput} are` : `${input} is`} empty`);
    let binary: string;
    if (runtime === "node" && semver.satisfies(process.version, version)) {
      binary = process.execPath;
    } else {
      const [prepared] = await prepareRuntimes([`${runtime}@${version}`], (line) => process.stderr.write(`${line}\n`));
      binary = prepared!.provisioned.binary;
    }
    context.record.binary = binary;
    appendFileSync(env(context, "GITHUB_PATH"), `${dirname(binary)}\n`);
  },
});

/** A cache entry's folder name: the key, with what a file name cannot hold replaced. */
const entryName = (key: string) => key.trim().replace(/[^A-Za-z0-9._-]/g, "_");

/** The entry of the exact key, else the newest entry starting with the first restore key that has one. */
function restoreCache(context: StandInContext): void {
  const root = join(context.state, "cache");
  const stored = existsSync(root) ? readdirSync(root) : [];
  const newest = (names: string[]) => names.sort((a, b) => statSync(join(root, a)).mtimeMs - statSync(join(root, b)).mtimeMs).pop();
  const key = entryName(context.inputs.key ?? "");
  const prefixes = (context.inputs["restore-keys"] ?? "").split("\n").filter((line) => line.trim() !== "").map(entryName);
  const hit = stored.includes(key) ? key : prefixes.map((prefix) => newest(stored.filter((name) => name.startsWith(prefix)))).find((name) => name !== undefined);
  context.record.restored = hit ?? null;
  context.output("cache-hit", String(hit === key));
  // The real action gives its key back, which the workflows hand to actions/cache/save.
  context.output("cache-primary-key", context.inputs.key ?? "");
  if (hit === undefined) return;
  pathLines(context, context.inputs.path).forEach((path, index) => cpSync(join(root, hit, String(index)), path, { recursive: true }));
}

function saveCache(context: StandInContext): void {
  const key = context.inputs.key ?? "";
  if (key.trim() === "") throw new UserError("actions/cache/save was given an empty key");
  const entry = join(context.state, "cache", entryName(key));
  if (existsSync(entry)) return; // a cache entry is never overwritten
  // Two jobs may save one key at once (the real action lets the first reserve it): each copies
  // aside, out of restore's sight, and the entry appears whole by a rename, or the loser's copy is dropped.
  const staging = join(context.state, "cache-saving", `${entryName(key)}-${process.pid}`);
  try {
    pathLines(context, context.inputs.path).forEach((path, index) => {
      if (existsSync(path)) cpSync(path, join(staging, String(index)), { recursive: true });
    });
  } catch (error) {
    // The real action archives the paths with tar; when that fails (a file removed while it reads
    // the folder, one tar cannot archive) it warns and saves nothing, and the job goes on.
    rmSync(staging, { recursive: true, force: true });
    context.record.warning = `Failed to save: ${(error as Error).message}`;
    process.stderr.write(`::warning::${context.record.warning}; no cache entry saved under ${key}\n`);
    return;
  }
  mkdirSync(staging, { recursive: true });
  mkdirSync(join(context.state, "cache"), { recursive: true });
  try {
    renameSync(staging, entry);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Only another job's entry, saved first, is a reason to drop this copy; any other failure is the stand-in's.
    if (!existsSync(entry)) throw error;
  }
}

/** Restores; the main cache action also saves, as a post step, which a composite stand-in has not. */
const cacheRestore: StandIn = { inputs: ["path", "key", "restore-keys"], outputs: ["cache-hit", "cache-primary-key"], run: async (context) => restoreCache(context) };
const cacheSave: StandIn = { inputs: ["path", "key"], run: async (context) => saveCache(context) };

/** Artifacts of a workflow run, by name: one folder each, as the artifact service keeps them. */
const artifactsOf = (context: StandInContext, runId: string) => join(context.state, "artifacts", runId);

function uploadArtifact(context: StandInContext, name: string, path: string): void {
  const source = pathInput(context, path);
  const target = join(artifactsOf(context, env(context, "GITHUB_RUN_ID")), name);
  if (existsSync(target)) throw new UserError(`an artifact named '${name}' already exists in run ${env(context, "GITHUB_RUN_ID")}`);
  const files = existsSync(source) ? (statSync(source).isDirectory() ? readdirSync(source, { recursive: true }).length : 1) : 0;
  context.record.files = files;
  if (files === 0) {
    const when = context.inputs["if-no-files-found"] || "warn";
    if (when === "error") throw new UserError(`no files were found at ${path}`);
    if (when === "warn") process.stderr.write(`::warning::no files were found at ${path}; no artifact uploaded\n`);
    return;
  }
  cpSync(source, statSync(source).isDirectory() ? target : join(target, source.slice(source.lastIndexOf("/") + 1)), { recursive: true });
}

const uploadArtifactStandIn: StandIn = {
  inputs: ["name", "path", "if-no-files-found", "retention-days"],
  run: async (context) => uploadArtifact(context, context.inputs.name || "artifact", context.inputs.path ?? ""),
};

/** A glob of artifact names: only `*` and `?` are special. */
const nameMatcher = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);

const downloadArtifact: StandIn = {
  inputs: ["name", "pattern", "path", "run-id", "github-token", "merge-multiple", "digest-mismatch"],
  async run(context) {
    const { name = "", pattern = "", path = "", "run-id": runId = "", "merge-multiple": merge = "false" } = context.inputs;
    const from = artifactsOf(context, runId || env(context, "GITHUB_RUN_ID"));
    const target = pathInput(context, path || ".");
    const available = existsSync(from) ? readdirSync(from).sort() : [];
    if (name !== "") {
      if (!available.includes(name)) throw new UserError(`no artifact named '${name}' in run ${runId || env(context, "GITHUB_RUN_ID")}`);
      cpSync(join(from, name), target, { recursive: true });
      context.record.downloaded = [name];
      return;
    }
    const matching = pattern === "" ? available : available.filter((artifact) => nameMatcher(pattern).test(artifact));
    // As v8 does: a folder per artifact, except with merge-multiple or when exactly one matched.
    const flat = merge === "true" || matching.length === 1;
    for (const artifact of matching) cpSync(join(from, artifact), flat ? target : join(target, artifact), { recursive: true });
    mkdirSync(target, { recursive: true });
    context.record.downloaded = matching;
  },
};

/** The folder the last deploy published: what the Pages site would serve. */
const PAGES_ARTIFACT = "github-pages";

const uploadPagesArtifact: StandIn = {
  inputs: ["path", "name", "retention-days"],
  run: async (context) => uploadArtifact(context, context.inputs.name || PAGES_ARTIFACT, context.inputs.path || "_site/"),
};

const deployPages: StandIn = {
  inputs: ["artifact_name", "token", "timeout", "preview"],
  outputs: ["page_url"],
  async run(context) {
    const artifact = join(artifactsOf(context, env(context, "GITHUB_RUN_ID")), context.inputs.artifact_name || PAGES_ARTIFACT);
    if (!existsSync(artifact)) throw new UserError(`no Pages artifact in this run: upload one with actions/upload-pages-artifact first`);
    const site = join(context.state, "pages");
    rmSync(site, { recursive: true, force: true });
    cpSync(artifact, site, { recursive: true });
    context.output("page_url", `file://${site}/`);
  },
};

/** github-action-benchmark's input file, kept in a folder by the name of its series. */
const benchmarkAction: StandIn = {
  inputs: [
    "name", "tool", "output-file-path", "external-data-json-path", "ref", "github-token", "alert-threshold", "comment-on-alert", "summary-always", "fail-on-alert",
  ],
  async run(context) {
    const input = pathInput(context, context.inputs["output-file-path"] ?? "");
    const entries = JSON.parse(readFileSync(input, "utf8")) as unknown;
    context.record.entries = entries;
    const dir = join(context.state, "benchmark");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${(context.inputs.name ?? "").replace(/[^A-Za-z0-9._-]+/g, "_")}.json`), JSON.stringify(entries, null, 2));
  },
};

/** A run's artifacts as GitHub's API lists them: each upload's folder, created when it was copied there. */
function listedArtifacts(context: StandInContext, runId: string): { total_count: number; artifacts: { name: string; created_at: string }[] } {
  const dir = artifactsOf(context, runId);
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  return { total_count: names.length, artifacts: names.map((name) => ({ name, created_at: statSync(join(dir, name)).mtime.toISOString() })) };
}

/**
 * Runs the script as github-script does, against a GitHub API that answers from the state's
 * `github-api/<run id>/<namespace>.<method>.json` or `github-api/<namespace>.<method>.json` files,
 * lists a run's artifacts from the artifacts its stand-ins uploaded, answers `{}` to anything else,
 * and records every call. `paginate` returns a list endpoint's items, as Octokit's does.
 */
const githubScript: StandIn = {
  inputs: ["script", "github-token", "result-encoding", "retries"],
  outputs: ["result"],
  async run(context) {
    const calls: { method: string; params: unknown }[] = [];
    context.record.calls = calls;
    const answer = (method: string, params: unknown) => {
      const runId = String((params as { run_id?: unknown } | null)?.run_id ?? context.env.GITHUB_RUN_ID ?? "");
      const file = [join(context.state, "github-api", runId, `${method}.json`), join(context.state, "github-api", `${method}.json`)].find((path) => existsSync(path));
      if (file) return JSON.parse(readFileSync(file, "utf8")) as unknown;
      return method === "actions.listWorkflowRunArtifacts" ? listedArtifacts(context, runId) : {};
    };
    const rest = new Proxy({} as Record<string, unknown>, {
      get: (_, namespace: string) =>
        new Proxy({}, {
          get: (__, name: string) => {
            const method = `${namespace}.${name}`;
            const call = async (params: unknown) => {
              calls.push({ method, params });
              return { data: answer(method, params) };
            };
            return Object.assign(call, { method });
          },
        }),
    });
    const github = {
      rest,
      paginate: async (fn: (params: unknown) => Promise<{ data: unknown }>, params: unknown) => {
        const { data } = await fn(params);
        if (Array.isArray(data)) return data;
        // A list endpoint answers `{total_count, <items>: [...]}`: Octokit's paginate returns the items.
        const items = Object.values((data ?? {}) as Record<string, unknown>).find(Array.isArray);
        return items ?? [];
      },
    };
    const [owner = "", repo = ""] = (context.env.GITHUB_REPOSITORY ?? "/").split("/");
    const eventPath = context.env.GITHUB_EVENT_PATH;
    const ghContext = {
      repo: { owner, repo },
      payload: eventPath && existsSync(eventPath) ? (JSON.parse(readFileSync(eventPath, "utf8")) as unknown) : {},
      eventName: context.env.GITHUB_EVENT_NAME,
      sha: context.env.GITHUB_SHA,
      ref: context.env.GITHUB_REF,
      runId: Number(context.env.GITHUB_RUN_ID),
    };
    let failed: string | undefined;
    const messages: string[] = [];
    const say = (kind: string) => (text: string) => {
      messages.push(`${kind}: ${text}`);
      process.stderr.write(`${kind === "info" ? "" : `::${kind}::`}${text}\n`);
    };
    const core = {
      info: say("info"),
      debug: say("debug"),
      notice: say("notice"),
      warning: say("warning"),
      error: say("error"),
      setOutput: (name: string, value: unknown) => context.output(name, typeof value === "string" ? value : JSON.stringify(value)),
      setFailed: (text: string) => {
        failed = text;
        say("error")(text);
      },
    };
    context.record.messages = messages;
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
    const script = new AsyncFunction("require", "github", "context", "core", context.inputs.script ?? "");
    const result = await script(createRequire(join(context.workspace, "index.js")), github, ghContext, core);
    context.output("result", context.inputs["result-encoding"] === "string" ? String(result ?? "") : JSON.stringify(result ?? null));
    if (failed !== undefined) throw new UserError(failed);
  },
};

/** Stand-ins by the action's `owner/repo` and, for an action in a subfolder, its path. */
export const STAND_INS: Readonly<Record<string, StandIn>> = {
  "actions/checkout": checkout,
  "actions/setup-node": setupRuntime("node", "node-version", "node-version-file"),
  "denoland/setup-deno": setupRuntime("deno", "deno-version"),
  "oven-sh/setup-bun": setupRuntime("bun", "bun-version"),
  "actions/cache": cacheRestore,
  "actions/cache/restore": cacheRestore,
  "actions/cache/save": cacheSave,
  "actions/upload-artifact": uploadArtifactStandIn,
  "actions/download-artifact": downloadArtifact,
  "actions/upload-pages-artifact": uploadPagesArtifact,
  "actions/deploy-pages": deployPages,
  "actions/github-script": githubScript,
  "benchmark-action/github-action-benchmark": benchmarkAction,
};

/**
 * Writes each pinned action's stand-in (a composite action calling `runStandIn`) under
 * `<state>/actions/<owner>/<repo>` and returns act's `--local-repository` mapping for each pin.
 */
export function writeStandIns(state: string, pins: Readonly<Record<string, { sha: string }>>): string[] {
  const repos = Object.keys(pins);
  const missing = repos.find((repo) => STAND_INS[repo] === undefined);
  if (missing !== undefined) throw new UserError(`.github/action-pins.json pins ${missing}, which has no stand-in in src/act/stand-ins.ts`);
  for (const [name, standIn] of Object.entries(STAND_INS)) {
    const dir = join(state, "actions", name);
    mkdirSync(dir, { recursive: true });
    const inputs = standIn.inputs.map((input) => `  ${input}:\n    required: false\n    default: ""\n`).join("");
    const outputs = (standIn.outputs ?? []).map((output) => `  ${output}:\n    value: \${{ steps.stand-in.outputs.${output} }}\n`).join("");
    writeFileSync(
      join(dir, "action.yml"),
      [
        `name: ${name} (scripts/act stand-in)`,
        `description: The local equivalent of ${name}, recording its inputs`,
        `inputs:\n${inputs || "  {}\n"}`.trimEnd(),
        ...(outputs ? [`outputs:\n${outputs}`.trimEnd()] : []),
        "runs:",
        "  using: composite",
        "  steps:",
        "    - id: stand-in",
        "      shell: bash",
        "      env:",
        "        RUNTIME_BENCH_ACT_INPUTS: ${{ toJSON(inputs) }}",
        `      run: cd "$RUNTIME_BENCH_ACT_HOME" && "$RUNTIME_BENCH_ACT_NODE" --import tsx src/act/main.ts stand-in ${name}`,
        "",
      ].join("\n"),
    );
  }
  return repos.map((repo) => `${repo}@${pins[repo]!.sha}=${join(state, "actions", repo)}`);
}

/** Runs one stand-in in an act step, and appends its record. */
export async function runStandIn(name: string, processEnv: NodeJS.ProcessEnv): Promise<void> {
  const standIn = STAND_INS[name];
  if (standIn === undefined) throw new UserError(`no stand-in for ${name}`);
  const inputs = JSON.parse(processEnv.RUNTIME_BENCH_ACT_INPUTS ?? "{}") as Record<string, string>;
  const state = processEnv.RUNTIME_BENCH_ACT_STATE;
  const workspace = processEnv.GITHUB_WORKSPACE;
  if (!state || !workspace) throw new UserError("RUNTIME_BENCH_ACT_STATE or GITHUB_WORKSPACE is not set: run this stand-in through scripts/act");
  const record: Record<string, unknown> = {};
  const context: StandInContext = {
    inputs,
    env: processEnv,
    state,
    workspace,
    record,
    output: (output, value) => {
      if (processEnv.GITHUB_OUTPUT) appendFileSync(processEnv.GITHUB_OUTPUT, `${output}<<EOF_STAND_IN\n${value}\nEOF_STAND_IN\n`);
    },
  };
  const entry = { action: name, workflow: processEnv.GITHUB_WORKFLOW, job: processEnv.GITHUB_JOB, run_id: processEnv.GITHUB_RUN_ID, inputs };
  try {
    await standIn.run(context);
  } finally {
    appendFileSync(join(state, "records.jsonl"), `${JSON.stringify({ ...entry, ...record })}\n`);
  }
}
