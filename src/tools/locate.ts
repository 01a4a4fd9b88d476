import { UserError } from "../core/errors.ts";
import { runCommand } from "../process/children.ts";

const versions = new Map<string, Promise<string>>();

/**
 * The version a tool reports, which also proves it is installed. A missing tool is one line
 * naming it and how to get it.
 */
export function toolVersion(command: string, versionArgs: readonly string[], howToInstall: string): Promise<string> {
  let pending = versions.get(command);
  if (!pending) {
    pending = (async () => {
      const result = await runCommand(command, versionArgs, { timeoutMs: 30_000 });
      const text = `${result.stdout}\n${result.stderr}`;
      // Some builds print no number (Debian's GNU time says "UNKNOWN"): keep their first line then.
      const version = /\d+\.\d+(\.\d+)?/.exec(text)?.[0] ?? (result.code === 0 ? text.trim().split("\n")[0] : undefined);
      if (result.spawnError || version === undefined) {
        throw new UserError(`${command} is not installed or does not run (${howToInstall})`);
      }
      return version;
    })();
    versions.set(command, pending);
  }
  return pending;
}
