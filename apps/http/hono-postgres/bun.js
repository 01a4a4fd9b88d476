// Hono on Bun.serve.
import { createApp } from "./app.js";

Bun.serve({ fetch: createApp(process.env.DATABASE_URL).fetch, port: Number(process.env.PORT), hostname: process.env.HOST });
