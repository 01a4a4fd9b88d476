// k6 echo load: each VU holds one connection and sends either at a fixed rate (RATE messages/s
// over all VUs) or, with RATE=0, the next message as soon as the echo of the last one arrives
// (ping-pong, for measuring k6's own ceiling). k6 has no clock finer than Date.now(), so round
// trips are whole milliseconds. Results go to the file SUMMARY through handleSummary.
import { WebSocket } from "k6/websockets";
import { Counter, Trend } from "k6/metrics";

const URL = __ENV.URL;
const CONNECTIONS = Number(__ENV.CONNECTIONS);
const RATE = Number(__ENV.RATE);
const SIZE = Number(__ENV.SIZE);
const BINARY = __ENV.BINARY === "true";
const DURATION_MS = Number(__ENV.DURATION_MS);
const HEADER = 16;

const rtt = new Trend("echo_rtt", true);
const sent = new Counter("echo_sent");
const received = new Counter("echo_received");
const mismatched = new Counter("echo_mismatched");
const unanswered = new Counter("echo_unanswered");

export const options = {
  scenarios: { echo: { executor: "per-vu-iterations", vus: CONNECTIONS, iterations: 1, maxDuration: `${DURATION_MS + 30000}ms` } },
  summaryTrendStats: ["min", "med", "p(50)", "p(90)", "p(99)", "max", "count"],
};

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

function header(vu, seq) {
  return (vu.toString(16).padStart(6, "0") + seq.toString(16).padStart(10, "0")).slice(-HEADER);
}

export default function () {
  for (const counter of [sent, received, mismatched, unanswered]) counter.add(0); // every counter appears in the summary
  let filler = "";
  while (filler.length < SIZE - HEADER) filler += LETTERS[Math.floor(Math.random() * LETTERS.length)];
  const bytes = new Uint8Array(SIZE);
  for (let i = HEADER; i < SIZE; i++) bytes[i] = Math.floor(Math.random() * 256);
  const pending = new Map();
  let seq = 0;
  let sending = true;
  const socket = new WebSocket(URL);
  socket.binaryType = "arraybuffer";

  const send = () => {
    const id = header(__VU, seq++);
    pending.set(id, Date.now());
    if (BINARY) {
      for (let i = 0; i < HEADER; i++) bytes[i] = id.charCodeAt(i);
      socket.send(bytes.buffer);
    } else {
      socket.send(id + filler);
    }
    sent.add(1);
  };

  socket.onopen = () => {
    const stopAt = Date.now() + DURATION_MS;
    if (RATE > 0) {
      // An absolute schedule: a late timer sends what is due at once instead of drifting below
      // the rate. Connections start a little apart so the rate is spread, not sent in bursts.
      const interval = (1000 * CONNECTIONS) / RATE;
      let due = Date.now() + (interval * (__VU - 1)) / CONNECTIONS;
      const tick = () => {
        const now = Date.now();
        while (due <= now && due < stopAt) {
          send();
          due += interval;
        }
        if (due < stopAt) setTimeout(tick, due - now);
        else stop();
      };
      setTimeout(tick, due - Date.now());
    } else {
      send();
      setTimeout(stop, DURATION_MS);
    }
  };

  // Echoes still in flight get two seconds; what is left then was never answered.
  const stop = () => {
    sending = false;
    const waitUntil = Date.now() + 2000;
    const wait = () => {
      if (pending.size === 0 || Date.now() >= waitUntil) {
        unanswered.add(pending.size);
        socket.close();
      } else {
        setTimeout(wait, 10);
      }
    };
    wait();
  };

  socket.onmessage = (event) => {
    const now = Date.now();
    let id;
    let intact;
    if (BINARY) {
      const got = new Uint8Array(event.data);
      id = String.fromCharCode(...got.subarray(0, HEADER));
      // The whole 64 KiB is compared by wsclient's verification; here the echo is named and its size checked.
      intact = typeof event.data !== "string" && got.length === SIZE;
    } else {
      id = event.data.slice(0, HEADER);
      intact = event.data === id + filler;
    }
    const at = pending.get(id);
    if (at === undefined) {
      mismatched.add(1);
      return;
    }
    pending.delete(id);
    received.add(1);
    rtt.add(now - at);
    if (!intact) mismatched.add(1);
    if (RATE === 0 && sending) send();
  };
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) };
}
