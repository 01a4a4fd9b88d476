import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { listResultFiles, readResultFile, resultPath, writeResult } from "../../src/results/store.ts";
import { runProcess, tempDir, type BenchOutput } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

const COMMIT_RESULTS = join(REPO_ROOT, "scripts/ci/commit-results");
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "collect test",
  GIT_AUTHOR_EMAIL: "collect@test.invalid",
  GIT_COMMITTER_NAME: "collect test",
  GIT_COMMITTER_EMAIL: "collect@test.invalid",
};

/** The machines the fixtures' results claim, with the fingerprint makeResult gives them. */
const RUNNERS = join(REPO_ROOT, "tests/fixtures/bench-runners.json");

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<BenchOutput> {
  if (command === COMMIT_RESULTS) args = ["--runners", RUNNERS, ...args];
  return runProcess(command, args, { env: { ...process.env, ...GIT_IDENTITY, COMMIT_RESULTS_BACKOFF_SECONDS: "0", ...env } });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_IDENTITY }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A bare "GitHub" repository whose main holds a README, and two clones of it, as two collect jobs have. */
function repositories(): { remote: string; first: string; second: string } {
  const root = tempDir("race");
  const remote = join(root, "remote.git");
  git(root, "init", "--quiet", "--bare", "--initial-branch=main", remote);
  const seed = join(root, "seed");
  git(root, "clone", "--quiet", remote, seed);
  writeFileSync(join(seed, "README.md"), "results\n");
  git(seed, "add", "README.md");
  git(seed, "commit", "--quiet", "-m", "start");
  git(seed, "push", "--quiet", "origin", "HEAD:refs/heads/main");
  const first = join(root, "first");
  const second = join(root, "second");
  git(root, "clone", "--quiet", remote, first);
  git(root, "clone", "--quiet", remote, second);
  return { remote, first, second };
}

/** Three runs' results, each run one artifact: the x64 run, the arm64 run, and a later x64 run. */
async function artifacts(): Promise<{ root: string; sets: string[]; docs: ResultDocument[] }> {
  const root = tempDir("race-artifacts");
  const runs = [
    { run: { runner: "bench-x64-1", id: "20261101T000000Z-aaaaaa" } },
    { run: { runner: "bench-arm64-1", id: "20261101T000000Z-bbbbbb" }, environment: { arch: "arm64" as const } },
    { run: { runner: "bench-x64-1", id: "20261108T000000Z-cccccc", started_at: "2026-11-08T00:00:00.000Z" } },
  ];
  const sets: string[] = [];
  const docs: ResultDocument[] = [];
  for (const [index, base] of runs.entries()) {
    const set = join(root, `results-${index}`);
    for (const runtime of [{ name: "node" as const, version: "22.11.0" }, { name: "bun" as const, version: "1.2.0" }]) {
      const doc = makeResult({ ...base, runtime });
      await writeResult(set, doc);
      docs.push(doc);
    }
    sets.push(set);
  }
  return { root, sets, docs };
}

/** Every result file on the remote's main, by path, read through the store from a clone. */
function remoteResults(remote: string): Map<string, unknown> {
  const clone = join(tempDir("remote-clone"), "repo");
  git(REPO_ROOT, "clone", "--quiet", "--branch", "main", remote, clone);
  return new Map(listResultFiles([join(clone, "data")]).map((file) => [relative(clone, file), readResultFile(file) as unknown]));
}

function assertHoldsExactly(remote: string, docs: readonly ResultDocument[]): void {
  const held = remoteResults(remote);
  const expected = new Map(docs.map((doc) => [resultPath("data", doc), doc]));
  assert.deepEqual([...held.keys()].sort(), [...expected.keys()].sort(), "every result once, nothing else");
  for (const [file, doc] of expected) assert.deepEqual(held.get(file), doc, `${file} is the artifact's result`);
  const contents = [...held.values()].map((doc) => JSON.stringify(doc));
  assert.equal(new Set(contents).size, contents.length, "no result under two names");
}

function resultCommits(remote: string): string[] {
  return git(remote, "log", "--format=%s", "main").split("\n").filter((subject) => subject.startsWith("data:"));
}

