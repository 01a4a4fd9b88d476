// A SharedArrayBuffer ring each way (ring.js) between the main thread and a worker: the payload is
// copied into shared memory and out again, and the threads signal with Atomics.notify and
// Atomics.wait. The worker is started with node:worker_threads, which all three runtimes have;
// after that only the rings carry messages.
//
// The main thread waits with Atomics.wait too, blocking, while answers are due and none has come:
// Atomics.waitAsync would keep its event loop free, but on Deno 2.1 its promise is not tied to the
// event loop and may never settle (denoland/deno issue 15358). Between waits it returns to the
// event loop after every answer it delivers, so each round trip is timed when its answer arrives.
import { Worker } from "node:worker_threads";
import { decode, encode } from "../shared/codec.js";
import { ReplyQueue } from "../shared/reply-queue.js";
import { runWorkersApp } from "../shared/scenarios.js";
import { CLOSE, RING_CAPACITY } from "./control.js";
import { Ring } from "./ring.js";

const SILENCE_LIMIT_MS = 30_000;

await runWorkersApp({
  canTransfer: false,
  async open(mode) {
    const toWorker = Ring.allocate(RING_CAPACITY);
    const fromWorker = Ring.allocate(RING_CAPACITY);
    const requests = new Ring(toWorker);
    const answers = new Ring(fromWorker);
    const worker = new Worker(new URL("./worker.js", import.meta.url), { workerData: { mode, toWorker, fromWorker } });
    const replies = new ReplyQueue();
    worker.on("error", (error) => replies.fail(error));
    worker.on("exit", (code) => replies.fail(new Error(`the worker exited with code ${code}`)));

    // Records that did not fit the request ring yet, in order, and the answers still due.
    const backlog = [];
    let due = 0;
    let pumping = false;

    // Writes what fits, delivers what arrived; waits only when neither moved. The worker always
    // answers, so an answer (and with it room for requests) comes while the main thread waits.
    const pump = () => {
      let silentSince = performance.now();
      for (;;) {
        while (backlog.length > 0 && requests.tryWrite(backlog[0].kind, backlog[0].bytes)) backlog.shift();
        let delivered = 0;
        for (let answer = answers.tryRead(); answer; answer = answers.tryRead(), delivered++) {
          due--;
          replies.resolveNext(answer.kind === CLOSE ? CLOSE : decode(answer.kind, answer.bytes));
        }
        if (due === 0) {
          pumping = false;
          return;
        }
        if (delivered > 0) {
          queueMicrotask(guardedPump);
          return;
        }
        if (answers.waitForRecord(SILENCE_LIMIT_MS)) silentSince = performance.now();
        else if (performance.now() - silentSince >= SILENCE_LIMIT_MS) throw new Error(`no answer from the worker for ${SILENCE_LIMIT_MS / 1000} s`);
      }
    };
    const guardedPump = () => {
      try {
        pump();
      } catch (error) {
        pumping = false;
        replies.fail(error);
      }
    };

    const send = (kind, bytes) => {
      const reply = replies.expect();
      due++;
      if (backlog.length > 0 || !requests.tryWrite(kind, bytes)) backlog.push({ kind, bytes });
      if (!pumping) {
        pumping = true;
        queueMicrotask(guardedPump);
      }
      return reply;
    };

    return {
      send(value) {
        const { kind, bytes } = encode(value);
        return send(kind, bytes);
      },
      assertAlive: () => replies.assertAlive(),
      async close() {
        // The worker answers CLOSE and leaves its loop; Node then ends its thread, Deno 2.1 keeps
        // it until it is terminated.
        if ((await send(CLOSE, new Uint8Array(0))) !== CLOSE) throw new Error("the worker did not confirm it closed");
        await worker.terminate();
      },
    };
  },
});
