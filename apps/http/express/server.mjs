// Express, the same file on Node, Deno and Bun.
import express from "express";
import { HELLO, ItemStore, itemProblem, largeDocument, parseId, primeReport, staticFileName } from "../shared/workload.js";

const app = express();
const store = new ItemStore();
const staticDir = process.env.STATIC_DIR;
const notFound = (res) => res.status(404).json({ error: "not found" });

app.set("etag", false);
app.set("x-powered-by", false);

app.get("/plaintext", (req, res) => res.type("text/plain").send(HELLO));
app.get("/json", (req, res) => res.json({ message: HELLO }));
app.get("/json-large/:page", (req, res) => {
  const page = parseId(req.params.page);
  return page === null ? notFound(res) : res.json(largeDocument(page));
});
app.get("/compute/:n", (req, res) => {
  const report = primeReport(req.params.n);
  return report ? res.json(report) : res.status(400).json({ error: "n must be a whole number" });
});
if (staticDir) {
  app.get("/static/:name", (req, res, next) => (staticFileName(req.params.name) === null ? notFound(res) : next()));
  app.use("/static", express.static(staticDir, { etag: false, lastModified: false }));
}

// express.json() parses and rejects malformed JSON; a strict:false parser lets itemProblem explain non-objects.
const parseJson = express.json({ strict: false });
function validItem(req, res, next) {
  const problem = itemProblem(req.body);
  if (problem) return res.status(400).json({ error: problem });
  return next();
}
app.get("/items", (req, res) => res.json(store.list()));
app.post("/items", parseJson, validItem, (req, res) => res.status(201).json(store.create(req.body)));
app.get("/items/:id", (req, res) => {
  const item = store.get(parseId(req.params.id));
  return item ? res.json(item) : notFound(res);
});
app.put("/items/:id", parseJson, validItem, (req, res) => {
  const id = parseId(req.params.id);
  const item = id === null ? undefined : store.replace(id, req.body);
  return item ? res.json(item) : notFound(res);
});
app.delete("/items/:id", (req, res) => {
  const id = parseId(req.params.id);
  if (id === null) return notFound(res);
  store.delete(id);
  return res.status(204).end();
});
app.use((req, res) => notFound(res));
app.use((error, req, res, next) => {
  if (error.type === "entity.parse.failed") return res.status(400).json({ error: "body is not valid JSON" });
  return next(error);
});

app.listen(Number(process.env.PORT), process.env.HOST);
