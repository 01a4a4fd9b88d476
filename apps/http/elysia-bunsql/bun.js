// Elysia with Bun.sql on Bun: the runtime-favourite pair of StaticBlock's
// "JavaScript Runtime Performance 2026" showdown (its Prisma replaced by Bun's own client).
import { Elysia } from "elysia";
import { fortunesHtml, HTML_TYPE, POOL_SIZE, taggedDb, usersApi } from "../shared/postgres-api.js";

const db = taggedDb(new Bun.SQL({ url: process.env.DATABASE_URL, max: POOL_SIZE, prepare: true }));
const api = usersApi(db);
// The body is read here, so a malformed one gets the API's own 400 like on every other app.
const body = (request) => request.json().catch(() => undefined);
const send = (set, answer) => {
  set.status = answer.status;
  return answer.json === undefined ? null : answer.json;
};
const raw = { parse: "none" };

new Elysia()
  .get("/users", async ({ query, set }) => send(set, await api.list(query.page)))
  .get("/users/:id", async ({ params, set }) => send(set, await api.get(params.id)))
  .post("/users", async ({ request, set }) => send(set, await api.create(await body(request))), raw)
  .put("/users/:id", async ({ params, request, set }) => send(set, await api.update(params.id, await body(request))), raw)
  .delete("/users/:id", async ({ params, set }) => send(set, await api.remove(params.id)))
  .get("/fortunes", async ({ set }) => {
    set.headers["content-type"] = HTML_TYPE;
    return fortunesHtml(db);
  })
  .onError(({ code, set }) => {
    if (code !== "NOT_FOUND") return;
    set.status = 404;
    return { error: "not found" };
  })
  .listen({ port: Number(process.env.PORT), hostname: process.env.HOST });
