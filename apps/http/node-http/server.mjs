// node:http with no framework on every runtime: the native app's Node server, run as is by Deno's
// and Bun's node:http layers (where their own Deno.serve and Bun.serve are the native app).
// Deno has no global Buffer in ES modules; the Node server uses it, so it is provided first.
import { Buffer } from "node:buffer";

globalThis.Buffer ??= Buffer;
await import("../native/node.mjs");
