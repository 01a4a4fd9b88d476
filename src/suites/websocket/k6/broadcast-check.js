// k6 broadcast delivery check: RECEIVERS connections join the room, one sender sends MESSAGES
// messages, and every receiver must get each of them exactly once, in order, unchanged; the
// sender must get none back. Counts go to the file SUMMARY through handleSummary.
import { WebSocket } from "k6/websockets";
import { Counter } from "k6/metrics";

const URL = __ENV.URL;
const RECEIVERS = Number(__ENV.RECEIVERS);
const MESSAGES = Number(__ENV.MESSAGES);

const counters = {
  expected: new Counter("broadcast_expected"),
  delivered: new Counter("broadcast_delivered_once"),
  duplicated: new Counter("broadcast_duplicated"),
  missing: new Counter("broadcast_missing"),
  corrupted: new Counter("broadcast_corrupted"),
  toSender: new Counter("broadcast_to_sender"),
  unjoined: new Counter("broadcast_receivers_not_joined"),
};

export const options = { vus: 1, iterations: 1 };

export default function () {
  const run = Math.random().toString(36).slice(2);
  const message = (seq) => `m${seq}:${run}:${"x".repeat(seq % 97)}`;
  const receivers = [];
  let sender;
  let opened = 0;
  let toSender = 0;

  const finish = () => {
    for (const r of receivers) {
      const seen = new Map();
      for (const text of r.data) seen.set(text, (seen.get(text) ?? 0) + 1);
      for (let seq = 0; seq < MESSAGES; seq++) {
        const n = seen.get(message(seq)) ?? 0;
        if (n === 1) counters.delivered.add(1);
        else if (n === 0) counters.missing.add(1);
        else counters.duplicated.add(n - 1);
        seen.delete(message(seq));
      }
      for (const n of seen.values()) counters.corrupted.add(n);
      if (!r.joined) counters.unjoined.add(1);
    }
    counters.expected.add(RECEIVERS * MESSAGES);
    counters.toSender.add(toSender);
    for (const c of Object.values(counters)) c.add(0); // every counter appears in the summary
    for (const r of receivers) r.socket.close();
    sender.close();
  };

  const start = () => {
    // Probes until every receiver has one: nobody is counted missing for joining late.
    let probe = 0;
    const filling = setInterval(() => {
      if (receivers.every((r) => r.joined)) {
        clearInterval(filling);
        for (let seq = 0; seq < MESSAGES; seq++) sender.send(message(seq));
        // Time for every delivery, and for any duplicate, to arrive.
        const waitedSince = Date.now();
        const waiting = setInterval(() => {
          const complete = receivers.every((r) => r.data.length >= MESSAGES);
          if ((complete && Date.now() - waitedSince > 200) || Date.now() - waitedSince > 5000) {
            clearInterval(waiting);
            finish();
          }
        }, 20);
      } else if (probe > 250) {
        clearInterval(filling);
        finish();
      } else {
        sender.send(`probe${probe++}`);
      }
    }, 20);
  };

  const opens = () => {
    opened++;
    if (opened === RECEIVERS + 1) start();
  };
  for (let i = 0; i < RECEIVERS; i++) {
    const r = { socket: new WebSocket(URL), data: [], joined: false };
    r.socket.onopen = opens;
    r.socket.onmessage = (event) => {
      if (typeof event.data === "string" && event.data.startsWith("probe")) r.joined = true;
      else r.data.push(event.data);
    };
    receivers.push(r);
  }
  sender = new WebSocket(URL);
  sender.onopen = opens;
  sender.onmessage = (event) => {
    if (!(typeof event.data === "string" && event.data.startsWith("probe"))) toSender++;
  };
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) };
}
