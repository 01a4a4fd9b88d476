import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { reproductionArchive } from "../../src/findings/repro/archive.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

const opsPerS = { ops_per_s: metricOf([5000, 5100, 4900], "ops/s", "higher") };

describe("a finding's reproduction archive", () => {
  it("packs a startup cell's reproduction", async () => {
    const file = join(tempDir("archive-startup"), "startup-hello-repro.tar.gz");
    assert.deepEqual(await reproductionArchive([makeResult({ suite: "startup", scenario: "hello" })], file), { written: true });
    assert.ok(existsSync(file));
  });

  it("leaves out a cell that needs PostgreSQL instead of failing the site", async () => {
    const file = join(tempDir("archive-pg"), "database-pg-repro.tar.gz");
    const doc = makeResult({ suite: "database", scenario: "update-tx", app: "pg", params: { engine: "postgres", concurrency: 1 }, metrics: opsPerS });
    assert.deepEqual(await reproductionArchive([doc], file), { written: false, why: "database/update-tx on pg needs a PostgreSQL server, which a standalone reproduction does not start (its SQLite apps have one)" });
    assert.ok(!existsSync(file));
  });

  it("leaves out a cell measured at another version of its scenario, and says which", async () => {
    const file = join(tempDir("archive-version"), "startup-hello-repro.tar.gz");
    const doc = makeResult({ suite: "startup", scenario: "hello", scenario_version: 99 });
    assert.deepEqual(await reproductionArchive([doc], file), { written: false, why: "startup/hello is at version 1 here, the results measured version 99" });
    assert.ok(!existsSync(file));
  });
});
