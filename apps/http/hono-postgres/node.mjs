// Hono on Node through its node:http adapter.
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";

serve({ fetch: createApp(process.env.DATABASE_URL).fetch, port: Number(process.env.PORT), hostname: process.env.HOST });
