// Elysia on Deno through its web-standard fetch handler.
import { STATIC_CONTENT_TYPE } from "../shared/workload.js";
import { createApp } from "./app.js";

const staticDir = Deno.env.get("STATIC_DIR");

const app = createApp(async (name) => {
  try {
    const file = await Deno.open(`${staticDir}/${name}`);
    const { size } = await file.stat();
    return new Response(file.readable, { headers: { "content-type": STATIC_CONTENT_TYPE, "content-length": String(size) } });
  } catch {
    return null;
  }
});
Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: Deno.env.get("HOST"), onListen() {} }, app.fetch);
