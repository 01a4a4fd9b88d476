// Every route on one Hono app; node.mjs, bun.js and deno.js only add static files and start it.
import { Hono } from "hono";
import { HELLO, ItemStore, itemProblem, largeDocument, parseId, primeReport, staticFileName } from "../shared/workload.js";

/** `serveStatic(c, name)` answers GET /static/<name> for a checked plain file name. */
export function createApp(serveStatic) {
  const app = new Hono();
  const store = new ItemStore();
  const notFound = (c) => c.json({ error: "not found" }, 404);

  async function validItem(c) {
    let body;
    try {
      body = await c.req.json();
    } catch {
      return { error: "body is not valid JSON" };
    }
    const problem = itemProblem(body);
    return problem ? { error: problem } : { item: body };
  }

  app.get("/plaintext", (c) => c.text(HELLO));
  app.get("/json", (c) => c.json({ message: HELLO }));
  app.get("/json-large/:page", (c) => {
    const page = parseId(c.req.param("page"));
    return page === null ? notFound(c) : c.json(largeDocument(page));
  });
  app.get("/compute/:n", (c) => {
    const report = primeReport(c.req.param("n"));
    return report ? c.json(report) : c.json({ error: "n must be a whole number" }, 400);
  });
  app.get("/static/:name", (c) => {
    const name = staticFileName(c.req.param("name"));
    return name === null ? notFound(c) : serveStatic(c, name);
  });
  app.get("/items", (c) => c.json(store.list()));
  app.post("/items", async (c) => {
    const body = await validItem(c);
    return body.error ? c.json({ error: body.error }, 400) : c.json(store.create(body.item), 201);
  });
  app.get("/items/:id", (c) => {
    const item = store.get(parseId(c.req.param("id")));
    return item ? c.json(item) : notFound(c);
  });
  app.put("/items/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    if (id === null) return notFound(c);
    const body = await validItem(c);
    if (body.error) return c.json({ error: body.error }, 400);
    const item = store.replace(id, body.item);
    return item ? c.json(item) : notFound(c);
  });
  app.delete("/items/:id", (c) => {
    const id = parseId(c.req.param("id"));
    if (id === null) return notFound(c);
    store.delete(id);
    return c.body(null, 204);
  });
  app.notFound(notFound);
  return app;
}