describe("two collect jobs pushing the same artifacts", () => {
  it("when one's push is overtaken by the other: it starts again, adds only what is missing, loses nothing", async () => {
    const { remote, first, second } = repositories();
    const { root, sets, docs } = await artifacts();
    // The first collect's pre-push hook runs the whole second collect, so the second wins the
    // race in between the first's commit and its push, every time.
    const hooks = join(root, "hooks");
    mkdirSync(hooks);
    const secondLog = join(root, "second.log");
    writeFileSync(
      join(hooks, "pre-push"),
      [
        "#!/bin/sh",
        'unset $(git rev-parse --local-env-vars)',
        `[ -e "${root}/raced" ] && exit 0`,
        `touch "${root}/raced"`,
        `GITHUB_OUTPUT= "${COMMIT_RESULTS}" --runners "${RUNNERS}" --repo "${second}" "${sets[1]}" "${sets[2]}" >"${secondLog}" 2>&1; echo "exit $?" >>"${secondLog}"`,
        "",
      ].join("\n"),
    );
    chmodSync(join(hooks, "pre-push"), 0o755);
    git(first, "config", "core.hooksPath", hooks);
    const outputs = join(root, "github-output");
    const firstRun = await run(COMMIT_RESULTS, ["--repo", first, sets[0]!, sets[1]!], { GITHUB_OUTPUT: outputs });

    assert.equal(firstRun.code, 0, firstRun.stderr);
    assert.match(readFileSync(secondLog, "utf8"), /pushed 4 results to origin\/main in attempt 1\nexit 0\n$/);
    assert.match(firstRun.stderr, /push rejected \(another collect got there first\)/);
    assert.match(firstRun.stderr, /pushed 2 results to origin\/main in attempt 2/);
    assertHoldsExactly(remote, docs);
    assert.deepEqual(resultCommits(remote), ["data: 2 results from bench-x64-1", "data: 4 results from bench-arm64-1,bench-x64-1"]);
    assert.equal(readFileSync(outputs, "utf8"), `pushed=true\ncommit=${git(remote, "rev-parse", "main")}\n`);
  });

  it("when both run at once with the same artifacts: one commit, every result once", async () => {
    const { remote, first, second } = repositories();
    const { sets, docs } = await artifacts();
    // Two workflow runs: their commits differ, so the later push is really refused, not a no-op.
    const [a, b] = await Promise.all([
      run(COMMIT_RESULTS, ["--repo", first, ...sets], { GITHUB_RUN_ID: "101" }),
      run(COMMIT_RESULTS, ["--repo", second, ...sets], { GITHUB_RUN_ID: "102" }),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assertHoldsExactly(remote, docs);
    const commits = resultCommits(remote);
    assert.equal(commits.length, 1, commits.join("\n"));
    assert.match(commits[0]!, /^data: 6 results from bench-arm64-1,bench-x64-1 \(workflow run 10[12]\)$/);
    assert.match(a.stderr + b.stderr, /nothing new to commit: every result is already on origin\/main/);
  });

  it("commits nothing for artifacts without results; refuses a dirty checkout and artifacts with a problem", async () => {
    const { remote, first, second } = repositories();
    const { sets } = await artifacts();
    const empty = await run(COMMIT_RESULTS, ["--repo", second, tempDir("no-results")]);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stderr, /nothing new to commit/);
    writeFileSync(join(first, "README.md"), "edited\n");
    const dirty = await run(COMMIT_RESULTS, ["--repo", first, sets[0]!]);
    assert.equal(dirty.code, 2);
    assert.match(dirty.stderr, /has uncommitted changes/);
    const bad = join(sets[0]!, "bench-x64-1", "20261101T000000Z-aaaaaa", "startup", "hello", "node-22.11.0.json");
    writeFileSync(bad, "{}");
    const invalid = await run(COMMIT_RESULTS, ["--repo", second, sets[0]!]);
    assert.notEqual(invalid.code, 0);
    assert.match(invalid.stderr, /nothing collected/);
    assert.deepEqual(resultCommits(remote), []);
    assert.equal(existsSync(join(second, "data")), false);
  });
});

/** An executable shell script at `path` whose body counts its runs in `path.count`, then does `body`. */
function countingScript(path: string, body: string): string {
  writeFileSync(path, ["#!/bin/sh", `echo run >>"${path}.count"`, body, ""].join("\n"));
  chmodSync(path, 0o755);
  return path;
}

const runsOf = (script: string): number => (existsSync(`${script}.count`) ? readFileSync(`${script}.count`, "utf8").split("\n").filter(Boolean).length : 0);

describe("commit-results when the remote refuses for another reason than a race", () => {
  it("a push refused by the remote (a pre-receive hook, as branch protection does) fails at once with one line, no retry", async () => {
    const { remote, first } = repositories();
    const { sets } = await artifacts();
    const hook = countingScript(join(remote, "hooks", "pre-receive"), 'echo "GH006: Protected branch update failed for refs/heads/main." >&2\nexit 1');
    // A retry would first sleep 600 s: the test would time out instead of passing.
    const refused = await run(COMMIT_RESULTS, ["--repo", first, sets[0]!], { COMMIT_RESULTS_BACKOFF_SECONDS: "600" });
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(runsOf(hook), 1, "the remote saw exactly one push");
    const lines = refused.stderr.split("\n").filter((line) => line.startsWith("runtime-bench: "));
    assert.deepEqual(lines, [
      "runtime-bench: commit-results: origin refused the push to main, not because another collect got there first: [remote rejected] (pre-receive hook declined); nothing was pushed",
    ]);
    assert.doesNotMatch(refused.stderr, /another collect got there first\); starting again/);
    assert.deepEqual(resultCommits(remote), []);
  });

  it("a push rejected as not a fast-forward every time gives up after the attempts, saying so", async () => {
    const { remote, first, second } = repositories();
    const { sets } = await artifacts();
    // Every push from `first` is overtaken: its pre-push hook pushes a new commit from `second` first.
    const hooks = join(tempDir("overtaken"), "hooks");
    mkdirSync(hooks);
    countingScript(join(hooks, "pre-push"), `unset $(git rev-parse --local-env-vars)\ncd "${second}" && git pull --quiet origin main && git commit --quiet --allow-empty -m other && git push --quiet origin HEAD:refs/heads/main`);
    git(first, "config", "core.hooksPath", hooks);
    const lost = await run(COMMIT_RESULTS, ["--repo", first, sets[0]!], { COMMIT_RESULTS_ATTEMPTS: "3" });
    assert.equal(lost.code, 1, lost.stderr);
    assert.equal(runsOf(join(hooks, "pre-push")), 3);
    assert.equal(lost.stderr.match(/starting again from the new tip/g)?.length, 2);
    assert.match(lost.stderr, /another push got there first 3 times; nothing was lost/);
    assert.deepEqual(resultCommits(remote), []);
  });

  it("a failed fetch is retried, and gives up after the attempts", async () => {
    const { remote, first } = repositories();
    const { sets, docs } = await artifacts();
    const root = tempDir("flaky-fetch");
    // git runs the upload-pack named by remote.origin.uploadpack for every fetch from `remote`.
    const flaky = countingScript(join(root, "flaky-upload-pack"), `[ "$(wc -l <"$0.count")" -gt 1 ] || { echo "connection reset" >&2; exit 1; }\nexec git-upload-pack "$@"`);
    git(first, "config", "remote.origin.uploadpack", flaky);
    const retried = await run(COMMIT_RESULTS, ["--repo", first, sets[0]!]);
    assert.equal(retried.code, 0, retried.stderr);
    assert.match(retried.stderr, /fetching origin\/main failed \(attempt 1\); trying again/);
    assert.match(retried.stderr, /pushed 2 results to origin\/main in attempt 1/);
    assert.equal(runsOf(flaky), 2);
    assertHoldsExactly(remote, docs.slice(0, 2));

    const down = countingScript(join(root, "down-upload-pack"), 'echo "connection reset" >&2\nexit 1');
    git(first, "config", "remote.origin.uploadpack", down);
    const failed = await run(COMMIT_RESULTS, ["--repo", first, sets[1]!], { COMMIT_RESULTS_ATTEMPTS: "2" });
    assert.equal(failed.code, 1, failed.stderr);
    assert.equal(runsOf(down), 2);
    assert.match(failed.stderr, /runtime-bench: commit-results: fetching origin\/main failed 2 times; nothing was pushed\n$/);
  });
});
