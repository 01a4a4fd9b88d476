import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { HOST } from "../../tools/server.ts";

/**
 * The only way out of the machine during a run: the local registry's uplink points here, and so
 * do the package managers' proxy variables. While open it forwards the registry's GET requests
 * to the upstream registry; while closed (every timed install) it refuses them and counts them,
 * so a result can show that a timed install sent nothing beyond loopback. Requests sent to it as
 * a proxy (a manager reaching past the local registry) are refused and counted always.
 */
export class UpstreamGate {
  private open = true;
  private refusedCount = 0;
  private forwardedCount = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly upstream: string,
  ) {}

  /** `upstream` is the registry's base address, ending in a slash. */
  static async start(upstream: string): Promise<UpstreamGate> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, HOST, () => resolve());
    });
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("the upstream gate has no address");
    const gate = new UpstreamGate(server, `http://${HOST}:${address.port}/`, upstream.endsWith("/") ? upstream : `${upstream}/`);
    server.on("request", (request, response) => void gate.handle(request, response));
    server.on("clientError", (_error, socket) => socket.destroy());
    server.on("connect", (_request: IncomingMessage, socket: Socket) => {
      gate.refusedCount += 1;
      socket.on("error", () => {}); // the client may hang up first
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
    });
    return gate;
  }

  /** Opens (priming) or closes (timing) the way to the upstream registry. */
  setOpen(open: boolean): void {
    this.open = open;
  }

  /** Requests refused so far: each one tried to leave the machine while that was not allowed. */
  get refused(): number {
    return this.refusedCount;
  }

  get forwarded(): number {
    return this.forwardedCount;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? "/";
    // An absolute URL is a proxy request: something tried to reach a host directly.
    if (!this.open || !path.startsWith("/") || (request.method !== "GET" && request.method !== "HEAD")) {
      this.refusedCount += 1;
      response.writeHead(503, { "content-type": "text/plain" }).end("runtime-bench: the upstream registry is closed during timed installs\n");
      return;
    }
    this.forwardedCount += 1;
    try {
      const headers: Record<string, string> = {};
      for (const name of ["accept", "user-agent"]) {
        const value = request.headers[name];
        if (typeof value === "string") headers[name] = value;
      }
      const upstream = await fetch(this.upstream + path.slice(1), { method: request.method, headers, redirect: "follow" });
      const type = upstream.headers.get("content-type") ?? "application/octet-stream";
      let body: Buffer;
      if (type.includes("json")) {
        // Tarball addresses in package documents point upstream; through the gate they stay closable.
        body = Buffer.from((await upstream.text()).replaceAll(this.upstream, this.url));
      } else {
        body = Buffer.from(await upstream.arrayBuffer());
      }
      response.writeHead(upstream.status, { "content-type": type, "content-length": String(body.length) }).end(request.method === "HEAD" ? undefined : body);
    } catch (error) {
      response.writeHead(502, { "content-type": "text/plain" }).end(`runtime-bench: upstream registry: ${String(error)}\n`);
    }
  }
}
