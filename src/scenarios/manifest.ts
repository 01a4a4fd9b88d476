import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import type { ParamValue } from "../core/params.ts";
import { displayPath, readJsonFile } from "../core/json-file.ts";
import { SCHEMAS_DIR, SUITES_DIR } from "../core/paths.ts";
import { checkAgainst } from "../core/schema.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import type { MetricDefinition, SuiteProfile } from "../results/types.ts";

export const MANIFEST_FILE = "scenario.json";

export interface RuntimeSupport {
  min_version?: string;
  flags?: string[];
}

export interface ProfileParams {
  trials: number;
  [key: string]: unknown;
}

export interface ScenarioManifest {
  description: string;
  version: number;
  runtimes: Partial<Record<RuntimeName, RuntimeSupport>>;
  /** Narrows the suite's metrics to these, with their unit or direction overridden where given. */
  metrics?: Record<string, Partial<MetricDefinition>>;
  /** Overrides of the suite's default profiles, key by key. */
  profiles?: Partial<Record<SuiteProfile, Partial<ProfileParams>>>;
  prepare?: { command: string[]; creates: string };
  /** The load point the overview draws, as some of the scenario's parameters. */
  headline?: Record<string, ParamValue>;
}

/** A scenario folder, its checked manifest, and the suite's own block of it. */
export interface Scenario {
  readonly suite: string;
  readonly name: string;
  readonly dir: string;
  readonly manifestPath: string;
  readonly manifest: ScenarioManifest;
  readonly suiteConfig: unknown;
}

/** A scenario with what its suite adds: the metrics it records and both profiles, resolved (what the site shows). */
export interface DescribedScenario {
  readonly scenario: Scenario;
  readonly metrics: Readonly<Record<string, MetricDefinition>>;
  readonly profiles: Readonly<Record<SuiteProfile, ProfileParams>>;
}

/** The schemas of a suite's own settings, found by convention: `schemas/suites/<suite>.schema.json`. */
export interface SuiteSchemas {
  readonly config: object;
  readonly profile: object;
  /** The suite's own fields of an app manifest, where the suite has apps. */
  readonly app?: object;
}

const schemasBySuite = new Map<string, SuiteSchemas>();

export function suiteSchemas(suite: string): SuiteSchemas {
  let schemas = schemasBySuite.get(suite);
  if (!schemas) {
    const path = join(SCHEMAS_DIR, "suites", `${suite}.schema.json`);
    if (!existsSync(path)) throw new UserError(`${displayPath(path)}: missing (every suite needs the schema of its settings)`);
    const file = readJsonFile(path) as { $defs: Record<string, object> };
    const { config, profile, app } = file.$defs;
    if (!config || !profile) throw new UserError(`${displayPath(path)}: needs $defs.config and $defs.profile`);
    // The config may refer to its siblings ("#/$defs/request"), so it carries them along.
    schemas = { config: { ...config, $defs: file.$defs }, profile, ...(app ? { app: { ...app, $defs: file.$defs } } : {}) };
    schemasBySuite.set(suite, schemas);
  }
  return schemas;
}

/** Reads and checks a scenario's manifest: the common fields, and the suite's block by the suite's schema. */
export function loadScenario(dir: string, suite: string): Scenario {
  const manifestPath = join(dir, MANIFEST_FILE);
  const where = displayPath(manifestPath);
  if (!existsSync(manifestPath)) throw new UserError(`${where}: missing (every scenario folder needs one)`);
  const raw = readJsonFile(manifestPath);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserError(`${where}: must be a JSON object`);
  const { [suite]: suiteConfig, ...common } = raw as Record<string, unknown>;
  const problems = checkAgainst("scenario.schema.json", common);
  if (suiteConfig === undefined) problems.push(`/${suite}: missing (the ${suite} suite's settings)`);
  else problems.push(...checkAgainst(suiteSchemas(suite).config, suiteConfig, `/${suite}`));
  if (problems.length > 0) throw new UserError(`${where}: ${problems.join("; ")}`);
  const name = dir.split("/").pop()!;
  return { suite, name, dir, manifestPath, manifest: common as unknown as ScenarioManifest, suiteConfig };
}

function subfolders(suite: string, suitesDir: string): string[] {
  const suiteDir = join(suitesDir, suite);
  return readdirSync(suiteDir)
    .filter((entry) => !entry.startsWith(".") && statSync(join(suiteDir, entry)).isDirectory())
    .sort()
    .map((entry) => join(suiteDir, entry));
}

/**
 * Scenario folders of one suite, in name order. A folder with no manifest is passed over: after
 * switching branches a folder may hold only ignored leftovers (node_modules, generated files), and
 * that must not stop every command. `strayFolders` names them, for the commands to warn about.
 */
export function scenarioDirs(suite: string, suitesDir = SUITES_DIR): string[] {
  return subfolders(suite, suitesDir).filter((d) => existsSync(join(d, MANIFEST_FILE)));
}

/** The warnings for folders in suites/ that are not scenarios, since they have no manifest. */
export function strayFolders(suitesDir = SUITES_DIR): string[] {
  return suiteNames(suitesDir)
    .flatMap((suite) => subfolders(suite, suitesDir).filter((d) => !existsSync(join(d, MANIFEST_FILE))))
    .map((dir) => `${displayPath(dir)}: no ${MANIFEST_FILE}, so not a scenario (leftovers of another branch? remove the folder)`);
}

export function suiteNames(suitesDir = SUITES_DIR): string[] {
  return readdirSync(suitesDir)
    .filter((entry) => statSync(join(suitesDir, entry)).isDirectory())
    .sort();
}
