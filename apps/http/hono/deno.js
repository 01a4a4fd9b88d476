// Hono on Deno.serve.
import { STATIC_CONTENT_TYPE } from "../shared/workload.js";
import { createApp } from "./app.js";

const staticDir = Deno.env.get("STATIC_DIR");

const app = createApp(async (c, name) => {
  try {
    const file = await Deno.open(`${staticDir}/${name}`);
    const { size } = await file.stat();
    return c.body(file.readable, 200, { "content-type": STATIC_CONTENT_TYPE, "content-length": String(size) });
  } catch {
    return c.json({ error: "not found" }, 404);
  }
});
Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: Deno.env.get("HOST"), onListen() {} }, app.fetch);
