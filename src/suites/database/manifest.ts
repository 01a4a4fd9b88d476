import type { App } from "../../apps/manifest.ts";
import { selectApps } from "../../apps/manifest.ts";
import type { ParamValue } from "../../core/params.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import type { Engine } from "../../tools/database-data.ts";
import type { InProcessWarmUp } from "../../tools/in-process.ts";
import type { Subject, SuiteScenario } from "../suite.ts";
import type { Workload, WorkloadParams } from "./expected.ts";

/** The `database` block of a scenario manifest (schemas/suites/database.schema.json#/$defs/config). */
export interface DatabaseConfig {
  workload: Workload;
  rows?: number;
  concurrency?: number[];
  connections?: number;
  prepare?: "once" | "each";
  engines?: Engine[];
}

/** A profile of a database scenario (schemas/suites/database.schema.json#/$defs/profile). */
export interface DatabaseProfile extends InProcessWarmUp {
  trials: number;
  iterations: number;
  ops: number;
  [key: string]: unknown;
}

export interface DatabaseOptions {
  apps: readonly string[];
  engines: readonly Engine[];
  postgresUrl: string | null;
}

/** What a database app's manifest declares beyond the common fields (schemas/suites/database.schema.json, `$defs.app`). */
export interface DatabaseAppFields {
  engine: Engine;
  /** Whether the driver prepares its statements (once per connection) rather than sending each query as text. */
  prepared_statements: boolean;
}

export type DatabaseApp = App<DatabaseAppFields>;
export type DatabaseSubject = Subject<DatabaseConfig, DatabaseProfile>;
export type DatabaseScenario = SuiteScenario<DatabaseConfig, DatabaseProfile>;
export const ENGINES: readonly Engine[] = ["sqlite", "postgres"];
export const WRITES: readonly Workload[] = ["insert-batch", "update-tx"];

export function workloadOf(scenario: DatabaseScenario): WorkloadParams {
  const { workload, rows, prepare } = scenario.config;
  return { scenario: workload, ops: scenario.profileParams.ops, rows: rows ?? 1, prepare: prepare ?? "once" };
}

/** The runtime's flags for a scenario and app: the scenario's, then the app's. */
export function flagsOf(scenario: DatabaseScenario, app: DatabaseApp, runtime: RuntimeName): string[] {
  return [...(scenario.manifest.runtimes[runtime]?.flags ?? []), ...(app.manifest.runtimes[runtime]?.flags ?? [])];
}

/** The app a subject runs. */
export function appOf(apps: readonly DatabaseApp[], subject: DatabaseSubject): DatabaseApp {
  return apps.find((app) => app.name === subject.app)!;
}

/** The apps a run measures: those the --app and --engine filters keep. */
export function appsOf(apps: readonly DatabaseApp[], options: DatabaseOptions): DatabaseApp[] {
  const engines = options.engines.length > 0 ? options.engines : ENGINES;
  return selectApps(apps, options.apps).filter((app) => engines.includes(app.manifest.engine));
}

/**
 * An app's concurrency levels, one result each, none on an engine the scenario is not for: an
 * embedded engine answers one query at a time on one connection, so concurrency is a server's.
 */
export function levelsOf(config: DatabaseConfig, engine: Engine): number[] {
  if (config.engines && !config.engines.includes(engine)) return [];
  return engine === "postgres" ? (config.concurrency ?? [1]) : [1];
}

/** A cell's load point: its engine and concurrency level, as its result records them. */
export const cellParams = (engine: Engine, concurrency: number): Record<string, ParamValue> => ({ engine, concurrency });

/** The pool a cell opens on an engine with a server: `connections`, else one connection per query in flight. */
export function poolSizeOf(subject: DatabaseSubject): number {
  return subject.scenario.config.connections ?? Number(subject.params.concurrency);
}
