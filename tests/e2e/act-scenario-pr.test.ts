import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readResults } from "../../src/results/store.ts";
import { act, commitAndPush, DEFAULT_BRANCH, registrySnapshot, removeScratch, scratchRepository, standInRecords, tailOf, type RegistrySnapshot, type Scratch } from "../helpers/act.ts";

/*
 * A pull request that adds a scenario, end to end under act: scenario-pr validates it and measures
 * it on a hosted label (never a benchmark machine's), and scenario-pr-comment, started by that run's
 * completion, renders the comment from the run's report artifact. The GitHub API answers from
 * files: the pull request still points at the checked commit, and someone else's comment quotes
 * the marker (so a new comment is made, not theirs edited).
 */
const PR = 7;
const SCENARIO = "startup/pr-added";

describe("a scenario pull request under act", { timeout: 600_000 }, () => {
  let registry: RegistrySnapshot;
  let scratch: Scratch;
  before(async () => {
    registry = await registrySnapshot({ node: ["22.11.0"], deno: ["2.1.4"], bun: ["1.2.0"] });
    scratch = await scratchRepository("scenario-pr", () => {});
  });
  after(async () => {
    await registry.close();
    removeScratch(scratch);
  });

  it("validates and measures the new scenario on a hosted label, then comments the sanitised report", async () => {
    const base = readFileSync(join(scratch.dir, ".git/refs/heads", DEFAULT_BRANCH), "utf8").trim();
    const added = join(scratch.dir, "suites", SCENARIO);
    cpSync(join(scratch.dir, "suites/startup/hello"), added, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(added, "scenario.json"), "utf8")) as { description: string };
    writeFileSync(join(added, "scenario.json"), JSON.stringify({ ...manifest, description: "Cold start again, added by a pull request." }, null, 2));
    const head = await commitAndPush(scratch, "add a scenario", "add-scenario");

    const checked = await act(scratch, "scenario-pr.yml", "pull_request", {
      number: PR,
      pull_request: { number: PR, base: { sha: base, ref: DEFAULT_BRANCH }, head: { sha: head, ref: "add-scenario" } },
      repository: { default_branch: DEFAULT_BRANCH },
    }, { env: { RUNTIME_BENCH_REGISTRY: registry.url } });
    assert.equal(checked.code, 0, tailOf(checked));
    const uploads = standInRecords(scratch).filter((r) => r.action === "actions/upload-artifact");
    assert.deepEqual(uploads.map((r) => r.inputs.name), ["scenario-pr-report", "scenario-pr-results"]);
    const runId = uploads[0]!.run_id;
    const artifacts = join(scratch.state, "artifacts", runId);
    const report = JSON.parse(readFileSync(join(artifacts, "scenario-pr-report/report.json"), "utf8")) as { pr_number: number; outcome: string; scenarios: string[]; table: string };
    assert.deepEqual([report.pr_number, report.outcome, report.scenarios], [PR, "success", [SCENARIO]]);
    const results = readResults([join(artifacts, "scenario-pr-results")]).map((r) => r.doc);
    assert.deepEqual(results.map((r) => `${r.suite}/${r.scenario} ${r.runtime.name} ${r.run.runner} ${r.run.runner_kind} ${r.status}`).sort(), [
      `${SCENARIO} bun github-hosted hosted ok`,
      `${SCENARIO} deno github-hosted hosted ok`,
      `${SCENARIO} node github-hosted hosted ok`,
    ]);

    mkdirSync(join(scratch.state, "github-api"));
    writeFileSync(join(scratch.state, "github-api/pulls.get.json"), JSON.stringify({ number: PR, head: { sha: head } }));
    const quoted = { id: 5, user: { login: "someone" }, body: "<!-- runtime-bench:scenario-pr --> quoted" };
    writeFileSync(join(scratch.state, "github-api/issues.listComments.json"), JSON.stringify([quoted]));
    const commented = await act(scratch, "scenario-pr-comment.yml", "workflow_run", {
      workflow_run: { event: "pull_request", conclusion: "success", id: Number(runId), head_sha: head, html_url: `https://github.invalid/runs/${runId}` },
      repository: { default_branch: DEFAULT_BRANCH },
    });
    assert.equal(commented.code, 0, tailOf(commented));
    const download = standInRecords(scratch).find((r) => r.action === "actions/download-artifact")!;
    assert.deepEqual([download.inputs.name, download.inputs["run-id"]], ["scenario-pr-report", runId]);
    const script = standInRecords(scratch).find((r) => r.action === "actions/github-script")!;
    const calls = script.calls as { method: string; params: Record<string, unknown> }[];
    assert.deepEqual(calls.map((c) => c.method), ["pulls.get", "issues.listComments", "issues.createComment"]);
    const body = String(calls[2]!.params.body);
    assert.equal(calls[2]!.params.issue_number, PR);
    const [marker, heading, changed, ...block] = body.split("\n");
    assert.deepEqual([marker, heading], ["<!-- runtime-bench:scenario-pr -->", "### Scenario check: passed"]);
    assert.match(changed!, new RegExp(`\`${SCENARIO}\`$`));
    // The table is shown as text: in a fence, with every mention broken.
    assert.ok(report.table.includes("@"), "the table names runtimes as name@version");
    assert.equal(block.join("\n"), `\`\`\`text\n${report.table.replace(/@/g, "@\u2060").replace(/\n?$/, "\n")}\`\`\``);
  });
});
