// The three scenarios of the workers suite, written once against a transport so every app runs
// exactly the same exchange. A transport opens channels to new threads:
//   open(mode) -> { send(value, transfer) -> Promise<reply>, assertAlive(), close() }
// where `mode` is what the worker does with a message (payloads.js handlerFor) and `transfer`
// asks to move a Uint8Array's buffer instead of copying it (only when the transport can).
import { readdirSync, readFileSync } from "node:fs";
import { runInProcess } from "../../inprocess/protocol.js";
import { fingerprint, makePayload, makeSized, sameValue } from "./payloads.js";

const THREAD_EXIT_TIMEOUT_MS = 5000;

/**
 * Threads of this process that are JavaScript workers. Bun names them "Worker" and Deno
 * "worker-N"; Node leaves every thread unnamed, so there every thread counts and the check is that
 * the count falls back to what it was before the first worker started.
 */
function workerThreads(runtime) {
  const names = readdirSync("/proc/self/task").map((task) => {
    try {
      return readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim();
    } catch {
      return ""; // the thread ended between the listing and the read
    }
  });
  if (runtime === "bun") return names.filter((name) => name === "Worker").length;
  if (runtime === "deno") return names.filter((name) => /^worker-\d+$/.test(name)).length;
  return names.length;
}

async function assertThreadsGone(runtime, before) {
  const deadline = performance.now() + THREAD_EXIT_TIMEOUT_MS;
  let now = workerThreads(runtime);
  while (now > before && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    now = workerThreads(runtime);
  }
  if (now > before) throw new Error(`${now - before} thread(s) still running ${THREAD_EXIT_TIMEOUT_MS / 1000} s after every worker was closed`);
}

function checkReplies(replies, expected, what) {
  for (let i = 0; i < expected.length; i++) {
    if (!sameValue(replies[i], expected[i])) throw new Error(`${what}: answer ${i + 1} of ${expected.length} differs from what was expected`);
  }
}

/** Sends every value at once and waits for all answers; each message's round trip in µs. */
async function exchange(channel, values, transfer) {
  const rtt = new Array(values.length);
  const start = performance.now();
  const replies = await Promise.all(
    values.map((value, i) =>
      channel.send(value, transfer).then((reply) => {
        rtt[i] = (performance.now() - start) * 1000;
        return reply;
      }),
    ),
  );
  return { replies, rtt };
}

/** round-trip: `batch` payloads of one kind in flight, each echoed back. */
async function roundTrip(transport, { batch, payload }) {
  const channel = await transport.open("echo");
  const sent = Array.from({ length: batch }, (_, i) => makePayload(payload, i));
  let replies = null;
  // Checked outside the timed operation: before the next iteration, and at the end.
  const checkLast = () => {
    if (replies) checkReplies(replies, sent, `echo of ${payload}`);
    replies = null;
  };
  return {
    channels: [channel],
    reset: checkLast,
    async operation() {
      const out = await exchange(channel, sent, false);
      replies = out.replies;
      return { samples: { rtt_us: out.rtt } };
    },
    digest() {
      checkLast();
      return `echo ${batch} ${payload}`;
    },
    finish: checkLast,
  };
}

/** throughput: `batch` strings or Uint8Arrays of `size` bytes one way; the worker acknowledges each with a fingerprint. */
async function throughput(transport, { batch, payload, size, transfer }) {
  if (transfer && !transport.canTransfer) throw new Error("this app cannot transfer buffers");
  const channel = await transport.open("ack");
  const templates = Array.from({ length: batch }, (_, i) => makeSized(payload, size, i));
  const expected = templates.map(fingerprint);
  let sent = templates;
  let acks = null;
  const checkLast = () => {
    if (!acks) return;
    checkReplies(acks, expected, `acknowledgement of ${payload}`);
    // A transferred buffer is gone from the sender; a copied one is still there.
    if (payload === "bytes") {
      for (const bytes of sent) {
        if ((bytes.byteLength === 0) !== transfer) throw new Error(transfer ? "a transferred buffer is still attached to the sender" : "a copied buffer was detached from the sender");
      }
    }
    acks = null;
  };
  return {
    channels: [channel],
    reset() {
      checkLast();
      // A transfer detaches what was sent: every iteration sends fresh copies, made here, untimed.
      if (transfer) sent = templates.map((bytes) => bytes.slice());
    },
    async operation() {
      acks = (await exchange(channel, sent, transfer)).replies;
    },
    digest() {
      checkLast();
      return `ack ${batch} ${payload} ${size}${transfer ? " transferred" : ""}`;
    },
    finish: checkLast,
  };
}

/**
 * parallel-primes: the odd numbers below `bound` dealt round-robin to `workers` workers (so each
 * gets a like share of large and small numbers). Before every iteration one worker counts them
 * all, untimed by the protocol but timed here, which makes each iteration's speed-up a pair
 * measured back to back.
 */
async function parallelPrimes(transport, { workers, bound, expected }) {
  const channels = [];
  for (let i = 0; i < workers; i++) channels.push(await transport.open("primes"));
  let baselineMs = null;
  const count = async (k) => {
    const start = performance.now();
    const parts = await Promise.all(channels.slice(0, k).map((channel, i) => channel.send({ start: 3 + 2 * i, stride: 2 * k, bound }, false)));
    const total = 1 + parts.reduce((a, b) => a + b, 0); // 2 is the even prime
    if (total !== expected) throw new Error(`${k} worker(s) counted ${total} primes below ${bound}, expected ${expected}`);
    return performance.now() - start;
  };
  return {
    channels,
    async reset() {
      baselineMs = await count(1);
    },
    async operation() {
      const ms = await count(workers);
      return { samples: { speedup: [baselineMs / ms], efficiency: [baselineMs / ms / workers] } };
    },
    digest: () => `primes below ${bound}: ${expected}`,
    finish() {},
  };
}

const SCENARIOS = { "round-trip": roundTrip, throughput, "parallel-primes": parallelPrimes };

/** The entry of every workers app: runs the scenario its params name over `transport`. */
export async function runWorkersApp(transport) {
  await runInProcess({
    async setup(ctx) {
      const scenario = SCENARIOS[ctx.params.scenario];
      if (!scenario) throw new Error(`unknown workers scenario '${ctx.params.scenario}'`);
      const threadsBefore = workerThreads(ctx.runtime);
      return { threadsBefore, run: await scenario(transport, ctx.params) };
    },
    reset: (state) => state.run.reset(),
    operation: (state) => state.run.operation(),
    digest: (state) => state.run.digest(),
    async teardown(state, ctx) {
      await state.run.finish();
      for (const channel of state.run.channels) channel.assertAlive();
      for (const channel of state.run.channels) await channel.close();
      await assertThreadsGone(ctx.runtime, state.threadsBefore);
    },
  });
}
