import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadApps, type App } from "../../apps/manifest.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import { RUNTIMES } from "../../runtimes/catalog.ts";
import { NPM_CI_STEP, runPrepareStep } from "../../scenarios/prepare.ts";
import { shellQuote } from "../../tools/hyperfine.ts";

/** The install suite's own fields of an app manifest (schemas/suites/install.schema.json#/$defs/app). */
export interface ManagerFields {
  /** The lockfile this manager writes and reads, in the project folder. */
  readonly lockfile: string;
  /** Arguments after the manager's entry; `{registry}` and `{cache}` are filled in. */
  readonly args: readonly string[];
  /** Settings given as environment variables, with the same placeholders. */
  readonly env: Readonly<Record<string, string>>;
  /** What else an install leaves in the project beside node_modules and the lockfile. */
  readonly project_state: readonly string[];
  /** Conditions this manager cannot match, or matches differently, recorded in every result. */
  readonly unmatched?: readonly string[];
}

/** A manager as the suite holds it: its folder, its fields, and how each runtime starts it. */
export type Manager = App<ManagerFields>;

export function loadManagers(): Manager[] {
  return loadApps<ManagerFields>("install");
}

/** The lockfiles a scenario folder commits, one per manager. */
export function committedLockfiles(scenarioDir: string, managers: readonly Manager[]): string[] {
  return managers.map((manager) => join(scenarioDir, manager.manifest.lockfile));
}

/** Installs the pinned npm, pnpm and Yarn into their app folders (bun and deno need nothing). */
export async function installManagers(managers: readonly Manager[], note: (line: string) => void): Promise<void> {
  for (const manager of managers) {
    if (existsSync(join(manager.dir, "package-lock.json"))) await runPrepareStep(manager.dir, NPM_CI_STEP, `install manager ${manager.name}`, note);
  }
}

export const STATES = ["clean", "cache", "lockfile", "cache+lockfile", "repeat"] as const;
export type InstallState = (typeof STATES)[number];

export function isState(value: string): value is InstallState {
  return (STATES as readonly string[]).includes(value);
}

/** Where one subject's install happens: all inside the run's work folder. */
export interface InstallPaths {
  readonly project: string;
  readonly cache: string;
  /** HOME, XDG folders and TMPDIR of the manager: nothing it writes there is the user's. */
  readonly home: string;
  /** Where a state's preparation moves the last install's folders (see prepareScript); deleted when the session closes. */
  readonly removed: string;
}

export function pathsIn(dir: string): InstallPaths {
  return { project: join(dir, "project"), cache: join(dir, "cache"), home: join(dir, "home"), removed: join(dir, "removed") };
}

/** The pinned version of a manager run by Node, from its folder's lockfile; bun and deno are the runtime itself. */
export function managerVersion(manager: Manager, runtimeVersion: string): string {
  const lockPath = join(manager.dir, "package-lock.json");
  if (!existsSync(lockPath)) return runtimeVersion;
  const lock = JSON.parse(readFileSync(lockPath, "utf8")) as { packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };
  const [name] = Object.keys(lock.packages[""]?.dependencies ?? {});
  return lock.packages[`node_modules/${name}`]?.version ?? "unknown";
}

function fill(text: string, values: { registry: string; cache: string }): string {
  return text.replaceAll("{registry}", values.registry).replaceAll("{cache}", values.cache);
}

// Variables that would change what a manager does if inherited from the harness's environment.
const SCRUBBED_PREFIXES = ["npm_config_", "npm_package_", "npm_lifecycle_", "YARN_", "PNPM_", "BUN_", "DENO_", "COREPACK_", "NODE_"];
const SCRUBBED = new Set(["CI", "INIT_CWD", "NPM_TOKEN", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "TMPDIR"]);
// The machine's trust settings are kept: `--registry upstream` may need them to reach the registry.
const KEPT = new Set(["NODE_EXTRA_CA_CERTS"]);
const PROXIES = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "NO_PROXY", "no_proxy"];

export interface InstallCommand {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The environment variables the suite sets (not the inherited ones), for the result. */
  readonly settings: Readonly<Record<string, string>>;
}

/**
 * The exact install command of a manager on a runtime. `egress` is where any request that is not
 * for the local registry goes (the gate, which refuses it); null when timing against the upstream.
 */
