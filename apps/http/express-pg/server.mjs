// Express with pg, the same file on Node, Deno and Bun: StaticBlock's "JavaScript Runtime
// Performance 2026" API and fortunes over PostgreSQL.
import express from "express";
import pg from "pg";
import { expressApp } from "../shared/express-api.js";
import { POOL_SIZE, STATEMENTS } from "../shared/postgres-api.js";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: POOL_SIZE });
// A named query is prepared once per connection.
const db = { query: async (name, values) => (await pool.query({ name, text: STATEMENTS[name], values })).rows };

expressApp(express, db).listen(Number(process.env.PORT), process.env.HOST);
