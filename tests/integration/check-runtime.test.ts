import assert from "node:assert/strict";
import { appendFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { runCommand } from "../../src/process/children.ts";
import { provision } from "../../src/runtimes/provision.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

const CHECK = join(REPO_ROOT, "scripts/ci/check-runtime");

/** scripts/ci/check-runtime: what a setup action installed, held to the registry's package of that release. */
describe("a runtime a setup action installed, checked against the registry", () => {
  it("passes the registry's own bytes, and fails other bytes claiming the same release, with one line naming both", async () => {
    const { binary } = await provision("node@22.11.0");
    const copy = join(tempDir("setup-action"), "node");
    copyFileSync(binary, copy);
    const same = await runCommand(CHECK, [copy, "node", "22.11.0"], { timeoutMs: 120_000 });
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /^node 22\.11\.0: .* is the registry's binary \(sha256 [0-9a-f]{64}\)$/m);
    appendFileSync(copy, "\0");
    const other = await runCommand(CHECK, [copy, "node", "22.11.0"], { timeoutMs: 120_000 });
    assert.equal(other.code, 1);
    assert.match(other.stdout, /^::error::.*node \(sha256 [0-9a-f]{64}\) is not the registry's node 22\.11\.0 \(sha256 [0-9a-f]{64}\): the setup action installed other bytes$/m);
    // Without a version (a canary job's build), the version it reports is looked up: a release it is.
    const unversioned = await runCommand(CHECK, [copy, "node"], { timeoutMs: 120_000 });
    assert.equal(unversioned.code, 1, "a build reporting a published release is held to it");
  });
});
