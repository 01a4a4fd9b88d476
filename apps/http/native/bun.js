// Bun.serve with no framework: the baseline every framework on Bun is compared with.
import { join } from "node:path";
import { STATIC_CONTENT_TYPE } from "../shared/workload.js";
import { createHandler, notFound } from "./fetch-handler.js";

const staticDir = process.env.STATIC_DIR;

async function serveStatic(name) {
  const file = staticDir ? Bun.file(join(staticDir, name)) : null;
  if (!file || !(await file.exists())) return notFound();
  return new Response(file, { headers: { "content-type": STATIC_CONTENT_TYPE } });
}

Bun.serve({ port: Number(process.env.PORT), hostname: process.env.HOST, fetch: createHandler(serveStatic) });
