import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { isRuntimeName, type RuntimeName } from "../runtimes/catalog.ts";

/** runner → runtime → the versions that have at least one result file (ok, failed or unsupported). */
export type Benchmarked = ReadonlyMap<string, ReadonlyMap<RuntimeName, ReadonlySet<string>>>;

/**
 * `node-22.11.0--app--params.json` → node, 22.11.0. Runtime names hold no dash and `--` only
 * separates the app and the params, so the file name alone says which version it measured.
 */
export function runtimeOfResultFile(file: string): { runtime: RuntimeName; version: string } | null {
  if (!file.endsWith(".json")) return null;
  const head = file.slice(0, -".json".length).split("--")[0]!;
  const dash = head.indexOf("-");
  const runtime = head.slice(0, dash);
  const version = head.slice(dash + 1);
  return dash > 0 && version && isRuntimeName(runtime) ? { runtime, version } : null;
}

async function entries(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Reads file names only (`data/<runner>/<run>/<suite>/<scenario>/<file>`), never contents: data/ only grows. */
export async function findBenchmarked(dataDir: string, runners: readonly string[]): Promise<Benchmarked> {
  const found = new Map<string, Map<RuntimeName, Set<string>>>();
  for (const runner of runners) {
    const byRuntime = new Map<RuntimeName, Set<string>>();
    found.set(runner, byRuntime);
    const walk = async (dir: string, depth: number): Promise<void> => {
      for (const entry of await entries(dir)) {
        if (entry.isDirectory() && depth < 3) await walk(join(dir, entry.name), depth + 1);
        if (!entry.isFile() || depth !== 3) continue;
        const measured = runtimeOfResultFile(entry.name);
        if (!measured) continue;
        const versions = byRuntime.get(measured.runtime) ?? new Set<string>();
        versions.add(measured.version);
        byRuntime.set(measured.runtime, versions);
      }
    };
    await walk(join(dataDir, runner), 0);
  }
  return found;
}
