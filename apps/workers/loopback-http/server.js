// The HTTP server thread: POST / with a payload, answered with what the channel's mode makes of it.
import { createServer } from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { decode, encode } from "../shared/codec.js";
import { handlerFor } from "../shared/payloads.js";
import { runtimeName } from "../shared/server-thread.js";
import { CONTENT_TYPES, kindOf } from "./content-types.js";

const handle = handlerFor(workerData.mode);
const HOST = "127.0.0.1";

function answer(contentType, body) {
  const { kind, bytes } = encode(handle(decode(kindOf(contentType), body)));
  return { bytes, headers: { "content-type": CONTENT_TYPES[kind] } };
}

// fetch-style servers (Bun, Deno) share one handler. Idle connections are never closed by the
// server (Node's default closes them after 5 s, Bun's after 10 s): fetch reuses them across
// iterations that can be seconds apart on a busy machine, and a connection closed just as it is
// reused resets that request. Deno.serve is left at its defaults.
async function respond(request) {
  const { bytes, headers } = answer(request.headers.get("content-type"), new Uint8Array(await request.arrayBuffer()));
  return new Response(bytes, { headers });
}

// Deno 2.1 ends a node:worker_threads worker whose only pending work is Deno.serve; a listener on
// the port keeps the thread until it is terminated.
parentPort.on("message", () => {});

const runtime = runtimeName();
if (runtime === "bun") {
  const server = Bun.serve({ hostname: HOST, port: 0, idleTimeout: 0, fetch: respond });
  parentPort.postMessage(server.port);
} else if (runtime === "deno") {
  Deno.serve({ hostname: HOST, port: 0, onListen: ({ port }) => parentPort.postMessage(port) }, respond);
} else {
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const { bytes, headers } = answer(request.headers["content-type"], new Uint8Array(Buffer.concat(chunks)));
      response.writeHead(200, { ...headers, "content-length": bytes.length });
      response.end(bytes);
    });
  });
  server.keepAliveTimeout = 0;
  server.listen(0, HOST, () => parentPort.postMessage(server.address().port));
}
