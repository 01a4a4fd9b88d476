/**
 * An interrupt that comes before the run has set its own interrupt handler (while it asks tools'
 * versions, or makes its work folder) still leaves no work folder: CI once found one left. And the
 * save an interrupt starts waits for the children it killed (CI once found npm still writing).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runProcess } from "../../benchmarks/lib/cli.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { ownTempDir } from "../helpers/temp.ts";

describe("an interrupt's save and cleanup", () => {
  it("removes the folder a run makes after the interrupt, and says it was interrupted", async () => {
    const tmp = ownTempDir("early-interrupt");
    const run = await runProcess(process.execPath, ["--import", "tsx", join(REPO_ROOT, "tests/helpers/early-interrupted-run.ts")], { cwd: REPO_ROOT, env: { ...process.env, TMPDIR: tmp } });
    assert.match(run.stdout, /interrupted: true, results: 0/, run.stderr);
    assert.deepEqual(readdirSync(tmp).filter((name) => name.startsWith("runtime-bench-")), []);
  });

  it("calls a handler set after the interrupt, and exits once it has cleaned up", async () => {
    const folder = join(ownTempDir("late-handler"), "work");
    mkdirSync(folder);
    const run = await runProcess(process.execPath, ["--import", "tsx", join(REPO_ROOT, "tests/helpers/late-interrupt-handler.ts"), folder], { cwd: REPO_ROOT });
    assert.equal(run.code, 130, run.stderr);
    assert.equal(existsSync(folder), false, "the handler set after the interrupt removed its folder");
  });

  it("saves only once the children it killed are gone, so no folder is removed while one still writes in it", async () => {
    const run = await runProcess(process.execPath, ["--import", "tsx", join(REPO_ROOT, "tests/helpers/interrupt-during-child.ts")], { cwd: REPO_ROOT });
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stdout, /child group alive at the save: false/, run.stderr);
  });
});
