// Only erasable TypeScript (no enums or namespaces), so type stripping alone can run it.
interface Release {
  readonly runtime: "node" | "deno" | "bun";
  readonly version: string;
  readonly lts?: boolean;
}

type ByRuntime<T> = { [K in Release["runtime"]]: T[] };

function group<T extends Release>(releases: readonly T[]): ByRuntime<T> {
  const out: ByRuntime<T> = { node: [], deno: [], bun: [] };
  for (const release of releases) out[release.runtime].push(release);
  return out;
}

const releases = [
  { runtime: "node", version: "22.11.0", lts: true },
  { runtime: "deno", version: "2.1.4" },
  { runtime: "bun", version: "1.2.0" },
] satisfies Release[];

const grouped: ByRuntime<Release> = group(releases);
if (grouped.node.length + grouped.deno.length + grouped.bun.length === releases.length) console.log("ready" as string);
