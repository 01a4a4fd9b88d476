import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { uploadStepName } from "../../src/collect/workflow-run.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { fetchFromRegistry, registryUrl } from "../../src/runtimes/registry.ts";
import { machineArch, RUNTIMES, type RuntimeName } from "../../src/runtimes/catalog.ts";
import { runProcess, tempDir, type BenchOutput } from "../../benchmarks/lib/cli.ts";

/*
 * End-to-end runs of the workflows under scripts/act: a scratch repository (a copy of this working
 * tree plus a test's fixture edits) whose origin is a bare repository on disk, so collect's pushes
 * are real pushes, and a registry snapshot served from 127.0.0.1.
 */

/** The default branch of every scratch repository: not `main`, so a workflow naming `main` fails. */
export const DEFAULT_BRANCH = "trunk";

export interface Scratch {
  /** The clone whose workflows act runs. */
  readonly dir: string;
  /** The bare repository it pushes to. */
  readonly remote: string;
  /** scripts/act's state: artifacts, the deployed site, records.jsonl. */
  readonly state: string;
  readonly root: string;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await runProcess("git", ["-c", "user.name=act-test", "-c", "user.email=act-test@localhost", ...args], { cwd });
  assert.equal(out.code, 0, `git ${args.join(" ")}: ${out.stderr}`);
  return out.stdout.trim();
}

