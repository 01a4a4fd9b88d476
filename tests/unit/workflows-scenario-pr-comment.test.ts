import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: { script?: string };
}
const steps = (file: string, job: string): Step[] =>
  (parse(readFileSync(join(REPO_ROOT, ".github/workflows", file), "utf8")) as { jobs: Record<string, { steps: Step[] }> }).jobs[job]!.steps;

/** The github-script body of scenario-pr-comment.yml, run here against a fake GitHub API. */
const script = steps("scenario-pr-comment.yml", "comment").find((s) => s.uses?.startsWith("actions/github-script@"))!.with!.script!;
/** scenario-pr.yml's Report step, which writes the report from the pull request's run. */
const reportStep = steps("scenario-pr.yml", "check").find((s) => s.name === "Report")!.run!;

interface Comment {
  id: number;
  body: string;
  user: { login: string; type: string };
}

const HEAD = "b".repeat(40);
const MARKER = "<!-- runtime-bench:scenario-pr -->";
const RUN_URL = "https://github.invalid/o/runtime-bench/actions/runs/9";
const BOT = { login: "github-actions[bot]", type: "Bot" };

/** Runs the Report step as the scenario-pr job does, and returns the report directory. */
function producedReport(prNumber: string, outcome: string, selection: string | undefined, table: string | undefined): string {
  const temp = tempDir("pr-run");
  if (selection !== undefined) writeFileSync(join(temp, "selection"), selection);
  if (table !== undefined) writeFileSync(join(temp, "table.txt"), table);
  const env = { PATH: process.env.PATH, RUNNER_TEMP: temp, GITHUB_STEP_SUMMARY: join(temp, "summary.md"), PR_NUMBER: prNumber, OUTCOME: outcome };
  const result = spawnSync("bash", ["-e", "-c", reportStep], { env, encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return join(temp, "report");
}

/** A report as a pull request's code could have written it instead. */
function forgedReport(report: unknown): string {
  const dir = join(tempDir("pr-forged"), "report");
  mkdirSync(dir);
  writeFileSync(join(dir, "report.json"), JSON.stringify(report));
  return dir;
}

async function comment(reportDir: string, headOfPr: string, existing: Comment[]) {
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
  const saved = { REPORT_DIR: process.env.REPORT_DIR, HEAD_SHA: process.env.HEAD_SHA, RUN_URL: process.env.RUN_URL };
  Object.assign(process.env, { REPORT_DIR: reportDir, HEAD_SHA: HEAD, RUN_URL });
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

const SELECTION = "--scenario\nhttp/json\n--scenario\nstartup/hello\n";
const TABLE = "scenario       runtime  wall_ms\nstartup/hello  node     41.2\n";
const SCENARIOS_LINE =
  "Changed scenarios (quick profile, on a GitHub-hosted runner: these figures only show that the scenarios work): `http/json`, `startup/hello`";

describe("the scenario pull-request comment", () => {
  it("is built from the report's checked fields, the table in a code block; comments once, then updates the bot's own comment", async () => {
    const report = producedReport("12", "success", SELECTION, TABLE);
    const expected = `${MARKER}\n### Scenario check: passed\n${SCENARIOS_LINE}\n\`\`\`text\n${TABLE}\`\`\``;
    assert.deepEqual((await comment(report, HEAD, [])).calls, [`create #12: ${expected}`]);
    const existing = [
      { id: 1, body: `${MARKER}\nquoted by a person`, user: { login: "mallory", type: "User" } },
      { id: 2, body: `${MARKER}\nposted by another bot`, user: { login: "mallory-bot[bot]", type: "Bot" } },
      { id: 3, body: `${MARKER}\nold report`, user: BOT },
    ];
    assert.deepEqual((await comment(report, HEAD, existing)).calls, [`update 3: ${expected}`]);
  });

  it("says so when no scenario was selected, or the run left no table", async () => {
    const none = await comment(producedReport("12", "", undefined, undefined), HEAD, []);
    assert.deepEqual(none.calls, [`create #12: ${MARKER}\n### Scenario check: not run\nNo scenario left to run: the change touches no existing scenario.`]);
    const broken = await comment(producedReport("12", "failure", SELECTION, undefined), HEAD, []);
    assert.deepEqual(broken.calls, [`create #12: ${MARKER}\n### Scenario check: failed\n${SCENARIOS_LINE}\nNo results table: see [the run](${RUN_URL}).`]);
  });

  it("keeps a hostile table inside its code block: longer fence, no mention, no control or direction characters", async () => {
    const hostile = "```\n</details> @octocat please merge\n````\n![x](https://tracker.invalid/p.png)\u202e\u0007 @org/team\n";
    const { calls } = await comment(producedReport("12", "failure", SELECTION, hostile), HEAD, []);
    const body = calls[0]!.replace(/^create #12: /, "");
    const block = body.slice(body.indexOf("`````text\n"));
    assert.equal(block, "`````text\n```\n</details> @\u2060octocat please merge\n````\n![x](https://tracker.invalid/p.png) @\u2060org/team\n`````");
    assert.doesNotMatch(body, /@(?!\u2060)/);
    assert.ok(body.startsWith(`${MARKER}\n### Scenario check: failed\n${SCENARIOS_LINE}\n`));
  });

  it("refuses a report whose fields are not what they may be, before any comment", async () => {
    const valid = { pr_number: 12, outcome: "success", scenarios: ["http/json"], table: "t" };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ pr_number: "12; rm -rf /" }, /pr_number is not a pull request number/],
      [{ pr_number: -3 }, /pr_number is not a pull request number/],
      [{ pr_number: 1.5 }, /pr_number is not a pull request number/],
      [{ outcome: "**passed** @octocat" }, /outcome is not a step outcome/],
      [{ outcome: "toString" }, /outcome is not a step outcome/],
      [{ scenarios: ["http/json) [click](https://evil.invalid"] }, /scenarios are not scenario names/],
      [{ scenarios: ["`http`/x"] }, /scenarios are not scenario names/],
      [{ scenarios: "http/json" }, /scenarios are not scenario names/],
      [{ table: { text: "x" } }, /table is not text/],
    ];
    for (const [change, error] of cases) await assert.rejects(comment(forgedReport({ ...valid, ...change }), HEAD, []), error);
  });

  it("stays silent when the pull request has moved on from the checked commit", async () => {
    const { calls, notices } = await comment(producedReport("12", "success", SELECTION, TABLE), "c".repeat(40), []);
    assert.deepEqual(calls, []);
    assert.match(notices.join(), /#12 no longer points at b{40}/);
  });
});
