import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT, cacheDir } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

/** scripts/test installs actionlint into the tools cache and puts it on PATH; a bare test run finds it there too. */
function actionlint(): string {
  const onPath = spawnSync("sh", ["-c", "command -v actionlint"], { encoding: "utf8" }).stdout.trim();
  const cached = join(cacheDir(), "tools", "bin", "actionlint");
  const found = onPath || (existsSync(cached) ? cached : "");
  assert.ok(found, "actionlint is not installed: scripts/test installs it (scripts/lib/common.sh ensure_actionlint)");
  return found;
}

describe("actionlint", () => {
  it("finds nothing wrong in any workflow, with the repository's .github/actionlint.yaml", () => {
    const result = spawnSync(actionlint(), ["-no-color"], { cwd: REPO_ROOT, encoding: "utf8" });
    assert.equal(result.stdout + result.stderr, "");
    assert.equal(result.status, 0);
  });

  it("does lint: an unknown job key and a bad expression are reported", () => {
    const repo = tempDir("actionlint");
    execFileSync("git", ["init", "--quiet", repo]);
    mkdirSync(join(repo, ".github", "workflows"), { recursive: true });
    const broken = ["on: push", "jobs:", "  job:", "    runs-on: ubuntu-latest", "    stepz: []", "    env:", "      X: ${{ github.nonexistent( }}", ""].join("\n");
    writeFileSync(join(repo, ".github", "workflows", "broken.yml"), broken);
    const result = spawnSync(actionlint(), ["-no-color"], { cwd: repo, encoding: "utf8" });
    assert.equal(result.status, 1);
    assert.match(result.stdout, /unexpected key "stepz"/);
  });
});
