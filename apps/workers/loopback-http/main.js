// The exchange as HTTP on 127.0.0.1: one POST per message with fetch(), answered by the runtime's
// own server in a worker thread (server.js). Bytes travel as application/octet-stream, everything
// else as JSON; fetch keeps connections alive, so a batch of n messages uses up to n connections.
import { decode, encode } from "../shared/codec.js";
import { startServerThread } from "../shared/server-thread.js";
import { runWorkersApp } from "../shared/scenarios.js";
import { CONTENT_TYPES, kindOf } from "./content-types.js";

await runWorkersApp({
  canTransfer: false,
  async open(mode) {
    const server = await startServerThread(new URL("./server.js", import.meta.url), mode);
    const url = `http://127.0.0.1:${server.port}/`;
    return {
      async send(value) {
        const { kind, bytes } = encode(value);
        const response = await fetch(url, { method: "POST", body: bytes, headers: { "content-type": CONTENT_TYPES[kind] } });
        const body = new Uint8Array(await response.arrayBuffer());
        if (response.status !== 200) throw new Error(`the server answered ${response.status}: ${new TextDecoder().decode(body).slice(0, 200)}`);
        return decode(kindOf(response.headers.get("content-type")), body);
      },
      assertAlive: () => server.assertAlive(),
      close: () => server.stop(),
    };
  },
});
