// Hono on Deno.serve.
import { createApp } from "./app.js";

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: Deno.env.get("HOST"), onListen() {} }, createApp(Deno.env.get("DATABASE_URL")).fetch);
