// Elysia on Bun, the runtime it is built for.
import { join } from "node:path";
import { STATIC_CONTENT_TYPE } from "../shared/workload.js";
import { createApp } from "./app.js";

const staticDir = process.env.STATIC_DIR;

const app = createApp(async (name) => {
  const file = staticDir ? Bun.file(join(staticDir, name)) : null;
  return file && (await file.exists()) ? new Response(file, { headers: { "content-type": STATIC_CONTENT_TYPE } }) : null;
});
app.listen({ port: Number(process.env.PORT), hostname: process.env.HOST });
