import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as sharedData from "../../apps/database/shared/data.js";
import { canonicalRow, sequence, sha256, USERS, userRow, WORLD, worldRow } from "../../apps/database/shared/data.js";
import { UserError } from "../../src/core/errors.ts";
import { checkAgainst } from "../../src/core/schema.ts";
import { suiteSchemas } from "../../src/scenarios/manifest.ts";
import { expectedRun } from "../../src/suites/database/expected.ts";
import { levelsOf, poolSizeOf, type DatabaseConfig, type DatabaseSubject } from "../../src/suites/database/manifest.ts";
import { checkTable, firstDifference, initialWorld, loadScript } from "../../src/tools/database-data.ts";
import { parsePostgresUrl, postgresBinDir, redactUrl, withDatabase } from "../../src/tools/postgres.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

test("the seeded sequence repeats itself and stays within the tables", () => {
  const a = sequence();
  const b = sequence();
  const drawn = Array.from({ length: 5000 }, () => [a.id(), a.number()]);
  assert.deepEqual(drawn, Array.from({ length: 5000 }, () => [b.id(), b.number()]));
  assert.ok(drawn.every(([id, number]) => id! >= 1 && id! <= USERS && number! >= 1 && number! <= WORLD));
  assert.ok(new Set(drawn.map(([id]) => id)).size > 3000, "ids spread over the table");
});

