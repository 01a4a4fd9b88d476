import { parentPort, workerData } from "node:worker_threads";
import { handlerFor } from "../shared/payloads.js";

const handle = handlerFor(workerData.mode);
parentPort.on("message", (value) => parentPort.postMessage(handle(value)));
