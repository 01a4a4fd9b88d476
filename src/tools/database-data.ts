import { copyFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalRow, sha256, USERS, userRow, WORLD, worldRow, type UserRow, type WorldRow } from "../../apps/database/shared/data.js";
import { psql, type PostgresServer } from "./postgres.ts";
import { sqlite3 } from "./sqlite3.ts";

/**
 * The benchmark database: the seeded `users` table (10,000 rows) and TechEmpower's `world` table,
 * made the same on SQLite and PostgreSQL from apps/database/shared/data.js, restored to exactly
 * that state before every trial, and read back with the harness's own client (sqlite3, psql) to
 * check what a driver wrote.
 */

export type Engine = "sqlite" | "postgres";
export type Table = "users" | "world";

/** Pragmas every SQLite connection runs first; journal_mode is also stored in the file. */
export const SQLITE_PRAGMAS: readonly string[] = ["journal_mode = WAL", "synchronous = NORMAL"];

const SCHEMA: Record<Engine, string> = {
  sqlite: [
    "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, created_at TEXT NOT NULL, score INTEGER NOT NULL);",
    "CREATE TABLE world (id INTEGER PRIMARY KEY, randomnumber INTEGER NOT NULL);",
  ].join("\n"),
  postgres: [
    "CREATE TABLE users (id integer PRIMARY KEY, name text NOT NULL, email text NOT NULL, created_at timestamptz NOT NULL, score integer NOT NULL);",
    "CREATE TABLE world (id integer PRIMARY KEY, randomnumber integer NOT NULL);",
  ].join("\n"),
};

/** The harness's reading of a table: the same text on both engines (timestamps as ISO 8601 UTC with milliseconds). */
const READ: Record<Engine, Record<Table, string>> = {
  sqlite: {
    users: "SELECT id, name, email, created_at, score FROM users ORDER BY id",
    world: "SELECT id, randomnumber FROM world ORDER BY id",
  },
  postgres: {
    users: `SELECT id, name, email, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), score FROM users ORDER BY id`,
    world: "SELECT id, randomnumber FROM world ORDER BY id",
  },
};

export function initialUsers(count = USERS): UserRow[] {
  return Array.from({ length: count }, (_, i) => userRow(i + 1));
}

export function initialWorld(): WorldRow[] {
  return Array.from({ length: WORLD }, (_, i) => worldRow(i + 1));
}

const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;
const copyField = (value: string | number) => String(value).replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);

/** The script that creates both tables and fills them: INSERTs in one transaction for sqlite3, COPY for psql. */
export function loadScript(engine: Engine): string {
  const users = initialUsers();
  const world = initialWorld();
  if (engine === "sqlite") {
    return [
      `PRAGMA ${SQLITE_PRAGMAS[0]};`,
      SCHEMA.sqlite,
      "BEGIN;",
      ...users.map((u) => `INSERT INTO users VALUES (${u.id}, ${sqlString(u.name)}, ${sqlString(u.email)}, ${sqlString(u.created_at)}, ${u.score});`),
      ...world.map((w) => `INSERT INTO world VALUES (${w.id}, ${w.randomnumber});`),
      "COMMIT;",
      "",
    ].join("\n");
  }
  return [
    SCHEMA.postgres,
    "COPY users (id, name, email, created_at, score) FROM stdin;",
    ...users.map((u) => [u.id, u.name, u.email, u.created_at, u.score].map(copyField).join("\t")),
    "\\.",
    "COPY world (id, randomnumber) FROM stdin;",
    ...world.map((w) => `${w.id}\t${w.randomnumber}`),
    "\\.",
    "ANALYZE;",
    "",
  ].join("\n");
}

function parseRows(table: Table, output: string): (UserRow | WorldRow)[] {
  return output
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const f = line.split("\t");
      return table === "users"
        ? { id: Number(f[0]), name: f[1]!, email: f[2]!, created_at: f[3]!, score: Number(f[4]) }
        : { id: Number(f[0]), randomnumber: Number(f[1]) };
    });
}

