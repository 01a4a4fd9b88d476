import { benchmarkedVersions, layoutResultFiles, readResultFile } from "../results/store.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";

/** runner → runtime → the versions that have at least one result file (ok, failed or unsupported). */
export type Benchmarked = ReadonlyMap<string, ReadonlyMap<RuntimeName, ReadonlySet<string>>>;

/**
 * Reads file names only, never contents (data/ only grows), for a machine that runs every suite. A
 * pool member (`scenariosOf` gives its scenarios, `suite/name`) counts a version only where it has
 * a result in one of them: a member that ran other suites before joining the pool still lacks the
 * version for its own. The scenario is read from the documents: only the results store knows the layout.
 */
export function findBenchmarked(dataDir: string, runners: readonly string[], scenariosOf: (runner: string) => readonly string[] | null = () => null): Benchmarked {
  return new Map(
    runners.map((runner) => {
      const scenarios = scenariosOf(runner);
      if (scenarios === null) return [runner, benchmarkedVersions(dataDir, runner)];
      const byRuntime = new Map<RuntimeName, Set<string>>();
      for (const doc of layoutResultFiles(dataDir, runner).map(readResultFile)) {
        if (!scenarios.includes(`${doc.suite}/${doc.scenario}`)) continue;
        const versions = byRuntime.get(doc.runtime.name) ?? new Set<string>();
        versions.add(doc.runtime.version);
        byRuntime.set(doc.runtime.name, versions);
      }
      return [runner, byRuntime];
    }),
  );
}
