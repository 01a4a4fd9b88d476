// The loopback apps' server runs in a worker thread (node:worker_threads on all three runtimes)
// and listens on 127.0.0.1 at a port the system picks; this starts it and learns the port.
import { Worker } from "node:worker_threads";

export async function startServerThread(script, mode) {
  const worker = new Worker(script, { workerData: { mode } });
  const port = await new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the server thread exited with code ${code} before listening`)));
  });
  let failure = null;
  worker.on("error", (error) => (failure ??= error));
  worker.on("exit", (code) => (failure ??= new Error(`the server thread exited with code ${code}`)));
  return {
    port,
    assertAlive() {
      if (failure) throw new Error(`the server thread failed before the end: ${failure.message}`);
    },
    stop: () => worker.terminate(),
  };
}

/** Each runtime's own server: Bun.serve on Bun, Deno.serve on Deno, node:http on Node. */
export function runtimeName() {
  if (typeof globalThis.Bun !== "undefined") return "bun";
  if (typeof globalThis.Deno !== "undefined") return "deno";
  return "node";
}
