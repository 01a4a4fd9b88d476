import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand, tail } from "../../process/children.ts";
import type { InstallCommand, InstallPaths, Manager } from "./managers.ts";

export const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** Runs one install untimed, for priming, checking and the lockfile script; the error names the manager's last words. */
export async function installUntimed(command: InstallCommand, cwd: string): Promise<string | null> {
  const [binary, ...args] = command.argv;
  const result = await runCommand(binary!, args, { cwd, env: command.env, timeoutMs: INSTALL_TIMEOUT_MS });
  if (result.code === 0) return null;
  const why = result.timedOut ? "timed out" : result.spawnError ?? `exit code ${result.code ?? result.signal}`;
  const output = `${result.stdout}\n${result.stderr}`.trim();
  // A panic's backtrace buries the message: keep the first error line ahead of the tail.
  const first = /^.*\berror\b.*$/im.exec(output)?.[0];
  const last = tail(output, 6);
  return `${why}: ${first && !last.includes(first) ? `${first.trim()} … ` : ""}${last}`;
}

/** Empties a subject's folders (HOME too) and puts the fixture's package.json (and, if given, a lockfile) in the project. */
export async function freshProject(manager: Manager, paths: InstallPaths, packageJson: string, lockfile: string | null): Promise<void> {
  await rm(paths.project, { recursive: true, force: true });
  await rm(paths.cache, { recursive: true, force: true });
  await rm(paths.home, { recursive: true, force: true });
  await mkdir(paths.project, { recursive: true });
  await mkdir(paths.cache, { recursive: true });
  await mkdir(join(paths.home, "tmp"), { recursive: true });
  await writeFile(join(paths.project, "package.json"), await readFile(packageJson));
  if (lockfile) await writeFile(join(paths.project, manager.manifest.lockfile), await readFile(lockfile));
}
