// Fastify, the same file on Node, Deno and Bun. Bodies are checked by Fastify's own JSON Schema
// validation (the idiomatic way) to the same rules as itemProblem in ../shared/workload.js.
import Fastify from "fastify";
import fastifyStatic from "@fastify/static";
import { HELLO, ItemStore, largeDocument, parseId, primeReport, staticFileName } from "../shared/workload.js";

// Fastify's defaults coerce types and drop unknown fields; the scenario wants both rejected.
const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, removeAdditional: false } } });
const store = new ItemStore();
const staticDir = process.env.STATIC_DIR;
const notFound = (reply) => reply.code(404).send({ error: "not found" });

const itemBody = {
  body: {
    type: "object",
    additionalProperties: false,
    required: ["name", "price", "tags"],
    properties: {
      name: { type: "string", minLength: 1, maxLength: 100 },
      price: { type: "number", minimum: 0 },
      tags: { type: "array", maxItems: 10, items: { type: "string" } },
    },
  },
};

app.get("/plaintext", (request, reply) => reply.type("text/plain; charset=utf-8").send(HELLO));
app.get("/json", () => ({ message: HELLO }));
app.get("/json-large/:page", (request, reply) => {
  const page = parseId(request.params.page);
  return page === null ? notFound(reply) : largeDocument(page);
});
app.get("/compute/:n", (request, reply) => {
  const report = primeReport(request.params.n);
  return report ?? reply.code(400).send({ error: "n must be a whole number" });
});
if (staticDir) {
  await app.register(fastifyStatic, { root: staticDir, serve: false, etag: false, lastModified: false, cacheControl: false });
  app.get("/static/:name", (request, reply) => {
    const name = staticFileName(request.params.name);
    return name === null ? notFound(reply) : reply.sendFile(name);
  });
}
app.get("/items", () => store.list());
app.post("/items", { schema: itemBody }, (request, reply) => reply.code(201).send(store.create(request.body)));
app.get("/items/:id", (request, reply) => store.get(parseId(request.params.id)) ?? notFound(reply));
app.put("/items/:id", { schema: itemBody }, (request, reply) => {
  const id = parseId(request.params.id);
  return (id === null ? undefined : store.replace(id, request.body)) ?? notFound(reply);
});
app.delete("/items/:id", (request, reply) => {
  const id = parseId(request.params.id);
  if (id === null) return notFound(reply);
  store.delete(id);
  return reply.code(204).send();
});
app.setNotFoundHandler((request, reply) => notFound(reply));

await app.listen({ port: Number(process.env.PORT), host: process.env.HOST });
