import * as sharedData from "../../../apps/database/shared/data.js";
import { loadApps } from "../../apps/manifest.ts";
import { NoReproduction } from "../../core/errors.ts";
import type { ResultDocument } from "../../results/types.ts";
import { loadScript, SQLITE_PRAGMAS } from "../../tools/database-data.ts";
import { warmUpInput } from "../../tools/in-process.ts";
import type { InProcessReproduction } from "../suite.ts";
import { STALL_S } from "./app-run.ts";
import { flagsOf, workloadOf, type DatabaseAppFields, type DatabaseScenario } from "./manifest.ts";
import { inProcessApp } from "../in-process-app.ts";

/**
 * A database cell without the harness: an SQLite app on a database the script loads with sqlite3
 * from the script the harness loads its own with, fresh for every run as the harness restores it.
 * A PostgreSQL app needs a server, which a standalone reproduction does not start.
 */
export function databaseReproduction(scenario: DatabaseScenario, doc: ResultDocument): InProcessReproduction {
  const app = loadApps<DatabaseAppFields>("database").find((candidate) => candidate.name === doc.app);
  if (!app) throw new NoReproduction(`the database suite has no app '${doc.app}'`);
  if (app.manifest.engine !== "sqlite") {
    throw new NoReproduction(`database/${scenario.name} on ${app.name} needs a PostgreSQL server, which a standalone reproduction does not start (its SQLite apps have one)`);
  }
  const runtime = doc.runtime.name;
  const workload = workloadOf(scenario);
  return {
    ...inProcessApp(app, runtime, flagsOf(scenario, app, runtime)),
    input: {
      params: { ...workload, engine: "sqlite", connection: { file: "@WORK@/bench.sqlite", pragmas: SQLITE_PRAGMAS }, concurrency: doc.params.concurrency, stall_s: STALL_S },
      ...warmUpInput(scenario.profileParams),
      iterations: scenario.profileParams.iterations,
    },
    figure: { metric: "ops_per_s", unit: "ops/s", rate: workload.ops },
    data: { command: ["sqlite3", "@WORK@/bench.sqlite"], stdin: { file: "load.sql", contents: loadScript(sharedData, "sqlite") } },
  };
}
