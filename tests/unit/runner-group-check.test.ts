import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { runProcess, type BenchOutput } from "../../benchmarks/lib/cli.ts";

const CHECK = join(REPO_ROOT, "scripts/runner/check-runner-group.sh");
/** Responses in the shape GitHub's REST documentation gives for these two endpoints. */
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(REPO_ROOT, "tests/fixtures/runner-group", name), "utf8")) as Record<string, unknown>;

interface Group {
  id: number;
  name: string;
  visibility: string;
  restricted_to_workflows: boolean;
  selected_workflows: string[];
  inherited: boolean;
}

/** Runs the check against a fake API answering with `groups` and `repositories`, and the token it must send. */
async function check(edit: (groups: Group[], repositories: { full_name: string }[]) => void = () => {}): Promise<BenchOutput> {
  const groups = fixture("runner-groups.json");
  const repositories = fixture("repositories.json");
  edit(groups.runner_groups as Group[], repositories.repositories as { full_name: string }[]);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const body = request.headers.authorization !== "Bearer test-token" ? undefined : path === "/orgs/bench-org/actions/runner-groups" ? groups : path === "/orgs/bench-org/actions/runner-groups/7/repositories" ? repositories : undefined;
    response.statusCode = body ? 200 : 404;
    response.end(JSON.stringify(body ?? { message: "Not Found" }));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", GITHUB_TOKEN: "test-token", GITHUB_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  try {
    return await runProcess("bash", [CHECK, "bench-org", "benchmark-machines", "bench-org/runtime-bench"], { env });
  } finally {
    server.close();
  }
}

const group = (groups: Group[]) => groups.find((g) => g.name === "benchmark-machines")!;

describe("the runner-group check", () => {
  it("passes a group limited to this repository and to the hook's admitted workflows on the default branch, and prints its id", async () => {
    const { code, stdout, stderr } = await check();
    assert.equal(code, 0, stderr);
    const admitted = ["benchmark.yml", "canary.yml", "release-watch.yml"].map((file) => `bench-org/runtime-bench/.github/workflows/${file}@refs/heads/main`);
    assert.equal(stdout, `runner group 'benchmark-machines' (id 7): only bench-org/runtime-bench, only ${admitted.join(" ")}\n`);
  });

  it("holds the group to the hook's list: a group without canary.yml, which the hook admits, fails", async () => {
    const { code, stderr } = await check((groups) => {
      group(groups).selected_workflows = group(groups).selected_workflows.filter((workflow) => !workflow.includes("/canary.yml@"));
    });
    assert.equal(code, 1);
    assert.match(stderr, /- its selected workflows are \[[^\]]*\], not \[[^\]]*canary\.yml@refs\/heads\/main[^\]]*\]\n/);
  });

  it("fails loudly, naming each missing setting", async () => {
    const { code, stderr } = await check((groups, repositories) => {
      Object.assign(group(groups), { restricted_to_workflows: false, inherited: true });
      group(groups).selected_workflows.push("bench-org/runtime-bench/.github/workflows/ci.yml@refs/heads/main");
      repositories.push({ full_name: "bench-org/other" });
    });
    assert.equal(code, 1);
    assert.match(stderr, /^check-runner-group: runner group 'benchmark-machines' \(id 7\) of bench-org does not hold the benchmark machines:\n/);
    assert.match(stderr, /- it is open to the repositories \[bench-org\/other,bench-org\/runtime-bench\], not to bench-org\/runtime-bench alone\n/);
    assert.match(stderr, /- it is not restricted to selected workflows\n/);
    assert.match(stderr, /- its selected workflows are \[[^\]]*ci\.yml@refs\/heads\/main[^\]]*\], not \[/);
    assert.match(stderr, /- it is inherited from the enterprise/);
  });

  it("fails on a group open to every repository, on a workflow from another branch, and on a missing group", async () => {
    const open = await check((groups) => Object.assign(group(groups), { visibility: "all" }));
    assert.match(open.stderr, /- its repository access is 'all', not 'selected'/);
    const branch = await check((groups) => (group(groups).selected_workflows[0] = "bench-org/runtime-bench/.github/workflows/benchmark.yml@refs/heads/feature"));
    assert.match(branch.stderr, /- its selected workflows are \[bench-org\/runtime-bench\/\.github\/workflows\/benchmark\.yml@refs\/heads\/feature,/);
    const missing = await check((groups) => (group(groups).name = "renamed"));
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, "check-runner-group: organisation bench-org has no runner group named 'benchmark-machines'\n");
  });
});
