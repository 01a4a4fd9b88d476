// node:worker_threads with postMessage (structured clone), on Node, Deno and Bun: one Worker
// running `workerUrl` per channel.
import { Worker } from "node:worker_threads";
import { ReplyQueue } from "../shared/reply-queue.js";

export function workerThreadsTransport(workerUrl) {
  return {
    canTransfer: true,
    async open(mode) {
      const worker = new Worker(workerUrl, { workerData: { mode } });
      const replies = new ReplyQueue();
      worker.on("message", (reply) => replies.resolveNext(reply));
      worker.on("error", (error) => replies.fail(error));
      worker.on("exit", (code) => replies.fail(new Error(`the worker exited with code ${code}`)));
      await new Promise((resolve, reject) => {
        worker.once("online", resolve);
        worker.once("error", reject);
      });
      return {
        send(value, transfer) {
          const reply = replies.expect();
          worker.postMessage(value, transfer ? [value.buffer] : []);
          return reply;
        },
        assertAlive: () => replies.assertAlive(),
        close: () => worker.terminate(),
      };
    },
  };
}