export function installCommand(
  manager: Manager,
  runtime: { name: RuntimeName; binary: string },
  registry: string,
  paths: InstallPaths,
  egress: string | null,
): InstallCommand {
  const start = manager.manifest.runtimes[runtime.name] ?? {};
  const values = { registry, cache: paths.cache };
  const args = manager.manifest.args.map((arg) => fill(arg, values));
  const flags = start.flags ?? [];
  const argv = start.entry
    ? [runtime.binary, ...RUNTIMES[runtime.name].scriptArgs(flags, join(manager.dir, start.entry)), ...args]
    : [runtime.binary, ...flags, ...args];
  const settings: Record<string, string> = {
    ...RUNTIMES[runtime.name].env,
    ...Object.fromEntries(Object.entries(manager.manifest.env).map(([name, value]) => [name, fill(value, values)])),
  };
  const isolation: Record<string, string> = {
    HOME: paths.home,
    XDG_CONFIG_HOME: join(paths.home, ".config"),
    XDG_CACHE_HOME: join(paths.home, ".cache"),
    XDG_DATA_HOME: join(paths.home, ".local/share"),
    XDG_STATE_HOME: join(paths.home, ".local/state"),
    TMPDIR: join(paths.home, "tmp"),
    DO_NOT_TRACK: "1",
    ...(egress
      ? Object.fromEntries([
          ...PROXIES.filter((name) => !/no_proxy/i.test(name)).map((name) => [name, egress]),
          ["NO_PROXY", "127.0.0.1,localhost,::1"],
          ["no_proxy", "127.0.0.1,localhost,::1"],
        ])
      : {}),
  };
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        (KEPT.has(entry[0]) || (!SCRUBBED.has(entry[0]) && !SCRUBBED_PREFIXES.some((p) => entry[0].toUpperCase().startsWith(p.toUpperCase())))) &&
        !(egress && PROXIES.includes(entry[0])),
    ),
  );
  return { argv, env: { ...inherited, ...isolation, ...settings }, settings: { ...settings, ...isolation } };
}

/** The command line as one shell-quoted string, for the result. */
export function commandLine(command: InstallCommand): string {
  const env = Object.entries(command.settings).map(([name, value]) => `${name}=${shellQuote(value)}`);
  return [...env, ...command.argv.map(shellQuote)].join(" ");
}

/**
 * The shell script that puts a subject's folders into its state before a timed install (hyperfine's
 * --prepare). It ends with `sync` so no timed install pays for writing back the previous one.
 * `warmCache` is a copy of the cache after an install from the lockfile; `lockfile` the committed one.
 *
 * The last install's folders are moved into `removed`, not deleted: allocating an inode, ext4
 * without a journal passes over each one freed in the last minute (six while its table block is
 * unwritten), a buffer lookup each, so a tree deleted before every trial made each trial create
 * its files slower than the one before (Deno's cache+lockfile install from 77 to 378 ms over 30
 * trials; docs/history.md).
 */
export function prepareScript(state: InstallState, manager: Manager, paths: InstallPaths, fixture: { packageJson: string; lockfile: string; warmCache: string }): string {
  const q = shellQuote;
  const steps: string[] = ["set -e"];
  if (state !== "repeat") {
    const projectState = manager.manifest.project_state.map((p) => q(join(paths.project, p)));
    steps.push(
      `mkdir -p ${q(paths.removed)}`,
      `gone=$(mktemp -d ${q(join(paths.removed, "XXXXXX"))})`,
      // HOME goes too: a manager that ignores the cache folder it is given keeps its cache there, and a clean install would find it warm.
      `i=0; for p in ${q(join(paths.project, "node_modules"))} ${q(join(paths.project, manager.manifest.lockfile))} ${projectState.join(" ")} ${q(paths.cache)} ${q(paths.home)}; do i=$((i+1)); if [ -e "$p" ] || [ -L "$p" ]; then mv "$p" "$gone/$i"; fi; done`,
      `mkdir -p ${q(paths.project)} ${q(join(paths.home, "tmp"))}`,
      `cp ${q(fixture.packageJson)} ${q(join(paths.project, "package.json"))}`,
    );
    if (state === "lockfile" || state === "cache+lockfile") steps.push(`cp ${q(fixture.lockfile)} ${q(join(paths.project, manager.manifest.lockfile))}`);
    if (state === "cache" || state === "cache+lockfile") steps.push(`cp -a ${q(fixture.warmCache)} ${q(paths.cache)}`);
    else steps.push(`mkdir -p ${q(paths.cache)}`);
  }
  steps.push("sync");
  return steps.join("\n");
}
