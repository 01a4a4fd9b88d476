// The exchange as WebSocket messages on 127.0.0.1: the runtime's built-in client `WebSocket` (Node
// has had one since 22.4) talks to the runtime's own server in a worker thread (server.js).
// Uint8Arrays travel as binary frames, everything else as JSON in text frames; one connection
// per channel answers in order.
import { ReplyQueue } from "../shared/reply-queue.js";
import { startServerThread } from "../shared/server-thread.js";
import { runWorkersApp } from "../shared/scenarios.js";

await runWorkersApp({
  canTransfer: false,
  async open(mode) {
    const server = await startServerThread(new URL("./server.js", import.meta.url), mode);
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/`);
    socket.binaryType = "arraybuffer";
    const replies = new ReplyQueue();
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error("the WebSocket connection failed"));
    });
    socket.onmessage = (event) => replies.resolveNext(typeof event.data === "string" ? JSON.parse(event.data) : new Uint8Array(event.data));
    socket.onerror = () => replies.fail(new Error("the WebSocket connection failed"));
    socket.onclose = (event) => replies.fail(new Error(`the WebSocket connection closed (code ${event.code})`));
    return {
      send(value) {
        const reply = replies.expect();
        socket.send(value instanceof Uint8Array ? value : JSON.stringify(value));
        return reply;
      },
      assertAlive() {
        replies.assertAlive();
        server.assertAlive();
      },
      async close() {
        socket.onclose = null;
        const closed = new Promise((resolve) => socket.addEventListener("close", resolve));
        socket.close();
        await closed;
        await server.stop();
      },
    };
  },
});
