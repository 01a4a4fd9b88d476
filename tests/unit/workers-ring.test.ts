import assert from "node:assert/strict";
import { test } from "node:test";
import { Worker } from "node:worker_threads";

const PEER = new URL("../fixtures/workers/ring-peer.js", import.meta.url);
// 8 bytes of counters and 4096 of data: the records (8 to 112 bytes) wrap at every offset, and the
// ring is full and empty over and over.
const RING_BYTES = 8 + 4096;

function peer(role: "producer" | "faulty-producer" | "consumer", buffer: SharedArrayBuffer, count: number): Promise<{ sent?: number; problem?: string | null }> {
  const worker = new Worker(PEER, { workerData: { role, buffer, count } });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`${role} exited with code ${code} before reporting`)));
  }).finally(() => worker.terminate()) as Promise<{ sent?: number; problem?: string | null }>;
}

test("the shared-memory ring passes a million messages between two threads, none lost, duplicated or reordered", { timeout: 120_000 }, async () => {
  const buffer = new SharedArrayBuffer(RING_BYTES);
  const count = 1_000_000;
  const [consumer, producer] = await Promise.all([peer("consumer", buffer, count), peer("producer", buffer, count)]);
  assert.equal(producer.sent, count);
  assert.equal(consumer.problem, null);
  const counters = new Int32Array(buffer, 0, 2);
  assert.equal(counters[0], counters[1], "the consumer released everything the producer published");
});

test("the ring test's consumer reports a duplicated message", { timeout: 30_000 }, async () => {
  // Few enough messages to fit the ring at once: the producer finishes though the consumer stops early.
  const buffer = new SharedArrayBuffer(RING_BYTES);
  const [consumer] = await Promise.all([peer("consumer", buffer, 31), peer("faulty-producer", buffer, 30)]);
  assert.equal(consumer.problem, "message 6: got message 5 instead");
});