/** Commits everything in the scratch clone and pushes it to the bare remote's branch. */
export async function commitAndPush(scratch: Scratch, message: string, branch = DEFAULT_BRANCH): Promise<string> {
  await git(scratch.dir, "add", "-A");
  await git(scratch.dir, "commit", "--quiet", "-m", message);
  await git(scratch.dir, "push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
  return git(scratch.dir, "rev-parse", "HEAD");
}

/**
 * This working tree (tracked and new files) as a repository of its own, after `edit`, with a bare
 * origin. Without the committed history in data/: each test seeds the results it checks, and
 * every commit, push and site build of a scratch repository would grow with the history.
 */
export async function scratchRepository(name: string, edit: (dir: string) => Promise<void> | void): Promise<Scratch> {
  const root = tempDir(`act-${name}`);
  const scratch: Scratch = { root, dir: join(root, "repo"), remote: join(root, "remote.git"), state: join(root, "state") };
  mkdirSync(scratch.dir);
  const copy = await runProcess("bash", ["-c", 'git ls-files -co --exclude-standard -z -- . ":(exclude)data" | tar --null -T - -cf - | tar -xf - -C "$1"', "copy", scratch.dir], { cwd: REPO_ROOT });
  assert.equal(copy.code, 0, copy.stderr);
  await edit(scratch.dir);
  await git(scratch.dir, "init", "--quiet", "--initial-branch", DEFAULT_BRANCH);
  await git(root, "init", "--quiet", "--bare", "--initial-branch", DEFAULT_BRANCH, scratch.remote);
  await git(scratch.dir, "remote", "add", "origin", scratch.remote);
  await commitAndPush(scratch, "the scratch repository");
  return scratch;
}

export function removeScratch(scratch: Scratch): void {
  rmSync(scratch.root, { recursive: true, force: true });
}

/** Runs `scripts/act WORKFLOW EVENT` on the scratch repository with `payload` as the event. */
export async function act(scratch: Scratch, workflow: string, event: string, payload: object, options: { runnerName?: string; env?: NodeJS.ProcessEnv; args?: string[] } = {}): Promise<BenchOutput> {
  const file = join(scratch.root, `${workflow}-${event}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(payload));
  const args = ["--repo", scratch.dir, "--state", scratch.state, ...(options.runnerName ? ["--runner-name", options.runnerName] : []), workflow, event, file];
  return runProcess(join(REPO_ROOT, "scripts/act"), [...args, "--", ...(options.args ?? [])], { cwd: REPO_ROOT, env: { ...process.env, ...options.env } });
}

/**
 * GitHub's list of a run's jobs, as benchmark.yml's collect job reads it through github-script:
 * act does not tell its jobs' steps, so a test names the artifacts its runs upload, each with a job
 * whose upload step is named for it (src/collect/workflow-run.ts), both spanning the test. The
 * artifacts themselves are listed from what the stand-ins uploaded.
 */
export function listJobsOf(scratch: Scratch, artifacts: readonly string[]): void {
  const started = new Date(Date.now() - 60_000).toISOString();
  const completed = new Date(Date.now() + 3 * 3_600_000).toISOString();
  const jobs = artifacts.map((artifact) => ({
    name: artifact,
    started_at: started,
    completed_at: completed,
    steps: [{ name: uploadStepName(artifact), conclusion: "success", started_at: started, completed_at: completed }],
  }));
  mkdirSync(join(scratch.state, "github-api"), { recursive: true });
  writeFileSync(join(scratch.state, "github-api", "actions.listJobsForWorkflowRun.json"), JSON.stringify({ total_count: jobs.length, jobs }));
}

/** act's errors, the harness's own lines and the last lines of its output, for an assertion's message. */
export function tailOf(out: BenchOutput, lines = 30): string {
  const all = `${out.stdout}\n${out.stderr}`.split("\n").filter((line) => !line.includes("unable to set default branch"));
  return [...all.filter((line) => /::error|Job failed|runtime-bench: |scripts\/act: /.test(line)), "…", ...all.slice(-lines)].join("\n");
}

export interface StandInRecord {
  action: string;
  workflow: string;
  job: string;
  run_id: string;
  inputs: Record<string, string>;
  [field: string]: unknown;
}

/** What each stand-in was given, in the order the steps ran. */
export function standInRecords(scratch: Scratch): StandInRecord[] {
  const file = join(scratch.state, "records.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as StandInRecord);
}

/** Paths under `path` on the remote's branch. */
export async function remoteFiles(scratch: Scratch, path: string, branch = DEFAULT_BRANCH): Promise<string[]> {
  const listed = await git(scratch.remote, "ls-tree", "-r", "--name-only", branch, "--", path);
  return listed === "" ? [] : listed.split("\n");
}

export async function remoteLog(scratch: Scratch, branch = DEFAULT_BRANCH): Promise<string[]> {
  return (await git(scratch.remote, "log", "--format=%s", branch)).split("\n");
}

export interface RegistrySnapshot {
  /** For RUNTIME_BENCH_REGISTRY. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The registry's metadata of each runtime's package for this machine, recorded now and cut to the versions
 * given, served from 127.0.0.1: the release watch and the setup stand-ins see only these releases
 * (their tarballs still come from the registry, or the runtime cache).
 */
export async function registrySnapshot(versions: Readonly<Record<RuntimeName, readonly string[]>>): Promise<RegistrySnapshot> {
  const base = await registryUrl();
  const documents = new Map<string, string>();
  for (const [runtime, kept] of Object.entries(versions) as [RuntimeName, readonly string[]][]) {
    const name = RUNTIMES[runtime].packageName(machineArch());
    const response = await fetchFromRegistry(base + name.replace("/", "%2f"), "application/json");
    const full = (await response.json()) as { versions: Record<string, unknown>; time: Record<string, string> };
    for (const version of kept) assert.ok(full.versions[version], `${name}@${version} is published`);
    const pick = <T>(record: Record<string, T>) => Object.fromEntries(kept.map((version) => [version, record[version]!]));
    const newest = [...kept].sort((a, b) => Date.parse(full.time[a]!) - Date.parse(full.time[b]!)).pop()!;
    documents.set(`/${name.replace("/", "%2f")}`, JSON.stringify({ name, "dist-tags": { latest: newest }, versions: pick(full.versions), time: pick(full.time) }));
  }
  const server = createServer((request, response) => {
    const body = documents.get((request.url ?? "").replace(/%2F/g, "%2f"));
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    response.end(body ?? "{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
