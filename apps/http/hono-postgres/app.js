// Hono with postgres.js: StaticBlock's "JavaScript Runtime Performance 2026" API and
// fortunes over PostgreSQL; node.mjs, bun.js and deno.js only start it.
import { Hono } from "hono";
import postgres from "postgres";
import { fortunesHtml, HTML_TYPE, POOL_SIZE, taggedDb, usersApi } from "../shared/postgres-api.js";

export function createApp(url) {
  const db = taggedDb(postgres(url, { max: POOL_SIZE, prepare: true, onnotice: () => {} }));
  const api = usersApi(db);
  const app = new Hono();
  const body = (c) => c.req.json().catch(() => undefined);
  const send = (c, answer) => (answer.json === undefined ? c.body(null, answer.status) : c.json(answer.json, answer.status));
  app.get("/users", async (c) => send(c, await api.list(c.req.query("page"))));
  app.get("/users/:id", async (c) => send(c, await api.get(c.req.param("id"))));
  app.post("/users", async (c) => send(c, await api.create(await body(c))));
  app.put("/users/:id", async (c) => send(c, await api.update(c.req.param("id"), await body(c))));
  app.delete("/users/:id", async (c) => send(c, await api.remove(c.req.param("id"))));
  app.get("/fortunes", async (c) => c.body(await fortunesHtml(db), 200, { "content-type": HTML_TYPE }));
  app.notFound((c) => c.json({ error: "not found" }, 404));
  return app;
}
