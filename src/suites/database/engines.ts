import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import * as sharedData from "../../../apps/database/shared/data.js";
import { errorMessage, UserError } from "../../core/errors.ts";
import { cpusOf, type CpuAssignment } from "../../tools/cpu-split.ts";
import { createPostgresDatabase, createSqliteDatabase, type BenchDatabase, type Engine } from "../../tools/database-data.ts";
import { connectPostgres, PostgresFailure, startPostgres, type PostgresServer } from "../../tools/postgres.ts";
import type { SuiteContext } from "../suite.ts";
import type { DatabaseOptions } from "./manifest.ts";

/** One PostgreSQL server for the run, with the benchmark database loaded; replaced if it dies. */
export interface PostgresEngine {
  readonly server: PostgresServer;
  readonly database: BenchDatabase;
}

/** A run's databases: each made on first use, the PostgreSQL one again after its server died. */
export interface Engines {
  readonly context: SuiteContext<DatabaseOptions>;
  readonly split: CpuAssignment;
  sqlite: Promise<BenchDatabase> | null;
  postgres: Promise<PostgresEngine> | null;
  postgresStarts: number;
}

/** The run's engines before the first subject makes one. */
export function noEngines(context: SuiteContext<DatabaseOptions>, split: CpuAssignment): Engines {
  return { context, split, sqlite: null, postgres: null, postgresStarts: 0 };
}

function sqliteDatabase(engines: Engines): Promise<BenchDatabase> {
  engines.sqlite ??= (async () => {
    const dir = join(engines.context.workDir, "sqlite");
    await mkdir(dir, { recursive: true });
    return createSqliteDatabase(sharedData, dir);
  })();
  return engines.sqlite;
}

/** The run's PostgreSQL: started (or connected to) on first use, and again after it died. */
export function postgresEngine(engines: Engines): Promise<PostgresEngine> {
  engines.postgres ??= startPostgresEngine(engines);
  return engines.postgres;
}

async function startPostgresEngine(engines: Engines): Promise<PostgresEngine> {
  const { context } = engines;
  engines.postgresStarts += 1;
  let server: PostgresServer;
  if (context.options.postgresUrl !== null) {
    server = await connectPostgres(context.options.postgresUrl);
  } else {
    try {
      server = await startPostgres({ dir: join(context.workDir, `postgres-${engines.postgresStarts}`), cpus: cpusOf(engines.split, "database") });
    } catch (error) {
      if (error instanceof PostgresFailure) throw new UserError(error.message);
      throw error;
    }
    context.log(`PostgreSQL ${server.version} started${engines.postgresStarts > 1 ? " again" : ""} for the database suite`);
  }
  // On a server of the user's, a name of this run's own, removed at the end.
  const name = server.startedByHarness ? "runtime_bench" : `runtime_bench_${process.pid}`;
  try {
    return { server, database: await createPostgresDatabase(sharedData, server, context.workDir, name) };
  } catch (error) {
    await server.stop();
    throw new UserError(`PostgreSQL at ${server.url(server.maintenanceDatabase)}: could not load the benchmark database: ${errorMessage(error)}`);
  }
}

export async function databaseOf(engines: Engines, engine: Engine): Promise<BenchDatabase> {
  return engine === "sqlite" ? sqliteDatabase(engines) : (await postgresEngine(engines)).database;
}

/** A server that died takes its cell with it; the next subject starts a new one. */
export async function forgetDeadServer(engines: Engines, reason: string): Promise<void> {
  const dead = engines.postgres;
  engines.postgres = null;
  await (await dead)?.server.stop();
  engines.context.log(`${reason}; the next PostgreSQL subject starts a new server`);
}

export async function closeEngines(engines: Engines): Promise<void> {
  const running = [engines.sqlite, engines.postgres];
  engines.sqlite = null;
  engines.postgres = null;
  for (const pending of running) {
    const engine = await pending?.catch(() => null);
    if (engine === null || engine === undefined) continue;
    if ("server" in engine) {
      // A server of the user's keeps running: the databases made on it go. One the harness started goes whole.
      if (!engine.server.startedByHarness) await engine.database.drop().catch(() => {});
      await engine.server.stop();
    } else {
      await engine.drop();
    }
  }
}
