// What the PostgreSQL apps serve, the same statements, validation, JSON and HTML on every app (an
// app only maps its framework and driver onto it): the REST API of StaticBlock's "JavaScript
// Runtime Performance 2026" showdown over the database suite's `users` table, and TechEmpower's
// fortunes.

export const PAGE_SIZE = 20;
export const POOL_SIZE = 10;
const COLUMNS = "id, name, email, created_at, score";

/** The statements, in the tagged form's order of values; `$n` placeholders for pg and the `unsafe` calls. */
export const STATEMENTS = {
  list: `SELECT ${COLUMNS} FROM users ORDER BY id LIMIT ${PAGE_SIZE} OFFSET $1`,
  get: `SELECT ${COLUMNS} FROM users WHERE id = $1`,
  // The harness gives `id` a sequence after every restore; milliseconds so every driver's Date holds the stored value.
  create: `INSERT INTO users (name, email, score, created_at) VALUES ($1, $2, $3, date_trunc('milliseconds', now())) RETURNING ${COLUMNS}`,
  update: `UPDATE users SET name = $1, email = $2, score = $3 WHERE id = $4 RETURNING ${COLUMNS}`,
  remove: `DELETE FROM users WHERE id = $1`,
  fortunes: "SELECT id, message FROM fortune",
};

/** A row as the API sends it, whatever types the driver gave. */
export function userJson(row) {
  return { id: Number(row.id), name: row.name, email: row.email, created_at: new Date(row.created_at).toISOString(), score: Number(row.score) };
}

/** A positive whole number from a path or query parameter, else null. */
export function positiveInt(text) {
  return typeof text === "string" && /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : null;
}

const FIELDS = ["name", "email", "score"];

/** Why a request body is not a user, or null: exactly name (1-100 chars), email (with @, up to 200) and score (0..1,000,000). */
export function userProblem(body) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body must be a JSON object";
  const extra = Object.keys(body).filter((key) => !FIELDS.includes(key));
  if (extra.length > 0) return `unknown field ${extra[0]}`;
  if (typeof body.name !== "string" || body.name.length < 1 || body.name.length > 100) return "name must be a string of 1-100 characters";
  if (typeof body.email !== "string" || !/^[^@\s]+@[^@\s]+$/.test(body.email) || body.email.length > 200) return "email must be an address";
  if (!Number.isInteger(body.score) || body.score < 0 || body.score > 1_000_000) return "score must be a whole number 0-1000000";
  return null;
}

/**
 * The endpoints over a driver `db` with `query(statement, values) => rows` and `run(statement,
 * values)`; each returns `{ status, json }` (json undefined for an empty body).
 */
export function usersApi(db) {
  const notFound = { status: 404, json: { error: "not found" } };
  const invalid = (problem) => ({ status: 400, json: { error: problem } });
  return {
    async list(pageText) {
      const page = positiveInt(pageText);
      if (page === null) return invalid("page must be a whole number from 1");
      const rows = await db.query("list", [(page - 1) * PAGE_SIZE]);
      return { status: 200, json: rows.map(userJson) };
    },
    async get(idText) {
      const id = positiveInt(idText);
      const row = id === null ? undefined : (await db.query("get", [id]))[0];
      return row ? { status: 200, json: userJson(row) } : notFound;
    },
    async create(body) {
      const problem = userProblem(body);
      if (problem) return invalid(problem);
      const [row] = await db.query("create", [body.name, body.email, body.score]);
      return { status: 201, json: userJson(row) };
    },
    async update(idText, body) {
      const id = positiveInt(idText);
      if (id === null) return notFound;
      const problem = userProblem(body);
      if (problem) return invalid(problem);
      const row = (await db.query("update", [body.name, body.email, body.score, id]))[0];
      return row ? { status: 200, json: userJson(row) } : notFound;
    },
    // Deleting is idempotent: a repeated DELETE answers 204 too, so it can be put under load.
    async remove(idText) {
      const id = positiveInt(idText);
      if (id === null) return notFound;
      await db.query("remove", [id]);
      return { status: 204, json: undefined };
    },
  };
}

/** A `db` over postgres.js or Bun.sql: `unsafe` with parameters, prepared once per connection. */
export function taggedDb(sql) {
  return { query: async (name, values) => [...(await sql.unsafe(STATEMENTS[name], values, { prepare: true }))] };
}


const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** TechEmpower's fortunes: every row, one more added at request time, sorted by message, as an escaped HTML table. */
export async function fortunesHtml(db) {
  const rows = (await db.query("fortunes", [])).map((row) => ({ id: Number(row.id), message: row.message }));
  rows.push({ id: 0, message: "Additional fortune added at request time." });
  rows.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  const cells = rows.map((row) => `<tr><td>${row.id}</td><td>${escapeHtml(row.message)}</td></tr>`).join("");
  return `<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>${cells}</table></body></html>`;
}

export const HTML_TYPE = "text/html; charset=utf-8";
