// The WebSocket server thread: answers every message with what the channel's mode makes of it,
// binary for bytes and JSON text for the rest. Bun.serve and Deno.upgradeWebSocket are the
// runtimes' own servers; Node has no WebSocket server built in, so there it is the `ws` package
// (locked in package-lock.json). No server pings: a client busy with megabytes of messages may
// answer a ping late, and Deno's default (a ping every 30 s, close without a pong) then drops a
// healthy connection; ws sends none either.
import { parentPort, workerData } from "node:worker_threads";
import { handlerFor } from "../shared/payloads.js";
import { runtimeName } from "../shared/server-thread.js";

const handle = handlerFor(workerData.mode);
const HOST = "127.0.0.1";

function answer(data, binary) {
  const value = handle(binary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : JSON.parse(typeof data === "string" ? data : data.toString()));
  return value instanceof Uint8Array ? value : JSON.stringify(value);
}

// Deno 2.1 ends a node:worker_threads worker whose only pending work is Deno.serve; a listener on
// the port keeps the thread until it is terminated.
parentPort.on("message", () => {});

const runtime = runtimeName();
if (runtime === "bun") {
  const server = Bun.serve({
    hostname: HOST,
    port: 0,
    fetch: (request, server) => (server.upgrade(request) ? undefined : new Response("WebSocket only", { status: 400 })),
    websocket: { idleTimeout: 0, sendPings: false, message: (socket, data) => socket.send(answer(data, typeof data !== "string")) },
  });
  parentPort.postMessage(server.port);
} else if (runtime === "deno") {
  Deno.serve({ hostname: HOST, port: 0, onListen: ({ port }) => parentPort.postMessage(port) }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request, { idleTimeout: 0 });
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => socket.send(answer(typeof event.data === "string" ? event.data : new Uint8Array(event.data), typeof event.data !== "string"));
    return response;
  });
} else {
  const { WebSocketServer } = await import("ws");
  const server = new WebSocketServer({ host: HOST, port: 0 });
  server.on("connection", (socket) => socket.on("message", (data, binary) => socket.send(answer(data, binary))));
  server.on("listening", () => parentPort.postMessage(server.address().port));
}
