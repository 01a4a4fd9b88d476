/**
 * A session's resources start on first use and never again once the session closed: an interrupt
 * closes a suite's session while a check may still be under way, and that check must not start a
 * server, or write data, inside the scratch folder the interrupt is removing.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { OnDemand } from "../../src/core/on-demand.ts";
import { closeEngines, databaseOf, noEngines } from "../../src/suites/database/engines.ts";
import { Workspace } from "../../src/suites/fileio/workspace.ts";
import { ownTempDir } from "../helpers/temp.ts";

const SHAPE = { files: 4, file_bytes: 16, large_bytes: 4096, tree_packages: 1 };

describe("a resource on demand", () => {
  it("starts once, again after it was forgotten, and never once closed", async () => {
    let starts = 0;
    const resource = new OnDemand("the test's server", async () => ++starts);
    assert.equal(resource.started(), null, "nothing started before the first use");
    assert.equal(await resource.get(), 1);
    assert.equal(await resource.get(), 1, "the second use shares the first start");
    assert.equal(await resource.forget(), 1, "forget hands back what was started, to stop");
    assert.equal(await resource.get(), 2, "started anew after forget");
    assert.equal(await resource.close(), 2, "close hands back what was started, to stop");
    await assert.rejects(resource.get(), /the test's server: the session is closed/);
    assert.equal(starts, 2);
    assert.equal(resource.close(), null, "closing again has nothing left to stop");
  });
});

describe("sessions closed by an interrupt", () => {
  it("the database suite starts no database after its engines closed", async () => {
    const workDir = ownTempDir("on-demand-db-");
    const engines = noEngines({ profile: "quick", workDir, log: () => {}, options: { apps: [], engines: [], postgresUrl: null } }, { separated: false, reason: "a test" });
    await closeEngines(engines);
    await assert.rejects(databaseOf(engines, "postgres"), /PostgreSQL: the session is closed/);
    await assert.rejects(databaseOf(engines, "sqlite"), /SQLite database: the session is closed/);
    assert.equal(engines.postgresStarts, 0, "no PostgreSQL was started");
    assert.equal(existsSync(join(workDir, "sqlite")), false, "no SQLite folder was made");
  });

  it("the fileio workspace generates nothing once closed, and its close waits for data being generated", async () => {
    const root = ownTempDir("on-demand-fileio-");
    const workspace = new Workspace(root, () => {});
    const generating = workspace.prepare("read-large a", "read-large", SHAPE);
    await workspace.close();
    const data = await generating;
    assert.equal(existsSync(data.dir), false, "the data generated before the close went with the root");
    assert.equal(existsSync(root), false);
    await assert.rejects(workspace.prepare("read-large b", "read-large", SHAPE), /fileio: the workspace is closed/);
    assert.equal(existsSync(root), false, "nothing made again below the removed root");
  });
});
