import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { UserError, errorMessage } from "../core/errors.ts";
import { displayPath, readJsonFile } from "../core/json-file.ts";
import { APPS_DIR } from "../core/paths.ts";
import { checkAgainst } from "../core/schema.ts";
import semver from "semver";
import type { RuntimeName } from "../runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../runtimes/identify.ts";
import { suiteSchemas } from "../scenarios/manifest.ts";
import { NPM_CI_STEP, runPrepareStep, type PrepareStep } from "../scenarios/prepare.ts";

export const APP_MANIFEST = "app.json";

export interface AppRuntime {
  /** Absent where the runtime's own binary is the program (a package manager built into it). */
  readonly entry?: string;
  readonly flags?: readonly string[];
  readonly min_version?: string;
  readonly min_version_reason?: string;
}

/** The fields every app manifest has; a suite adds its own (checked by its schema's `$defs.app`). */
export interface AppManifest {
  readonly description: string;
  readonly runtimes: Partial<Record<RuntimeName, AppRuntime>>;
}

/** An app folder with its checked manifest. */
export interface App<Extra = unknown> {
  readonly name: string;
  readonly dir: string;
  readonly manifest: AppManifest & Extra;
}

const COMMON_FIELDS = new Set(["$schema", "description", "runtimes"]);

/**
 * Where the apps live: apps/, or RUNTIME_BENCH_APPS_DIR (tests point it at fixtures, so a
 * deliberately broken app is never part of a default run).
 */
export function appsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.RUNTIME_BENCH_APPS_DIR ? resolve(env.RUNTIME_BENCH_APPS_DIR) : APPS_DIR;
}

/** Where a suite's apps live: its folder of the apps' root. */
export function appsDir(suite: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(appsRoot(env), suite);
}

export function loadApp<Extra>(dir: string, suite: string): App<Extra> {
  const manifestPath = join(dir, APP_MANIFEST);
  const where = displayPath(manifestPath);
  const raw = readJsonFile(manifestPath);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserError(`${where}: must be a JSON object`);
  const common = Object.fromEntries(Object.entries(raw).filter(([key]) => COMMON_FIELDS.has(key)));
  const own = Object.fromEntries(Object.entries(raw).filter(([key]) => !COMMON_FIELDS.has(key)));
  const problems = checkAgainst("app.schema.json", common);
  const ownSchema = suiteSchemas(suite).app;
  if (ownSchema) problems.push(...checkAgainst(ownSchema, own));
  else problems.push(...Object.keys(own).map((key) => `/${key}: not a field of a ${suite} app`));
  if (problems.length > 0) throw new UserError(`${where}: ${problems.join("; ")}`);
  const manifest = raw as AppManifest & Extra;
  for (const [runtime, start] of Object.entries(manifest.runtimes)) {
    if (start.entry !== undefined && !existsSync(join(dir, start.entry))) throw new UserError(`${where}: /runtimes/${runtime}/entry: no file '${start.entry}' in ${displayPath(dir)}`);
  }
  return { name: dir.split("/").pop()!, dir, manifest };
}

/** The file an app runs on a runtime; an app that names none there (a built-in manager) is a UserError. */
export function entryFile(app: App, runtime: RuntimeName): string {
  const entry = app.manifest.runtimes[runtime]?.entry;
  if (entry === undefined) throw new UserError(`${displayPath(join(app.dir, APP_MANIFEST))}: /runtimes/${runtime}: names no entry file`);
  return entry;
}

/** What `list` shows of a suite's apps: each one's name and the runtimes its manifest names. */
export function listingOf(apps: readonly App[]): { name: string; runtimes: string[] }[] {
  return apps.map((app) => ({ name: app.name, runtimes: Object.keys(app.manifest.runtimes) }));
}

/** Every folder with an app.json, in name order (shared code sits in folders without one). */
export function loadApps<Extra>(suite: string, dir = appsDir(suite)): App<Extra>[] {
  if (!existsSync(dir)) throw new UserError(`${displayPath(dir)}: no such apps folder`);
  return readdirSync(dir)
    .filter((entry) => !entry.startsWith(".") && statSync(join(dir, entry)).isDirectory() && existsSync(join(dir, entry, APP_MANIFEST)))
    .sort()
    .map((entry) => loadApp<Extra>(join(dir, entry), suite));
}

/**
 * The apps an `--app` filter keeps: all of them when it names none. Names of other suites' apps
 * are not this suite's concern (the run command rejects a name no chosen suite has).
 */
export function selectApps<A extends App>(apps: readonly A[], wanted: readonly string[]): A[] {
  return wanted.length === 0 ? [...apps] : apps.filter((app) => wanted.includes(app.name));
}

/** Why an app cannot run on a runtime (not listed in its manifest, or older than its `min_version`), or null when it can. */
export function unsupportedApp(app: App, runtime: IdentifiedRuntime): string | null {
  const { name, version } = runtime.identity;
  const start = app.manifest.runtimes[name];
  if (!start) return `app ${app.name} does not run on ${name}`;
  const comparable = semver.coerce(version)?.version;
  if (start.min_version && comparable && semver.lt(comparable, start.min_version)) {
    const why = start.min_version_reason ? `: ${start.min_version_reason}` : "";
    return `app ${app.name} needs ${name} >= ${start.min_version}${why}`;
  }
  return null;
}

/**
 * Installs an app's locked npm packages (once: a folder already installed is left as it is), then
 * any further steps it needs (a build). A failure is the app's only: its message, or null.
 */
export async function installApp(app: App, suite: string, note: (line: string) => void, steps: readonly PrepareStep[] = []): Promise<string | null> {
  try {
    if (Object.keys(dependencyVersions(app)).length > 0) await runPrepareStep(app.dir, NPM_CI_STEP, `${suite} app ${app.name}`, note);
    for (const step of steps) await runPrepareStep(app.dir, step, `${suite} app ${app.name}`, note);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

/** The pinned version of each direct dependency, from the app's lockfile: what the result records. */
export function dependencyVersions(app: App): Record<string, string> {
  const lockPath = join(app.dir, "package-lock.json");
  if (!existsSync(lockPath)) return {};
  const lock = readJsonFile(lockPath) as { packages?: Record<string, { version?: string; dependencies?: Record<string, string> }> };
  const direct = Object.keys(lock.packages?.[""]?.dependencies ?? {});
  return Object.fromEntries(direct.map((name) => [name, lock.packages?.[`node_modules/${name}`]?.version ?? "unknown"]));
}

/** The `--app` option of a suite that has apps (a SuiteOption, typed by its shape: apps/ sits below suites/). */
export function appOption(suite: string): { readonly help: string; values(): string[] } {
  return {
    help: "an app of a suite that has apps, e.g. http's native (repeatable); default: every app",
    values: () => loadApps(suite).map((app) => app.name),
  };
}

/** A suite's typed `--app` values. */
export function appsOption(raw: Readonly<Record<string, readonly string[]>>): { apps: readonly string[] } {
  return { apps: raw.app ?? [] };
}
