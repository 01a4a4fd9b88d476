// Deno.serve with no framework: the baseline every framework on Deno is compared with.
import { STATIC_CONTENT_TYPE } from "../shared/workload.js";
import { createHandler, notFound } from "./fetch-handler.js";

const staticDir = Deno.env.get("STATIC_DIR");

async function serveStatic(name) {
  if (!staticDir) return notFound();
  try {
    const file = await Deno.open(`${staticDir}/${name}`);
    const { size } = await file.stat();
    return new Response(file.readable, { headers: { "content-type": STATIC_CONTENT_TYPE, "content-length": String(size) } });
  } catch {
    return notFound();
  }
}

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: Deno.env.get("HOST"), onListen() {} }, createHandler(serveStatic));
