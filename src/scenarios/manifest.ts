import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { UserError, errorMessage } from "../core/errors.ts";
import { REPO_ROOT, SUITES_DIR } from "../core/paths.ts";
import { checkAgainst } from "../results/schema.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import type { Better, Profile } from "../results/types.ts";

export const MANIFEST_FILE = "scenario.json";

export interface RuntimeSupport {
  min_version?: string;
  flags?: string[];
}

export interface MetricDefinition {
  unit: string;
  better: Better;
}

export interface ProfileParams {
  trials: number;
  [key: string]: unknown;
}

export interface ScenarioManifest {
  description: string;
  version: number;
  runtimes: Partial<Record<RuntimeName, RuntimeSupport>>;
  metrics: Record<string, MetricDefinition>;
  profiles: Record<Profile, ProfileParams>;
  prepare?: { command: string[]; creates: string };
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

/** What a suite contributes to checking its manifests: the schemas of its own block and profile. */
export interface SuiteSchemas {
  readonly config: object;
  readonly profile: object;
}

export function displayPath(path: string): string {
  const rel = relative(REPO_ROOT, path);
  return rel.startsWith("..") ? path : rel;
}

export function readJsonFile(path: string): unknown {
  const text = readFileSync(path, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(`${displayPath(path)}: not valid JSON: ${errorMessage(error)}`);
  }
}

export function loadScenario(dir: string, suite: string, schemas: SuiteSchemas): Scenario {
  const manifestPath = join(dir, MANIFEST_FILE);
  const where = displayPath(manifestPath);
  if (!existsSync(manifestPath)) throw new UserError(`${where}: missing (every scenario folder needs one)`);
  const raw = readJsonFile(manifestPath);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserError(`${where}: must be a JSON object`);
  const { [suite]: suiteConfig, ...common } = raw as Record<string, unknown>;
  const problems = checkAgainst("scenario.schema.json", common);
  if (suiteConfig === undefined) problems.push(`/${suite}: missing (the ${suite} suite's settings)`);
  else problems.push(...checkAgainst(schemas.config, suiteConfig, `/${suite}`));
  const profiles = (common as { profiles?: Record<string, unknown> }).profiles ?? {};
  for (const [name, params] of Object.entries(profiles)) {
    if (typeof params === "object" && params !== null) problems.push(...checkAgainst(schemas.profile, params, `/profiles/${name}`));
  }
  if (problems.length > 0) throw new UserError(`${where}: ${problems.join("; ")}`);
  const name = dir.split("/").pop()!;
  return { suite, name, dir, manifestPath, manifest: common as unknown as ScenarioManifest, suiteConfig };
}

/** Scenario folders of one suite, in name order. */
export function scenarioDirs(suite: string, suitesDir = SUITES_DIR): string[] {
  const suiteDir = join(suitesDir, suite);
  return readdirSync(suiteDir)
    .filter((entry) => !entry.startsWith(".") && statSync(join(suiteDir, entry)).isDirectory())
    .sort()
    .map((entry) => join(suiteDir, entry));
}

export function suiteNames(suitesDir = SUITES_DIR): string[] {
  return readdirSync(suitesDir)
    .filter((entry) => statSync(join(suitesDir, entry)).isDirectory())
    .sort();
}
