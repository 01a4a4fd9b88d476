import { join } from "node:path";
import { errorMessage, UserError } from "../../core/errors.ts";
import { checkTable, createPostgresDatabase, type BenchDatabase } from "../../tools/database-data.ts";
import { psql, PostgresFailure, startPostgres, type PostgresServer } from "../../tools/postgres.ts";
import * as sharedData from "../../../apps/database/shared/data.js";
import type { UserRow } from "../../../apps/database/shared/data.js";
import { jsonDifference, verifyServer, type VerifyStep, type Verification } from "./verify.ts";

/**
 * The HTTP suite's PostgreSQL: the database suite's server lifecycle (src/tools/postgres.ts) and
 * benchmark database (src/tools/database-data.ts), started on first use by a scenario with a
 * `database` and put back to its initial state before every server an app starts.
 */

/** TechEmpower's fortune table, row for row (id 11 must come out escaped, id 12 is not ASCII). */
export const FORTUNES: readonly string[] = [
  "fortune: No such file or directory",
  "A computer scientist is someone who fixes things that aren't broken.",
  "After enough decimal places, nobody gives a damn.",
  "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
  "A computer program does what you tell it to do, not what you want it to do.",
  "Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen",
  "Any program that runs right is obsolete.",
  "A list is only as strong as its weakest link. \u2014 Donald Knuth",
  "Feature: A bug with seniority.",
  "Computers make very fast, very accurate mistakes.",
  '<script>alert("This should not be displayed in a browser alert box.");</script>',
  "\u30d5\u30ec\u30fc\u30e0\u30ef\u30fc\u30af\u306e\u30d9\u30f3\u30c1\u30de\u30fc\u30af",
];

