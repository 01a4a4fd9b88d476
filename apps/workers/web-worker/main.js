// The Web Worker API (a global `Worker` with module workers), where the runtime has it.
import { ReplyQueue } from "../shared/reply-queue.js";
import { runWorkersApp } from "../shared/scenarios.js";

await runWorkersApp({
  canTransfer: true,
  async open(mode) {
    const worker = new Worker(new URL("./worker.js", import.meta.url).href, { type: "module" });
    const replies = new ReplyQueue();
    worker.onmessage = (event) => replies.resolveNext(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      replies.fail(new Error(`the worker failed: ${event.message}`));
    };
    // The first message names the mode (Bun 1.2 does not give a worker its `name`); the worker answers it.
    const ready = replies.expect();
    worker.postMessage(mode);
    if ((await ready) !== mode) throw new Error("the worker did not confirm its mode");
    return {
      send(value, transfer) {
        const reply = replies.expect();
        worker.postMessage(value, transfer ? [value.buffer] : []);
        return reply;
      },
      assertAlive: () => replies.assertAlive(),
      async close() {
        worker.terminate();
      },
    };
  },
});
