import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, resolve, sep } from "node:path";
import { createGzip } from "node:zlib";
import { UserError } from "../core/errors.ts";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
  ".svg": "image/svg+xml",
  ".atom": "application/atom+xml; charset=utf-8",
  ".png": "image/png",
};

export interface SiteServer {
  /** Where the site's index is, e.g. `http://127.0.0.1:8080/runtime-bench/`. */
  readonly url: string;
  close(): Promise<void>;
}

/** `/`, or a path like `/REPO/` with one slash at each end. */
function normalizeBase(base: string): string {
  const trimmed = base.replace(/^\/+|\/+$/g, "");
  if (trimmed !== "" && !/^[A-Za-z0-9._~\-/]+$/.test(trimmed)) throw new UserError(`--base '${base}': use a URL path such as /runtime-bench/`);
  return trimmed === "" ? "/" : `/${trimmed}/`;
}

function send(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
  response.end(text);
}

/** The file a request path names below `root`, or null when it is outside the site. */
function fileFor(root: string, base: string, pathname: string): string | null {
  if (!pathname.startsWith(base)) return null;
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice(base.length));
  } catch {
    return null;
  }
  if (relative === "" || relative.endsWith("/")) relative += "index.html";
  const file = resolve(root, relative);
  return file === root || file.startsWith(root + sep) ? file : null;
}

async function handle(root: string, base: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "method not allowed", { allow: "GET, HEAD" });
  const { pathname } = new URL(request.url ?? "/", "http://localhost");
  if (pathname === base.slice(0, -1) || (pathname === "/" && base !== "/")) return send(response, 302, "", { location: base });
  const file = fileFor(root, base, pathname);
  const info = file ? await stat(file).catch(() => null) : null;
  if (!file || !info) return send(response, 404, `not found: ${pathname}`);
  if (info.isDirectory()) return send(response, 302, "", { location: `${pathname}/` });
  const type = CONTENT_TYPES[extname(file)] ?? "application/octet-stream";
  // Compressed as a static host would, so what a page fetches is measured as readers receive it.
  const gzip = type !== "image/png" && /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""));
  response.writeHead(200, {
    "content-type": type,
    "cache-control": "no-cache",
    vary: "accept-encoding",
    ...(gzip ? { "content-encoding": "gzip" } : { "content-length": String(info.size) }),
  });
  if (request.method === "HEAD") return void response.end();
  const stream = createReadStream(file);
  (gzip ? stream.pipe(createGzip()) : stream).pipe(response);
}

/** Serves the built site on localhost below `base`; port 0 picks a free one. */
export function serveSite(root: string, options: { base: string; port: number }): Promise<SiteServer> {
  const base = normalizeBase(options.base);
  const absoluteRoot = resolve(root);
  const server = createServer((request, response) => {
    handle(absoluteRoot, base, request, response).catch((error: unknown) => send(response, 500, String(error)));
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(error.code === "EADDRINUSE" ? new UserError(`port ${options.port} is in use: choose another with --port`) : error);
    });
    server.listen(options.port, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolvePromise({
        url: `http://127.0.0.1:${port}${base}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
