import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** RUNTIME_BENCH_SUITES_DIR points the harness at another suites folder (tests use fixtures this way). */
export const SUITES_DIR = resolve(process.env.RUNTIME_BENCH_SUITES_DIR ?? join(REPO_ROOT, "suites"));
export const APPS_DIR = join(REPO_ROOT, "apps");
export const SCHEMAS_DIR = join(REPO_ROOT, "schemas");
export const DEFAULT_DATA_DIR = join(REPO_ROOT, "data");
/** CPU profiles of findings (`scripts/bench findings --profile`), one reproduction folder per finding; derived, so never in data/. */
export const DEFAULT_PROFILES_DIR = join(REPO_ROOT, "profiles");

/** Per-user cache shared by every clone: runtimes and built tools are downloaded once. */
export function cacheDir(): string {
  return (
    process.env.RUNTIME_BENCH_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "runtime-bench")
  );
}
