// Elysia on Bun, its home runtime.
import { join } from "node:path";
import { Elysia } from "elysia";
import { HELLO, ItemStore, STATIC_CONTENT_TYPE, itemProblem, largeDocument, parseId, primeReport, staticFileName } from "../shared/workload.js";

const store = new ItemStore();
const staticDir = process.env.STATIC_DIR;
const notFound = (set) => {
  set.status = 404;
  return { error: "not found" };
};
const invalid = (set, error) => {
  set.status = 400;
  return { error };
};

new Elysia()
  .get("/plaintext", ({ set }) => {
    set.headers["content-type"] = "text/plain; charset=utf-8";
    return HELLO;
  })
  .get("/json", () => ({ message: HELLO }))
  .get("/json-large/:page", ({ params, set }) => {
    const page = parseId(params.page);
    return page === null ? notFound(set) : largeDocument(page);
  })
  .get("/compute/:n", ({ params, set }) => primeReport(params.n) ?? invalid(set, "n must be a whole number"))
  .get("/static/:name", async ({ params, set }) => {
    const name = staticFileName(params.name);
    const file = name === null || !staticDir ? null : Bun.file(join(staticDir, name));
    if (!file || !(await file.exists())) return notFound(set);
    return new Response(file, { headers: { "content-type": STATIC_CONTENT_TYPE } });
  })
  .get("/items", () => store.list())
  .post("/items", ({ body, set }) => {
    const problem = itemProblem(body);
    if (problem) return invalid(set, problem);
    set.status = 201;
    return store.create(body);
  })
  .get("/items/:id", ({ params, set }) => store.get(parseId(params.id)) ?? notFound(set))
  .put("/items/:id", ({ params, body, set }) => {
    const problem = itemProblem(body);
    if (problem) return invalid(set, problem);
    const id = parseId(params.id);
    return (id === null ? undefined : store.replace(id, body)) ?? notFound(set);
  })
  .delete("/items/:id", ({ params, set }) => {
    const id = parseId(params.id);
    if (id === null) return notFound(set);
    store.delete(id);
    set.status = 204;
    return null;
  })
  .onError(({ code, set }) => (code === "PARSE" ? invalid(set, "body is not valid JSON") : notFound(set)))
  .listen({ port: Number(process.env.PORT), hostname: process.env.HOST });
