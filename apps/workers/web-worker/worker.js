import { handlerFor } from "../shared/payloads.js";

self.onmessage = (first) => {
  const handle = handlerFor(first.data);
  self.onmessage = (event) => self.postMessage(handle(event.data));
  self.postMessage(first.data);
};
