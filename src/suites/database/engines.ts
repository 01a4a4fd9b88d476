import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import * as sharedData from "../../../apps/database/shared/data.js";
import { errorMessage, UserError } from "../../core/errors.ts";
import { OnDemand } from "../../core/on-demand.ts";
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

/** A run's databases: each made on first use, the PostgreSQL one again after its server died; none once the session closed. */
export interface Engines {
  readonly context: SuiteContext<DatabaseOptions>;
  readonly split: CpuAssignment;
  readonly sqlite: OnDemand<BenchDatabase>;
  readonly postgres: OnDemand<PostgresEngine>;
  postgresStarts: number;
}

/** The run's engines before the first subject makes one. */
export function noEngines(context: SuiteContext<DatabaseOptions>, split: CpuAssignment): Engines {
  const engines: Engines = {
    context,
    split,
    sqlite: new OnDemand("the database suite's SQLite database", async () => {
      const dir = join(context.workDir, "sqlite");
      await mkdir(dir, { recursive: true });
      return createSqliteDatabase(sharedData, dir);
    }),
    postgres: new OnDemand("the database suite's PostgreSQL", () => startPostgresEngine(engines)),
    postgresStarts: 0,
  };
  return engines;
}

/** The run's PostgreSQL: started (or connected to) on first use, and again after it died. */
export function postgresEngine(engines: Engines): Promise<PostgresEngine> {
  return engines.postgres.get();
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
  return engine === "sqlite" ? engines.sqlite.get() : (await postgresEngine(engines)).database;
}

/** A server that died takes its cell with it; the next subject starts a new one. */
export async function forgetDeadServer(engines: Engines, reason: string): Promise<void> {
  await (await engines.postgres.forget())?.server.stop();
  engines.context.log(`${reason}; the next PostgreSQL subject starts a new server`);
}

export async function closeEngines(engines: Engines): Promise<void> {
  for (const pending of [engines.sqlite.close(), engines.postgres.close()]) {
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
