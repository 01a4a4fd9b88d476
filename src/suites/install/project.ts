import { runCommand, tail } from "../../process/children.ts";
import { prepareScript, type InstallCommand, type InstallPaths, type InstallState, type Manager } from "./managers.ts";

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

/** Puts a subject's folders in `state` by the script a timed trial's --prepare runs (prepareScript). Returns what went wrong, or null. */
export async function putInState(state: InstallState, manager: Manager, paths: InstallPaths, fixture: Parameters<typeof prepareScript>[3]): Promise<string | null> {
  const result = await runCommand("/bin/sh", ["-c", prepareScript(state, manager, paths, fixture)], { timeoutMs: INSTALL_TIMEOUT_MS });
  return result.code === 0 ? null : `preparing the ${state} state in ${paths.project} failed: ${tail(result.stderr, 3)}`;
}

/**
 * The state a clean install starts from, or with `lockfile` one from a lockfile: priming and
 * writing lockfiles empty what a timed trial empties.
 */
export function freshProject(manager: Manager, paths: InstallPaths, packageJson: string, lockfile: string | null): Promise<string | null> {
  return putInState(lockfile === null ? "clean" : "lockfile", manager, paths, { packageJson, lockfile: lockfile ?? "", warmCache: "" });
}
