/**
 * Writes each manager's lockfile of every install scenario (or the named ones), from one registry
 * snapshot, and keeps that snapshot as the local registry's storage for runs: run by
 * `scripts/install-lockfiles` after a fixture's package.json or a manager's version changes.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { UserError, errorMessage } from "../../core/errors.ts";
import { SUITES_DIR } from "../../core/paths.ts";
import { installInterruptHandling } from "../../process/children.ts";
import { withScratchFolder } from "../../process/scratch.ts";
import { provision } from "../../runtimes/provision.ts";
import { parseSpec } from "../../runtimes/spec.ts";
import { loadScenario, scenarioDirs } from "../../scenarios/manifest.ts";
import type { InstallConfig } from "./manifest.ts";
import { committedLockfiles, installCommand, installManagers, loadManagers, pathsIn } from "./managers.ts";
import { freshProject, installUntimed } from "./project.ts";
import { CANONICAL_REGISTRY, LocalRegistry, configuredRegistry, registryStorageDir, snapshotKey, withRegistry } from "./registry.ts";
import { readInstalledTree, treeProblem } from "./tree.ts";

const DEFAULT_RUNTIMES = ["node@22.11.0", "bun@1.2.0", "deno@2.1.4"];

async function main(argv: readonly string[]): Promise<void> {
  const scenarios: string[] = [];
  const runtimeSpecs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--scenario" && value) scenarios.push(value);
    else if (flag === "--runtime" && value) runtimeSpecs.push(value);
    else throw new UserError(`usage: scripts/install-lockfiles [--scenario NAME]... [--runtime SPEC]... (default runtimes: ${DEFAULT_RUNTIMES.join(" ")})`);
    i++;
  }
  const note = (line: string) => process.stderr.write(`install-lockfiles: ${line}\n`);
  const managers = loadManagers();
  await installManagers(managers, note);
  const binaries = new Map<string, string>();
  for (const spec of runtimeSpecs.length > 0 ? runtimeSpecs : DEFAULT_RUNTIMES) {
    binaries.set(parseSpec(spec).name, (await provision(spec, note)).binary);
  }
  const upstream = await configuredRegistry();
  const dirs = scenarioDirs("install", SUITES_DIR).filter((dir) => scenarios.length === 0 || scenarios.includes(basename(dir)));
  if (dirs.length === 0) throw new UserError(`no install scenario named ${scenarios.join(", ")}`);
  const allFailures: string[] = [];
  for (const dir of dirs) {
    const scenario = loadScenario(dir, "install");
    const packageJson = join(dir, (scenario.suiteConfig as InstallConfig).package_json);
    const { failures, target } = await withScratchFolder("lockfiles", async (work) => {
      const storage = join(work, "storage");
      const registry = await LocalRegistry.start(storage, upstream, join(work, "registry"));
      const failures: string[] = [];
      try {
        for (const manager of managers) {
          const runtimeName = Object.keys(manager.manifest.runtimes)[0] as "node" | "bun" | "deno";
          const binary = binaries.get(runtimeName);
          if (!binary) throw new UserError(`${manager.name} runs on ${runtimeName}: give a --runtime for it`);
          note(`${scenario.name}: ${manager.name} on ${runtimeName}`);
          const paths = pathsIn(join(work, manager.name));
          const emptied = await freshProject(manager, paths, packageJson, null);
          const command = installCommand(manager, { name: runtimeName, binary }, registry.url, paths, registry.gate.url);
          const error = emptied === null ? await installUntimed(command, paths.project) : null;
          const problem = emptied ?? (error ? `install failed: ${error}` : treeProblem(readInstalledTree(paths.project)));
          if (problem) {
            // The other managers' lockfiles are still worth writing; this one keeps its old lockfile, if any.
            failures.push(`${scenario.name}: ${manager.name}: ${problem}`);
            note(failures.at(-1)!);
            continue;
          }
          const written = join(paths.project, manager.manifest.lockfile);
          if (!existsSync(written)) throw new UserError(`${scenario.name}: ${manager.name} wrote no ${manager.manifest.lockfile}`);
          await writeFile(join(dir, manager.manifest.lockfile), withRegistry(await readFile(written, "utf8"), registry.url, CANONICAL_REGISTRY));
        }
      } finally {
        await registry.stop();
      }
      // The snapshot these lockfiles came from is the one runs install from.
      const target = registryStorageDir(snapshotKey(scenario.name, [packageJson, ...committedLockfiles(dir, managers)]));
      if (!existsSync(target)) {
        await mkdir(join(target, ".."), { recursive: true });
        await rename(storage, target).catch(async () => cp(storage, target, { recursive: true }));
      }
      return { failures, target };
    });
    note(`${scenario.name}: lockfiles written; registry snapshot kept in ${target}`);
    allFailures.push(...failures);
  }
  if (allFailures.length > 0) throw new UserError(`${allFailures.length} lockfile(s) not written:\n${allFailures.join("\n")}`);
}

installInterruptHandling();
main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`install-lockfiles: ${errorMessage(error)}\n`);
  process.exit(error instanceof UserError ? 2 : 1);
});