/** A copy of the benchmark database that apps connect to, in its initial state when made and after each restore. */
export interface BenchDatabase {
  readonly engine: Engine;
  /** What an app gets as `params.connection`. */
  readonly connection: Readonly<Record<string, unknown>>;
  /** Puts the database back to its initial state (no app may be connected). */
  restore(): Promise<void>;
  /** Every row of a table in id order, read with the harness's own client. */
  read(table: Table): Promise<(UserRow | WorldRow)[]>;
  /** Removes what it made. */
  drop(): Promise<void>;
}

/** SQLite: a template file made once with sqlite3; the working file is a byte copy of it for every trial. */
export async function createSqliteDatabase(dir: string): Promise<BenchDatabase> {
  const template = join(dir, "template.sqlite");
  const file = join(dir, "bench.sqlite");
  const script = join(dir, "load.sql");
  await writeFile(script, loadScript("sqlite"));
  await sqlite3(template, { script });
  await rm(script);
  const removeWorking = () => Promise.all(["", "-wal", "-shm", "-journal"].map((suffix) => rm(file + suffix, { force: true })));
  const database: BenchDatabase = {
    engine: "sqlite",
    connection: { file, pragmas: SQLITE_PRAGMAS },
    async restore() {
      await removeWorking();
      await copyFile(template, file);
    },
    async read(table) {
      return parseRows(table, await sqlite3(file, { command: READ.sqlite[table] }));
    },
    async drop() {
      await removeWorking();
      await rm(template, { force: true });
    },
  };
  await database.restore();
  return database;
}

/**
 * PostgreSQL: a template database loaded once; the working database is created from it for every
 * trial (CREATE DATABASE … TEMPLATE copies it block for block, statistics included).
 */
export async function createPostgresDatabase(server: PostgresServer, scratchDir: string, name = "runtime_bench"): Promise<BenchDatabase> {
  const template = `${name}_template`;
  const admin = server.url(server.maintenanceDatabase);
  await psql(admin, { command: `DROP DATABASE IF EXISTS ${template}` });
  await psql(admin, { command: `CREATE DATABASE ${template}` });
  const script = join(scratchDir, `${template}.sql`);
  await writeFile(script, loadScript("postgres"));
  await psql(server.url(template), { file: script });
  await rm(script);
  const drop = async (database: string) => psql(admin, { command: `DROP DATABASE IF EXISTS ${database} WITH (FORCE)` });
  const database: BenchDatabase = {
    engine: "postgres",
    connection: { url: server.url(name) },
    async restore() {
      await drop(name);
      await psql(admin, { command: `CREATE DATABASE ${name} TEMPLATE ${template}` });
    },
    async read(table) {
      return parseRows(table, await psql(server.url(name), { command: READ.postgres[table] }));
    },
    async drop() {
      await drop(name);
      await drop(template);
    },
  };
  await database.restore();
  return database;
}

/** What a table holds against what it should: row count, checksum, and the first difference. */
export interface TableCheck {
  readonly table: Table;
  readonly rows: number;
  readonly sha256: string;
  readonly expected_rows: number;
  readonly expected_sha256: string;
  /** The first row that differs, or null when the table is as expected. */
  readonly difference: string | null;
}

export async function checkTable(table: Table, actual: readonly object[], expected: readonly object[]): Promise<TableCheck> {
  const got = actual.map(canonicalRow);
  const want = expected.map(canonicalRow);
  const difference = firstDifference(`${table} row`, got, want);
  return {
    table,
    rows: got.length,
    sha256: await sha256(got.join("\n")),
    expected_rows: want.length,
    expected_sha256: await sha256(want.join("\n")),
    difference,
  };
}

/**
 * What differs between two canonical listings, or null when they are equal: their counts when those
 * differ ("999 users rows, expected 1000"), else the first line that differs, named with `what`
 * ("users row 12 is …").
 */
export function firstDifference(what: string, got: readonly string[], want: readonly string[]): string | null {
  if (got.length !== want.length) return `${got.length} ${what}s, expected ${want.length}`;
  for (let i = 0; i < got.length; i++) {
    if (got[i] !== want[i]) return `${what} ${i + 1} is ${got[i] ?? "missing"}, expected ${want[i] ?? "nothing"}`;
  }
  return null;
}
