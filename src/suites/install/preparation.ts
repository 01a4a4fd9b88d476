import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { once } from "../../core/once.ts";
import { pathsIn } from "./managers.ts";
import type { InstallSubject } from "./manifest.ts";
import { freshProject, installUntimed } from "./project.ts";
import { CANONICAL_REGISTRY, withRegistry } from "./registry.ts";
import { commandOf, endpoint, managerDir, managerOf, type InstallSession } from "./session.ts";
import { readInstalledTree, treeProblem, type InstalledTree } from "./tree.ts";

/** What one manager on one runtime needs before its states can be timed, made once per scenario. */
export interface Preparation {
  readonly error: string | null;
  /** The committed lockfile with this run's registry address in it. */
  readonly lockfile: string;
  /** The cache after an install from the lockfile into an empty cache. */
  readonly warmCache: string;
  /** The tree an install from the lockfile leaves (the reference for differences between managers). */
  readonly lockedTree: InstalledTree | null;
}

/**
 * Primes the registry with everything this manager fetches for the scenario (an install with no
 * lockfile, then one from the committed lockfile, both into empty caches) and keeps the second
 * one's cache as the warm cache of the cache states.
 */
export function prepare(session: InstallSession, subject: InstallSubject): Promise<Preparation> {
  const manager = managerOf(session, subject);
  const key = [subject.scenario.dir, subject.runtime.identity.sha256, manager.name].join("\0");
  return once(session.preparations, key, async () => {
    const base = managerDir(session, subject);
    const lockfile = join(base, "staged", manager.manifest.lockfile);
    const warmCache = join(base, "warm-cache");
    const packageJson = join(subject.scenario.dir, subject.scenario.config.package_json);
    const committed = join(subject.scenario.dir, manager.manifest.lockfile);
    const fail = (error: string): Preparation => ({ error, lockfile, warmCache, lockedTree: null });
    if (!existsSync(committed)) return fail(`no committed ${manager.manifest.lockfile} in ${subject.scenario.name}: run scripts/install-lockfiles`);
    const { url } = await endpoint(session, subject.scenario);
    await mkdir(join(base, "staged"), { recursive: true });
    await writeFile(lockfile, withRegistry(await readFile(committed, "utf8"), CANONICAL_REGISTRY, url));
    for (const [step, staged] of [["with no lockfile", null], ["from the lockfile", lockfile]] as const) {
      const paths = pathsIn(join(base, "priming"));
      const emptied = await freshProject(manager, paths, packageJson, staged);
      if (emptied) return fail(`priming install ${step}: ${emptied}`);
      const command = await commandOf(session, subject, paths);
      const error = await installUntimed(command, paths.project);
      if (error) return fail(`priming install ${step} failed: ${error}`);
      const tree = readInstalledTree(paths.project);
      const problem = treeProblem(tree);
      if (problem) return fail(`priming install ${step}: ${problem}`);
      if (staged) {
        if ((await readdir(paths.cache)).length === 0) return fail(`${manager.name} left nothing in the cache folder it was given (${paths.cache}): its cache is elsewhere, so no state of the cache can be set up`);
        await rm(warmCache, { recursive: true, force: true });
        await rename(paths.cache, warmCache);
        // The priming project stays until the session closes: deleted now, it would slow the first trials' installs (see prepareScript).
        return { error: null, lockfile, warmCache, lockedTree: tree };
      }
    }
    return fail("unreachable");
  });
}