/** After every restore: POST /users needs ids from a sequence (the table's ids 1-10,000 are given), and fortunes its table. */
const PER_RESTORE_SQL = [
  "CREATE SEQUENCE users_id_seq OWNED BY users.id",
  "SELECT setval('users_id_seq', (SELECT max(id) FROM users))",
  "ALTER TABLE users ALTER COLUMN id SET DEFAULT nextval('users_id_seq')",
  "CREATE TABLE fortune (id integer PRIMARY KEY, message text NOT NULL)",
  `INSERT INTO fortune VALUES ${FORTUNES.map((message, i) => `(${i + 1}, '${message.replaceAll("'", "''")}')`).join(", ")}`,
].join("; ");

export interface HttpDatabase {
  readonly server: PostgresServer;
  readonly database: BenchDatabase;
  /** The URL an app gets as DATABASE_URL. */
  readonly url: string;
  /** The initial state again, with the API's sequence (no app may be connected). */
  restore(): Promise<void>;
}

export async function startHttpDatabase(workDir: string, cpus: readonly number[] | undefined, log: (line: string) => void): Promise<HttpDatabase> {
  let server: PostgresServer;
  try {
    server = await startPostgres({ dir: join(workDir, "http-postgres"), cpus });
  } catch (error) {
    if (error instanceof PostgresFailure) throw new UserError(error.message);
    throw error;
  }
  log(`PostgreSQL ${server.version} started for the http suite`);
  try {
    const database = await createPostgresDatabase(sharedData, server, workDir, "http_bench");
    const url = String(database.connection.url);
    return {
      server,
      database,
      url,
      async restore() {
        await database.restore();
        await psql(url, { command: PER_RESTORE_SQL });
      },
    };
  } catch (error) {
    await server.stop();
    throw new UserError(`PostgreSQL: could not load the benchmark database for the http suite: ${errorMessage(error)}`);
  }
}

const PAGE_SIZE = 20;
const UPDATED = 42;
const DELETED = 43;
const NEW_USER = { name: "Grace Hopper", email: "grace@example.com", score: 1906 };
const CHANGED = { name: "Edsger Dijkstra", email: "ewd@example.com", score: 1930 };
const json = (step: Omit<VerifyStep["request"], "body"> & { body?: unknown }, status: number, body?: unknown): VerifyStep => ({
  request: step,
  expect: body === undefined ? { status } : { status, content_type: "application/json", json: body },
});

/**
 * api-db's verification against the database: the expected JSON of every endpoint comes from the
 * table as psql reads it before; POST's answer must be the row it stored; afterwards the whole table
 * must be the one before with exactly the created, updated and deleted rows changed.
 */
export async function verifyUsersApi(baseUrl: string, db: HttpDatabase): Promise<Verification> {
  const before = (await db.database.read("users")) as UserRow[];
  const byId = new Map(before.map((row) => [row.id, row]));
  const pages = Math.ceil(before.length / PAGE_SIZE);
  const page = (n: number) => before.slice((n - 1) * PAGE_SIZE, n * PAGE_SIZE);
  const updated = { ...byId.get(UPDATED)!, ...CHANGED };
  const steps: VerifyStep[] = [
    json({ method: "GET", path: "/users?page=1" }, 200, page(1)),
    json({ method: "GET", path: "/users?page=7" }, 200, page(7)),
    json({ method: "GET", path: `/users?page=${pages}` }, 200, page(pages)),
    json({ method: "GET", path: `/users?page=${pages + 1}` }, 200, []),
    json({ method: "GET", path: "/users?page=0" }, 400),
    json({ method: "GET", path: "/users?page=x" }, 400),
    json({ method: "GET", path: `/users/${UPDATED}` }, 200, byId.get(UPDATED)),
    json({ method: "GET", path: "/users/7" }, 200, byId.get(7)),
    json({ method: "GET", path: `/users/${before.length + 1000}` }, 404),
    json({ method: "PUT", path: `/users/${UPDATED}`, body: CHANGED }, 200, updated),
    json({ method: "GET", path: `/users/${UPDATED}` }, 200, updated),
    json({ method: "PUT", path: `/users/${before.length + 1000}`, body: CHANGED }, 404),
    json({ method: "PUT", path: "/users/7", body: { ...CHANGED, score: "1" } }, 400),
    json({ method: "POST", path: "/users", body: { ...NEW_USER, admin: true } }, 400),
    json({ method: "POST", path: "/users", body: { ...NEW_USER, email: "no address" } }, 400),
    json({ method: "POST", path: "/users", body: { name: "", email: "a@b", score: 1 } }, 400),
    { request: { method: "POST", path: "/users", raw_body: '{"name": "x",' }, expect: { status: 400 } },
    { request: { method: "DELETE", path: `/users/${DELETED}` }, expect: { status: 204, empty: true } },
    json({ method: "GET", path: `/users/${DELETED}` }, 404),
    { request: { method: "DELETE", path: `/users/${DELETED}` }, expect: { status: 204, empty: true } },
    json({ method: "GET", path: "/users/7" }, 200, byId.get(7)),
  ];
  const verification = await verifyServer(baseUrl, steps, ".");
  if (verification.status === "failed") return verification;

  const problem = await createdProblem(baseUrl, db, before);
  verification.requests += 2;
  if (problem) verification.failures.push(problem);
  else {
    const after = (await db.database.read("users")) as UserRow[];
    const created = after.find((row) => !byId.has(row.id));
    const expected = [...before.filter((row) => row.id !== DELETED).map((row) => (row.id === UPDATED ? updated : row)), ...(created ? [created] : [])];
    const table = await checkTable(sharedData, "users", after, expected);
    if (table.difference) verification.failures.push({ request: "users table after the requests", problem: table.difference });
  }
  if (verification.failures.length > 0) verification.status = "failed";
  return verification;
}

/** POST /users must answer 201 with the row it stored (read back with psql), and GET must return it too. */
async function createdProblem(baseUrl: string, db: HttpDatabase, before: readonly UserRow[]): Promise<{ request: string; problem: string } | null> {
  const request = "POST /users";
  const post = await fetch(new URL("/users", baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", "accept-encoding": "identity" },
    body: JSON.stringify(NEW_USER),
  });
  const text = await post.text();
  if (post.status !== 201) return { request, problem: `status ${post.status}, expected 201` };
  let answer: UserRow;
  try {
    answer = JSON.parse(text) as UserRow;
  } catch {
    return { request, problem: `body is not JSON: ${text.slice(0, 80)}` };
  }
  const expectedId = Math.max(...before.map((row) => row.id)) + 1;
  const stored = ((await db.database.read("users")) as UserRow[]).find((row) => row.id === expectedId);
  if (!stored) return { request, problem: `no row ${expectedId} in the table after it` };
  const difference = jsonDifference({ ...stored, ...NEW_USER }, answer) ?? jsonDifference(stored, answer);
  if (difference) return { request, problem: `JSON body differs from the stored row at ${difference}` };
  const get = await fetch(new URL(`/users/${expectedId}`, baseUrl), { headers: { "accept-encoding": "identity" } });
  const got = get.status === 200 ? jsonDifference(stored, await get.json()) : `status ${get.status}, expected 200`;
  return got ? { request: `GET /users/${expectedId}`, problem: got } : null;
}
