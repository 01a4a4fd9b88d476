import { join } from "node:path";
import { RUNTIMES } from "./catalog.ts";
import { emulatedArgv } from "./emulation.ts";
import type { IdentifiedRuntime } from "./identify.ts";

// Variables that would change how a runtime under test behaves if inherited from the harness.
const SCRUBBED = ["NODE_OPTIONS", "NODE_PATH", "NODE_ENV", "DENO_DIR", "BUN_OPTIONS", "npm_config_registry"];

/** The environment every runtime under test gets: the harness's, scrubbed, plus the runtime's own. */
export function runtimeEnv(runtime: IdentifiedRuntime, workDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete env[name];
  return {
    ...env,
    ...RUNTIMES[runtime.identity.name].env,
    ...runtime.emulation?.env,
    // Deno keeps its compile cache here; one per run so no earlier run's cache leaks in.
    DENO_DIR: join(workDir, `deno-dir-${runtime.identity.version}`),
  };
}

/** The folder a runtime keeps its own caches in under `env` (runtimeEnv's), where it has one. */
export function cacheDirs(runtime: IdentifiedRuntime, env: NodeJS.ProcessEnv | undefined): string[] {
  const variable = RUNTIMES[runtime.identity.name].cacheDirVariable;
  const dir = variable === undefined ? undefined : env?.[variable];
  return dir === undefined ? [] : [dir];
}

/** The argv that runs `file` (relative to the working folder) on a runtime with these flags. */
export function scriptArgv(runtime: IdentifiedRuntime, flags: readonly string[], file: string): string[] {
  const definition = RUNTIMES[runtime.identity.name];
  return emulatedArgv(runtime.emulation, [runtime.provisioned.binary, ...definition.scriptArgs(flags, file)]);
}
