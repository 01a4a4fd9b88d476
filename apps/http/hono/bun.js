// Hono on Bun.serve.
import { join } from "node:path";
import { STATIC_CONTENT_TYPE } from "../shared/workload.js";
import { createApp } from "./app.js";

const staticDir = process.env.STATIC_DIR;

const app = createApp(async (c, name) => {
  const file = staticDir ? Bun.file(join(staticDir, name)) : null;
  if (!file || !(await file.exists())) return c.json({ error: "not found" }, 404);
  return c.body(file.stream(), 200, { "content-type": STATIC_CONTENT_TYPE, "content-length": String(file.size) });
});
Bun.serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: process.env.HOST });
