import { benchmarkedVersions } from "../results/store.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";

/** runner → runtime → the versions that have at least one result file (ok, failed or unsupported). */
export type Benchmarked = ReadonlyMap<string, ReadonlyMap<RuntimeName, ReadonlySet<string>>>;

/** Reads file names only, never contents: data/ only grows. */
export function findBenchmarked(dataDir: string, runners: readonly string[]): Benchmarked {
  return new Map(runners.map((runner) => [runner, benchmarkedVersions(dataDir, runner)]));
}
