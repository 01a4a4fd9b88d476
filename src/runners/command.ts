import { join } from "node:path";
import { RUNTIMES } from "../runtimes/catalog.ts";
import type { Subject } from "./types.ts";

// Variables that would change how a runtime under test behaves if inherited from the harness.
const SCRUBBED = ["NODE_OPTIONS", "NODE_PATH", "NODE_ENV", "DENO_DIR", "BUN_OPTIONS", "npm_config_registry"];

/** The environment every runtime under test gets: the harness's, scrubbed, plus the runtime's own. */
export function runtimeEnv(subject: Subject, workDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete env[name];
  return {
    ...env,
    ...RUNTIMES[subject.runtime.identity.name].env,
    // Deno keeps its compile cache here; one per run so no earlier run's cache leaks in.
    DENO_DIR: join(workDir, `deno-dir-${subject.runtime.identity.version}`),
  };
}

/** The argv that runs `file` (relative to the scenario folder) on the subject's runtime. */
export function scriptArgv(subject: Subject, file: string): string[] {
  const definition = RUNTIMES[subject.runtime.identity.name];
  return [subject.runtime.provisioned.binary, ...definition.scriptArgs(subject.flags, file)];
}
