// Every route on one Elysia app; bun.js and deno.js only add static files and start it.
import { Elysia } from "elysia";
import { HELLO, ItemStore, itemProblem, largeDocument, parseId, primeReport, staticFileName } from "../shared/workload.js";

const notFound = (set) => {
  set.status = 404;
  return { error: "not found" };
};
const invalid = (set, error) => {
  set.status = 400;
  return { error };
};

/** `serveStatic(name)` resolves to a Response for a checked plain file name, or null when there is none. */
export function createApp(serveStatic) {
  const store = new ItemStore();
  return new Elysia()
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
      return (name === null ? null : await serveStatic(name)) ?? notFound(set);
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
      // An explicit Response: Elysia's own mapping of a null body gives Deno a body on a 204, which it refuses.
      return new Response(null, { status: 204 });
    })
    .onError(({ code, set }) => (code === "PARSE" ? invalid(set, "body is not valid JSON") : notFound(set)));
}
