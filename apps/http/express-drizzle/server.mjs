// Express with the Drizzle ORM over pg, the same file on Node, Deno and Bun: express-pg with the
// SQL written by an ORM, so the two differ only in the ORM.
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import express from "express";
import pg from "pg";
import { expressApp } from "../shared/express-api.js";
import { PAGE_SIZE, POOL_SIZE } from "../shared/postgres-api.js";

const users = pgTable("users", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull(),
  created_at: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  score: integer("score").notNull(),
});
const fortune = pgTable("fortune", { id: integer("id").primaryKey(), message: text("message").notNull() });

const orm = drizzle(new pg.Pool({ connectionString: process.env.DATABASE_URL, max: POOL_SIZE }));
const id = sql.placeholder("id");
const fields = { name: sql.placeholder("name"), email: sql.placeholder("email"), score: sql.placeholder("score") };
// Prepared statements, named like express-pg's, so both prepare once per connection.
const prepared = {
  list: orm.select().from(users).orderBy(users.id).limit(PAGE_SIZE).offset(sql.placeholder("offset")).prepare("list"),
  get: orm.select().from(users).where(eq(users.id, id)).prepare("get"),
  // The harness gives `id` a sequence; milliseconds as in postgres-api.js.
  create: orm.insert(users).values({ ...fields, created_at: sql`date_trunc('milliseconds', now())` }).returning().prepare("create"),
  update: orm.update(users).set(fields).where(eq(users.id, id)).returning().prepare("update"),
  remove: orm.delete(users).where(eq(users.id, id)).prepare("remove"),
  fortunes: orm.select().from(fortune).prepare("fortunes"),
};
const placeholders = {
  list: ([offset]) => ({ offset }),
  get: ([id]) => ({ id }),
  create: ([name, email, score]) => ({ name, email, score }),
  update: ([name, email, score, id]) => ({ name, email, score, id }),
  remove: ([id]) => ({ id }),
  fortunes: () => ({}),
};
const db = {
  async query(name, values) {
    const result = await prepared[name].execute(placeholders[name](values));
    return Array.isArray(result) ? result : (result.rows ?? []);
  },
};

expressApp(express, db).listen(Number(process.env.PORT), process.env.HOST);
