// node:http with no framework: the baseline every framework on Node is compared with.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { HELLO, ItemStore, STATIC_CONTENT_TYPE, itemProblem, largeDocument, parseId, primeReport, staticFileName } from "../shared/workload.js";

const store = new ItemStore();
const staticDir = process.env.STATIC_DIR;

function send(res, status, contentType, body) {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  res.end(body);
}
const sendJson = (res, status, value) => send(res, status, "application/json", JSON.stringify(value));
const notFound = (res) => sendJson(res, 404, { error: "not found" });

async function readJsonBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    return { error: "body is not valid JSON" };
  }
}

async function writeItem(req, res, id) {
  const body = await readJsonBody(req);
  const problem = body.error ?? itemProblem(body.value);
  if (problem) return sendJson(res, 400, { error: problem });
  if (id === undefined) return sendJson(res, 201, store.create(body.value));
  const item = store.replace(id, body.value);
  return item ? sendJson(res, 200, item) : notFound(res);
}

async function handle(req, res) {
  const path = req.url.split("?")[0];
  const [, first, second, extra] = path.split("/");
  if (extra !== undefined) return notFound(res);
  if (req.method === "GET" && first === "plaintext" && second === undefined) return send(res, 200, "text/plain; charset=utf-8", HELLO);
  if (req.method === "GET" && first === "json" && second === undefined) return sendJson(res, 200, { message: HELLO });
  if (req.method === "GET" && first === "json-large" && second !== undefined) {
    const page = parseId(second);
    return page === null ? notFound(res) : sendJson(res, 200, largeDocument(page));
  }
  if (req.method === "GET" && first === "compute" && second !== undefined) {
    const report = primeReport(second);
    return report ? sendJson(res, 200, report) : sendJson(res, 400, { error: "n must be a whole number" });
  }
  if (req.method === "GET" && first === "static" && second !== undefined && staticDir) {
    const name = staticFileName(second);
    if (name === null) return notFound(res);
    const content = await readFile(join(staticDir, name)).catch(() => null);
    return content ? send(res, 200, STATIC_CONTENT_TYPE, content) : notFound(res);
  }
  if (first === "items" && second === undefined) {
    if (req.method === "GET") return sendJson(res, 200, store.list());
    if (req.method === "POST") return writeItem(req, res, undefined);
  }
  if (first === "items" && second !== undefined) {
    const id = parseId(second);
    if (id === null) return notFound(res);
    if (req.method === "GET") {
      const item = store.get(id);
      return item ? sendJson(res, 200, item) : notFound(res);
    }
    if (req.method === "PUT") return writeItem(req, res, id);
    if (req.method === "DELETE") {
      store.delete(id);
      res.writeHead(204).end();
      return;
    }
  }
  return notFound(res);
}

createServer((req, res) => {
  handle(req, res).catch((error) => {
    res.destroy(error);
  });
}).listen(Number(process.env.PORT), process.env.HOST);