test("a row depends on its id alone, and a timestamp reads the same as a Date or as text", () => {
  assert.deepEqual(userRow(10_500), userRow(10_500));
  assert.notEqual(userRow(1).email, userRow(2).email);
  const row = userRow(42);
  assert.match(row.created_at, /^2024-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(canonicalRow({ ...row, created_at: new Date(row.created_at) }), canonicalRow(row));
  assert.equal(canonicalRow({ id: 7, randomnumber: 12 }), "id=7|randomnumber=12");
  assert.equal(worldRow(3).id, 3);
});

test("sha256 is the standard digest on the harness's side too", async () => {
  assert.equal(await sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

test("update-tx's expected world applies every run's updates after its reads, last write winning", async () => {
  const ops = 3;
  const rows = 20;
  const expected = await expectedRun({ scenario: "update-tx", ops, rows, prepare: "once" }, 2);
  assert.equal(expected.lines.length, ops * rows, "the digest covers the verification run only");
  // Replay the draws: two runs of three transactions of 20 ids then 20 numbers.
  const draw = sequence();
  const world = initialWorld(sharedData);
  for (let tx = 0; tx < 2 * ops; tx++) {
    const ids = Array.from({ length: rows }, () => draw.id());
    const numbers = Array.from({ length: rows }, () => draw.number());
    ids.forEach((id, i) => (world[id - 1]!.randomnumber = numbers[i]!));
  }
  assert.deepEqual(expected.tables.world, world);
  const changed = world.filter((row, i) => row.randomnumber !== worldRow(i + 1).randomnumber).length;
  assert.ok(changed > 100 && changed <= 2 * ops * rows);
});

test("insert-batch expects the initial users plus each batch, and reads expect the seeded rows", async () => {
  const inserted = await expectedRun({ scenario: "insert-batch", ops: 2, rows: 1000, prepare: "once" }, 5);
  assert.equal(inserted.tables.users?.length, USERS + 2000);
  assert.deepEqual(inserted.tables.users?.at(-1), userRow(USERS + 2000));
  const page = await expectedRun({ scenario: "select-1000", ops: 2, rows: 1, prepare: "once" }, 1);
  assert.equal(page.lines.length, 2000);
  assert.equal(page.lines[999], canonicalRow(userRow(1000)));
  const point = await expectedRun({ scenario: "point-select", ops: 4, rows: 1, prepare: "once" }, 1);
  const draw = sequence();
  assert.deepEqual(point.lines, Array.from({ length: 4 }, () => canonicalRow(userRow(draw.id()))));
});

test("a table check names its count when that is wrong, else the first row that differs", async () => {
  const want = [userRow(1), userRow(2), userRow(3)];
  const same = await checkTable(sharedData, "users", want.map((row) => ({ ...row })), want);
  assert.equal(same.difference, null);
  assert.equal(same.sha256, same.expected_sha256);
  const changed = await checkTable(sharedData, "users", [userRow(1), { ...userRow(2), score: -1 }, userRow(3)], want);
  assert.match(changed.difference!, /^users row 2 is id=2\|.*\|score=-1, expected id=2\|/);
  const short = await checkTable(sharedData, "users", [userRow(1), userRow(2)], want);
  assert.equal(short.difference, "2 users rows, expected 3");
  assert.equal(short.rows, 2);
  assert.equal(short.expected_rows, 3);
  assert.equal(firstDifference("row", Array.from({ length: 999 }, String), Array.from({ length: 1000 }, String)), "999 rows, expected 1000");
});

test("the load scripts hold every row, quoted for each engine", () => {
  const sqlite = loadScript(sharedData, "sqlite");
  assert.equal(sqlite.match(/^INSERT INTO users /gm)?.length, USERS);
  assert.equal(sqlite.match(/^INSERT INTO world /gm)?.length, WORLD);
  const postgres = loadScript(sharedData, "postgres").split("\n");
  const copy = postgres.indexOf("COPY users (id, name, email, created_at, score) FROM stdin;");
  assert.equal(postgres[copy + 1], [1, userRow(1).name, userRow(1).email, userRow(1).created_at, userRow(1).score].join("\t"));
  assert.equal(postgres[copy + USERS + 1], "\\.");
});

test("PostgreSQL's binaries are found where a symlink on PATH points, or in Debian's layout", () => {
  const root = tempDir("pg-bin");
  const install = join(root, "lib/postgresql/16/bin");
  mkdirSync(install, { recursive: true });
  for (const name of ["initdb", "postgres", "psql"]) writeFileSync(join(install, name), "");
  const onPath = join(root, "bin");
  mkdirSync(onPath);
  symlinkSync(join(install, "initdb"), join(onPath, "initdb"));
  assert.equal(postgresBinDir({ PATH: `/nonexistent:${onPath}` }, join(root, "none")), install);
  assert.equal(postgresBinDir({ PATH: "/nonexistent" }, join(root, "lib/postgresql")), install);
  assert.equal(postgresBinDir({ PATH: "/nonexistent" }, join(root, "none")), null);
});

test("--postgres-url is checked for its form, and a password never reaches a message", () => {
  assert.equal(parsePostgresUrl("postgres://u@db.internal:5433/bench").port, "5433");
  assert.throws(() => parsePostgresUrl("http://u@host/db"), (e: Error) => e instanceof UserError && /scheme must be postgres:\/\/ or postgresql:\/\//.test(e.message));
  assert.throws(() => parsePostgresUrl("not a url"), UserError);
  assert.equal(redactUrl("postgres://u:secret@h:1/d"), "postgres://u:***@h:1/d");
  assert.throws(() => parsePostgresUrl("postgres://u:secret@/d"), (e: Error) => !e.message.includes("secret"));
  assert.equal(withDatabase("postgres://u@h:1/postgres?sslmode=disable", "runtime_bench"), "postgres://u@h:1/runtime_bench?sslmode=disable");
});

test("a scenario names the engines it is for and a pool smaller than its queries in flight", () => {
  const pipelined: DatabaseConfig = { workload: "point-select", concurrency: [10], connections: 1, engines: ["postgres"] };
  assert.deepEqual(levelsOf(pipelined, "postgres"), [10]);
  assert.deepEqual(levelsOf(pipelined, "sqlite"), [], "an engine the scenario is not for has no cell");
  assert.deepEqual(levelsOf({ workload: "point-select", concurrency: [1, 10] }, "sqlite"), [1], "SQLite answers one query at a time");
  const subject = (config: DatabaseConfig) => ({ scenario: { config }, params: { concurrency: 10 } }) as unknown as DatabaseSubject;
  assert.equal(poolSizeOf(subject(pipelined)), 1);
  assert.equal(poolSizeOf(subject({ workload: "point-select", concurrency: [10] })), 10, "one connection per query in flight by default");
});

test("a statement prepared per row is asked only of insert-batch on SQLite, where an app has that path", () => {
  const problems = (config: DatabaseConfig) => checkAgainst(suiteSchemas("database").config, config, "/database");
  assert.deepEqual(problems({ workload: "insert-batch", rows: 1000, prepare: "each", engines: ["sqlite"] }), []);
  assert.deepEqual(problems({ workload: "point-select", prepare: "once" }), [], "once is the default, asked of anything");
  assert.match(problems({ workload: "insert-batch", prepare: "each" }).join("\n"), /\/database\/: must have required property 'engines'/);
  assert.match(problems({ workload: "insert-batch", prepare: "each", engines: ["sqlite", "postgres"] }).join("\n"), /\/database\/engines\/1: must be equal to constant/);
  assert.match(problems({ workload: "update-tx", prepare: "each", engines: ["sqlite"] }).join("\n"), /\/database\/workload: must be equal to constant/);
});
