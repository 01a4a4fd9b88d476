import { identify, type IdentifiedRuntime } from "../runtimes/identify.ts";
import { provision } from "../runtimes/provision.ts";

/** What runs when no --runtime is given: the newest release of each runtime, resolved now. */
export const DEFAULT_RUNTIMES = ["node@latest", "deno@latest", "bun@latest"] as const;

/** Provisions and identifies each spec in turn, dropping repeats of the same binary. */
export async function prepareRuntimes(specs: readonly string[], note: (line: string) => void): Promise<IdentifiedRuntime[]> {
  const prepared: IdentifiedRuntime[] = [];
  for (const spec of specs) {
    const runtime = await identify(await provision(spec, note));
    const { name, version, sha256 } = runtime.identity;
    if (prepared.some((p) => p.identity.sha256 === sha256)) continue;
    note(`${name} ${version} (${runtime.identity.engine}) from ${runtime.identity.source}: ${runtime.provisioned.binary}`);
    prepared.push(runtime);
  }
  return prepared;
}
