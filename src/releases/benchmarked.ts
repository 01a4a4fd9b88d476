import { benchmarkedVersions } from "../results/store.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";

/** runner → runtime → the versions that have at least one result file (ok, failed or unsupported). */
export type Benchmarked = ReadonlyMap<string, ReadonlyMap<RuntimeName, ReadonlySet<string>>>;

/**
 * Reads file names only, never contents (data/ only grows). A pool member (`scenariosOf` gives its
 * scenarios, `suite/name`) counts a version only where it has a result in one of them: a member that
 * ran other suites before joining the pool still lacks the version for its own.
 */
export function findBenchmarked(dataDir: string, runners: readonly string[], scenariosOf: (runner: string) => readonly string[] | null = () => null): Benchmarked {
  return new Map(runners.map((runner) => [runner, benchmarkedVersions(dataDir, runner, scenariosOf(runner) ?? undefined)]));
}
