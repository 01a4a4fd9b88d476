import { workerData } from "node:worker_threads";
import { decode, encode } from "../shared/codec.js";
import { handlerFor } from "../shared/payloads.js";
import { CLOSE } from "./control.js";
import { Ring } from "./ring.js";

const handle = handlerFor(workerData.mode);
const requests = new Ring(workerData.toWorker);
const answers = new Ring(workerData.fromWorker);

for (;;) {
  const { kind, bytes } = requests.read();
  if (kind === CLOSE) {
    answers.write(CLOSE, bytes);
    break;
  }
  const answer = encode(handle(decode(kind, bytes)));
  answers.write(answer.kind, answer.bytes);
}
