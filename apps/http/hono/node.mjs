// Hono on Node through its node:http adapter.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { STATIC_CONTENT_TYPE } from "../shared/workload.js";
import { createApp } from "./app.js";

const staticDir = process.env.STATIC_DIR;

const app = createApp(async (c, name) => {
  const content = staticDir ? await readFile(join(staticDir, name)).catch(() => null) : null;
  return content ? c.body(content, 200, { "content-type": STATIC_CONTENT_TYPE }) : c.json({ error: "not found" }, 404);
});
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: process.env.HOST });
