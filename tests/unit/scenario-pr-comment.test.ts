import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

/** The github-script body of scenario-pr-comment.yml, run here against a fake GitHub API. */
const workflow = parse(readFileSync(join(REPO_ROOT, ".github/workflows/scenario-pr-comment.yml"), "utf8")) as {
  jobs: { comment: { steps: { uses?: string; with?: { script?: string } }[] } };
};
const script = workflow.jobs.comment.steps.find((s) => s.uses?.startsWith("actions/github-script@"))!.with!.script!;

interface Comment {
  id: number;
  body: string;
  user: { type: string };
}

const HEAD = "b".repeat(40);
const MARKER = "<!-- runtime-bench:scenario-pr -->";

async function comment(prNumber: string, headOfPr: string, existing: Comment[]) {
  const dir = tempDir("pr-report");
  writeFileSync(join(dir, "pr-number"), `${prNumber}\n`);
  writeFileSync(join(dir, "report.md"), "### Scenario check: success\n");
  const calls: string[] = [];
  const notices: string[] = [];
  const listComments = async () => existing;
  const github = {
    paginate: async (fn: unknown) => (fn === listComments ? existing : []),
    rest: {
      pulls: { get: async ({ pull_number }: { pull_number: number }) => ({ data: { number: pull_number, head: { sha: headOfPr } } }) },
      issues: {
        listComments,
        createComment: async ({ issue_number, body }: { issue_number: number; body: string }) => void calls.push(`create #${issue_number}: ${body}`),
        updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) => void calls.push(`update ${comment_id}: ${body}`),
      },
    },
  };
  const core = { notice: (text: string) => void notices.push(text) };
  const context = { repo: { owner: "o", repo: "runtime-bench" } };
  const saved = { REPORT_DIR: process.env.REPORT_DIR, HEAD_SHA: process.env.HEAD_SHA };
  Object.assign(process.env, { REPORT_DIR: dir, HEAD_SHA: HEAD });
  try {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
    await new AsyncFunction("require", "github", "context", "core", script)(createRequire(import.meta.url), github, context, core);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  return { calls, notices };
}

describe("the scenario pull-request commenter", () => {
  it("comments once, then updates its own comment", async () => {
    assert.deepEqual((await comment("12", HEAD, [])).calls, [`create #12: ${MARKER}\n### Scenario check: success\n`]);
    const existing = [
      { id: 1, body: `${MARKER}\nquoted by a person`, user: { type: "User" } },
      { id: 2, body: `${MARKER}\nold report`, user: { type: "Bot" } },
    ];
    assert.deepEqual((await comment("12", HEAD, existing)).calls, [`update 2: ${MARKER}\n### Scenario check: success\n`]);
  });

  it("stays silent when the pull request has moved on from the checked commit", async () => {
    const { calls, notices } = await comment("12", "c".repeat(40), []);
    assert.deepEqual(calls, []);
    assert.match(notices.join(), /#12 no longer points at b{40}/);
  });

  it("refuses a report whose pull-request number is not one", async () => {
    for (const bad of ["12; rm -rf /", "-3", ""]) await assert.rejects(comment(bad, HEAD, []), /pr-number is not a pull request number/);
  });
});
