import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { UserError } from "../core/errors.ts";
import { APPS_DIR } from "../core/paths.ts";
import { checkAgainst } from "../results/schema.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import { displayPath, readJsonFile } from "../scenarios/manifest.ts";

export const APP_MANIFEST = "app.json";

export interface AppRuntime {
  readonly entry: string;
  readonly flags?: readonly string[];
}

export interface AppManifest {
  readonly description: string;
  readonly processes: number;
  readonly runtimes: Partial<Record<RuntimeName, AppRuntime>>;
}

/** An app folder with its checked manifest. */
export interface HttpApp {
  readonly name: string;
  readonly dir: string;
  readonly manifest: AppManifest;
}

/**
 * Where the apps live: apps/http, or RUNTIME_BENCH_APPS_DIR (tests point it at fixtures, so a
 * deliberately broken app is never part of a default run).
 */
export function appsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.RUNTIME_BENCH_APPS_DIR ? resolve(env.RUNTIME_BENCH_APPS_DIR) : join(APPS_DIR, "http");
}

export function loadApp(dir: string): HttpApp {
  const manifestPath = join(dir, APP_MANIFEST);
  const where = displayPath(manifestPath);
  const raw = readJsonFile(manifestPath);
  const problems = checkAgainst("app.schema.json", raw);
  if (problems.length > 0) throw new UserError(`${where}: ${problems.join("; ")}`);
  const manifest = raw as AppManifest;
  for (const [runtime, start] of Object.entries(manifest.runtimes)) {
    if (!existsSync(join(dir, start.entry))) throw new UserError(`${where}: /runtimes/${runtime}/entry: no file '${start.entry}' in ${displayPath(dir)}`);
  }
  return { name: dir.split("/").pop()!, dir, manifest };
}

/** Every folder with an app.json, in name order (shared code sits in folders without one). */
export function loadApps(dir = appsDir()): HttpApp[] {
  if (!existsSync(dir)) throw new UserError(`${displayPath(dir)}: no such apps folder`);
  return readdirSync(dir)
    .filter((entry) => !entry.startsWith(".") && statSync(join(dir, entry)).isDirectory() && existsSync(join(dir, entry, APP_MANIFEST)))
    .sort()
    .map((entry) => loadApp(join(dir, entry)));
}

/** The chosen apps; a name that is not an app is a UserError. */
export function selectApps(apps: readonly HttpApp[], wanted: readonly string[]): HttpApp[] {
  const unknown = wanted.find((name) => !apps.some((app) => app.name === name));
  if (unknown !== undefined) throw new UserError(`unknown app '${unknown}': apps are ${apps.map((a) => a.name).join(", ")}`);
  return wanted.length === 0 ? [...apps] : apps.filter((app) => wanted.includes(app.name));
}

/** The pinned version of each direct dependency, from the app's lockfile: what the result records. */
export function dependencyVersions(app: HttpApp): Record<string, string> {
  const lockPath = join(app.dir, "package-lock.json");
  if (!existsSync(lockPath)) return {};
  const lock = readJsonFile(lockPath) as { packages?: Record<string, { version?: string; dependencies?: Record<string, string> }> };
  const direct = Object.keys(lock.packages?.[""]?.dependencies ?? {});
  return Object.fromEntries(direct.map((name) => [name, lock.packages?.[`node_modules/${name}`]?.version ?? "unknown"]));
}
