// The web-standard (Request → Response) handler that Bun.serve and Deno.serve both take. Only
// serving a file and starting the server differ between them, so those come from the caller.
import { HELLO, ItemStore, itemProblem, largeDocument, parseId, primeReport, staticFileName } from "../shared/workload.js";

export const json = (value, status = 200) => new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
export const notFound = () => json({ error: "not found" }, 404);

/** `serveStatic(name)` answers GET /static/<name> for a checked plain file name. */
export function createHandler(serveStatic) {
  const store = new ItemStore();

  async function writeItem(req, id) {
    let body;
    try {
      body = await req.json();
    } catch {
      return json({ error: "body is not valid JSON" }, 400);
    }
    const problem = itemProblem(body);
    if (problem) return json({ error: problem }, 400);
    if (id === undefined) return json(store.create(body), 201);
    const item = store.replace(id, body);
    return item ? json(item) : notFound();
  }

  return async function handle(req) {
    const { pathname } = new URL(req.url);
    const [, first, second, extra] = pathname.split("/");
    if (extra !== undefined) return notFound();
    if (req.method === "GET" && first === "plaintext" && second === undefined) {
      return new Response(HELLO, { headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    if (req.method === "GET" && first === "json" && second === undefined) return json({ message: HELLO });
    if (req.method === "GET" && first === "json-large" && second !== undefined) {
      const page = parseId(second);
      return page === null ? notFound() : json(largeDocument(page));
    }
    if (req.method === "GET" && first === "compute" && second !== undefined) {
      const report = primeReport(second);
      return report ? json(report) : json({ error: "n must be a whole number" }, 400);
    }
    if (req.method === "GET" && first === "static" && second !== undefined) {
      const name = staticFileName(second);
      return name === null ? notFound() : serveStatic(name);
    }
    if (first === "items" && second === undefined) {
      if (req.method === "GET") return json(store.list());
      if (req.method === "POST") return writeItem(req, undefined);
    }
    if (first === "items" && second !== undefined) {
      const id = parseId(second);
      if (id === null) return notFound();
      if (req.method === "GET") {
        const item = store.get(id);
        return item ? json(item) : notFound();
      }
      if (req.method === "PUT") return writeItem(req, id);
      if (req.method === "DELETE") {
        store.delete(id);
        return new Response(null, { status: 204 });
      }
    }
    return notFound();
  };
}
