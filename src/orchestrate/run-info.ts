import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { UserError } from "../core/errors.ts";
import { REPO_ROOT } from "../core/paths.ts";
import { runCommand } from "../process/children.ts";
import type { Profile, RunInfo, RunnerKind } from "../results/types.ts";

const KINDS: readonly RunnerKind[] = ["local", "hosted", "dedicated", "reference"];

/** Which machine a run's results name, and what kind it is. */
export type RunnerIdentity = Pick<RunInfo, "runner" | "runner_kind">;

/**
 * Who is running: benchmark machines set RUNTIME_BENCH_RUNNER and RUNTIME_BENCH_RUNNER_KIND
 * (dedicated or hosted; `scripts/bench sweep` names its reference testbed itself); anything else is
 * a developer's machine, named `local-<host>`, so its figures can never pass for a benchmark runner's.
 */
export function runnerIdentity(env: NodeJS.ProcessEnv = process.env): RunnerIdentity {
  const kind = (env.RUNTIME_BENCH_RUNNER_KIND ?? "local") as RunnerKind;
  if (!KINDS.includes(kind)) throw new UserError(`RUNTIME_BENCH_RUNNER_KIND must be one of ${KINDS.join(", ")}, not '${kind}'`);
  const name = (env.RUNTIME_BENCH_RUNNER ?? hostname()).replace(/[^A-Za-z0-9._-]/g, "-");
  if (kind === "local") return { runner: name.startsWith("local-") ? name : `local-${name}`, runner_kind: kind };
  if (name.startsWith("local-")) throw new UserError(`runner name '${name}' is reserved for local runs`);
  return { runner: name, runner_kind: kind };
}

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** A checkout's HEAD and whether its tracked files differ from it; null outside a git checkout. */
export interface TreeState {
  readonly head: string;
  readonly dirty: boolean;
}

async function treeState(): Promise<TreeState | null> {
  const head = await runCommand("git", ["rev-parse", "HEAD"], { cwd: REPO_ROOT, timeoutMs: 10_000 });
  if (head.code !== 0) return null;
  const status = await runCommand("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: REPO_ROOT, timeoutMs: 10_000 });
  return { head: head.stdout.trim(), dirty: status.stdout.trim() !== "" };
}

/**
 * The commit a run records: the one whose code the process loaded (the tree at its first run, or
 * when a long command such as a sweep began), dirty when the tree differed from it then, or differs
 * at this run's start (a run reads scenarios and apps from the tree as it is), or HEAD has moved
 * since: a sweep goes on running the code it loaded, whatever is committed while it runs.
 */
export function recordedCommit(loaded: TreeState | null, now: TreeState | null): string {
  if (loaded === null || now === null) return "unknown";
  return loaded.head + (loaded.dirty || now.dirty || now.head !== loaded.head ? "-dirty" : "");
}

let loadedTree: Promise<TreeState | null> | undefined;

/** Notes the tree as the process loaded its code; a long command calls it before its first run. */
export function noteLoadedTree(): void {
  loadedTree ??= treeState();
}

async function harnessCommit(): Promise<string> {
  // A process's first run, with no tree noted before it, finds the tree it loaded as it is now.
  if (loadedTree === undefined) {
    noteLoadedTree();
    const loaded = await loadedTree!;
    return recordedCommit(loaded, loaded);
  }
  return recordedCommit(await loadedTree, await treeState());
}

export async function newRunInfo(profile: Profile, sentinel: string | null, identity: RunnerIdentity = runnerIdentity()): Promise<Omit<RunInfo, "trials">> {
  const startedAt = new Date();
  return {
    id: newRunId(startedAt),
    started_at: startedAt.toISOString(),
    ...identity,
    profile,
    harness_commit: await harnessCommit(),
    sentinel,
  };
}
