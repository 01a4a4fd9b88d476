import { UserError } from "../core/errors.ts";
import { identify, type IdentifiedRuntime } from "../runtimes/identify.ts";
import { provision } from "../runtimes/provision.ts";
import { parseSpec } from "../runtimes/spec.ts";

/** What runs when no --runtime is given: the newest release of each runtime, resolved now. */
export const DEFAULT_RUNTIMES = ["node@latest", "deno@latest", "bun@latest"] as const;

/** A subject's label: what result file names and `compare --base/--head` call it. */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `base=node@22.11.0` → label `base`, spec `node@22.11.0`; a spec without `LABEL=` has no label of its own. */
export function splitLabel(text: string): { label: string | null; spec: string } {
  const equals = text.indexOf("=");
  const at = text.indexOf("@");
  if (equals < 0 || (at >= 0 && at < equals)) return { label: null, spec: text };
  const label = text.slice(0, equals);
  if (!LABEL.test(label)) throw new UserError(`'${text}': a label before '=' takes letters, digits, '.', '_' and '-', and starts with a letter or digit`);
  return { label, spec: text.slice(equals + 1) };
}

/**
 * A label for each subject: the one given, else `node-22.11.0`, with the first 8 hex digits of the
 * binary's sha256 appended when another subject has the same runtime and version, so two builds of
 * one version never share a result file.
 */
function labelled(runtimes: readonly { runtime: IdentifiedRuntime; label: string | null }[]): IdentifiedRuntime[] {
  // A canary's version may hold build metadata (`2.1.4+abc123`): kept, anything a file name cannot hold is not.
  const derived = (r: IdentifiedRuntime) => `${r.identity.name}-${r.identity.version}`.replace(/[^A-Za-z0-9._+-]/g, "_");
  const shared = (r: IdentifiedRuntime) => runtimes.filter((o) => derived(o.runtime) === derived(r)).length > 1;
  const result = runtimes.map(({ runtime, label }) => ({
    ...runtime,
    label: label ?? (shared(runtime) ? `${derived(runtime)}-${runtime.identity.sha256.slice(0, 8)}` : derived(runtime)),
  }));
  const seen = new Set<string>();
  for (const { label, identity } of result) {
    if (seen.has(label)) throw new UserError(`two runtimes are labelled '${label}' (the second is ${identity.spec}): give each its own LABEL=SPEC`);
    seen.add(label);
  }
  return result;
}

/**
 * Provisions and identifies each spec in turn. The same binary (sha256) twice among `specs` is bad
 * input, refused before anything is measured: its two results would be one build measured twice
 * under two names. A sentinel that repeats a measured binary is dropped: it is measured anyway.
 */
export async function prepareRuntimes(specs: readonly string[], note: (line: string) => void, sentinel?: string | null): Promise<IdentifiedRuntime[]> {
  const prepared: { runtime: IdentifiedRuntime; label: string | null }[] = [];
  const texts = [...specs, ...(sentinel ? [sentinel] : [])];
  // Every spec read before the first is provisioned: a misspelt sentinel was found after downloading the rest.
  for (const text of texts) parseSpec(splitLabel(text).spec);
  for (const text of texts) {
    const { label, spec } = splitLabel(text);
    const runtime = await identify(await provision(spec, note));
    const { name, version, sha256 } = runtime.identity;
    const twin = prepared.find((p) => p.runtime.identity.sha256 === sha256);
    if (twin && text === sentinel) continue;
    if (twin) throw new UserError(`${spec} and ${twin.runtime.identity.spec} are the same binary (sha256 ${sha256.slice(0, 12)}…): measuring it twice would compare it with itself`);
    note(`${name} ${version} (${runtime.identity.engine}) from ${runtime.identity.source}: ${runtime.provisioned.binary}`);
    prepared.push({ runtime, label });
  }
  return labelled(prepared);
}
