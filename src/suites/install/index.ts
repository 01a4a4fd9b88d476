import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UserError, errorMessage } from "../../core/errors.ts";
import { once } from "../../core/once.ts";
import { appOption, loadApps, selectApps, unsupportedApp } from "../../apps/manifest.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { runCommand, tail } from "../../process/children.ts";
import { NPM_CI_STEP, runPrepareStep } from "../../scenarios/prepare.ts";
import { cpusOf, describeAssignment, machineAssignment, pinned, TASKSET_TOOL } from "../../tools/cpu-split.ts";
import { GNU_TIME, GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { HYPERFINE_TOOL, runHyperfine } from "../../tools/hyperfine.ts";
import { TrialFailure, defineSuite, type Subject, type SuiteScenario } from "../suite.ts";
import {
  STATES,
  commandLine,
  installCommand,
  managerVersion,
  pathsIn,
  prepareScript,
  type InstallCommand,
  type InstallPaths,
  type InstallState,
  type Manager,
  type ManagerFields,
} from "./managers.ts";
import { CANONICAL_REGISTRY, LocalRegistry, configuredRegistry, registryStorageDir, snapshotKey, verdaccioVersion, withRegistry } from "./registry.ts";
import { folderSize, readInstalledTree, treeDifference, treeProblem, type InstalledTree } from "./tree.ts";

/** The `install` block of a scenario manifest (schemas/suites/install.schema.json#/$defs/config). */
export interface InstallConfig {
  package_json: string;
}

/** A profile of an install scenario (schemas/suites/install.schema.json#/$defs/profile). */
export interface InstallProfile {
  trials: number;
  runs: number;
  states: InstallState[];
  [key: string]: unknown;
}

export interface InstallOptions {
  readonly apps: readonly string[];
  /** "local": a verdaccio on loopback, primed before timing; "upstream": the registry npm is configured with. */
  readonly registry: "local" | "upstream";
}

type InstallSubject = Subject<InstallConfig, InstallProfile>;
type InstallScenario = SuiteScenario<InstallConfig, InstallProfile>;

const INSTALL_TIMEOUT_MS = 15 * 60_000;

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

/** Empties a subject's folders and puts the fixture's package.json (and, if given, a lockfile) in the project. */
export async function freshProject(manager: Manager, paths: InstallPaths, packageJson: string, lockfile: string | null): Promise<void> {
  await rm(paths.project, { recursive: true, force: true });
  await rm(paths.cache, { recursive: true, force: true });
  await mkdir(paths.project, { recursive: true });
  await mkdir(paths.cache, { recursive: true });
  await mkdir(join(paths.home, "tmp"), { recursive: true });
  await writeFile(join(paths.project, "package.json"), await readFile(packageJson));
  if (lockfile) await writeFile(join(paths.project, manager.manifest.lockfile), await readFile(lockfile));
}

/** A scenario's cells on a runtime, one result each: every manager that runs there, in every state of the profile. */
function cellsOf(scenario: InstallScenario, runtime: RuntimeName, managers: readonly Manager[], apps: readonly string[]): { manager: Manager; state: InstallState }[] {
  const chosen = selectApps(managers, apps).filter((manager) => manager.manifest.runtimes[runtime]);
  return chosen.flatMap((manager) => scenario.profileParams.states.map((state) => ({ manager, state })));
}

/** The packages of a fixture, from its committed npm lockfile (none when it has none yet: its cells then fail at once). */
function lockedPackages(scenario: InstallScenario): number {
  const lockfile = join(scenario.dir, "package-lock.json");
  if (!existsSync(lockfile)) return 0;
  const lock = JSON.parse(readFileSync(lockfile, "utf8")) as { packages?: Record<string, unknown> };
  return Object.keys(lock.packages ?? {}).filter((path) => path !== "").length;
}

/**
 * One install of a fixture: a manager's start, then a cost per package that depends on the
 * state, for a manager written in JavaScript and run by Node (npm, pnpm, Yarn) and for one built
 * into its runtime (bun, deno). Fitted to the medians of a quick run of `small` (77 packages) on
 * the shared 2-core machine: `repeat`, which installs nothing, gives the start. The install
 * suite's earlier figures (a busier machine; docs/measurements.json, "install-quick") made an estimate 31 % above that run's 272 s; these are the
 * run's own, and `webapp` (553 packages) is extrapolated from them.
 */
const START_S = { script: 1, builtin: 0.07 };
const PACKAGE_S: Record<InstallState, { script: number; builtin: number }> = {
  clean: { script: 0.037, builtin: 0.014 },
  cache: { script: 0.026, builtin: 0.0033 },
  lockfile: { script: 0.029, builtin: 0.012 },
  "cache+lockfile": { script: 0.017, builtin: 0.0009 },
  repeat: { script: 0.001, builtin: 0 },
};
/**
 * Around each timed install: hyperfine, the state's preparation (removing the last tree, copying
 * the warm cache, sync), reading the tree back. What that run left per timed install once its
 * installs, priming and the harness's start were taken out.
 */
const TIMED_INSTALL_S = 1.2;

/** What one manager on one runtime needs before its states can be timed, made once per scenario. */
interface Preparation {
  readonly error: string | null;
  /** The committed lockfile with this run's registry address in it. */
  readonly lockfile: string;
  /** The cache after an install from the lockfile into an empty cache. */
  readonly warmCache: string;
  /** The tree an install from the lockfile leaves (the reference for differences between managers). */
  readonly lockedTree: InstalledTree | null;
}

/**
 * Package installs by npm, pnpm and Yarn (run by the Node under test), bun install and deno
 * install, each in five named states prepared outside the timed region, against a local verdaccio
 * primed before timing. Every timed install is verified; a broken tree fails the subject.
 */
export const installSuite = defineSuite<InstallConfig, InstallProfile, InstallOptions>({
  name: "install",
  metrics: {
    wall_ms: { unit: "ms", better: "lower" },
    peak_rss_mb: { unit: "MB", better: "lower" },
    /** User plus system CPU seconds of the install, its children included. */
    cpu_s: { unit: "s", better: "lower" },
  },
  profiles: {
    quick: { trials: 3, runs: 1, states: [...STATES] },
    full: { trials: 3, runs: 1, states: [...STATES] },
  },
  tools: [HYPERFINE_TOOL, GNU_TIME_TOOL, TASKSET_TOOL],
  options: {
    app: appOption("install"),
    registry: { help: "install: 'local' (default: a verdaccio on loopback, primed before timing) or 'upstream' (the registry npm is configured with)" },
  },
  // Each runtime's own manager on the small fixture: pnpm, Yarn and webapp are measured by `run` and the profiles.
  defaultRun: { scenarios: ["small"], options: { app: ["npm", "bun", "deno"] } },
  parseOptions(raw) {
    const registry = raw.registry ?? [];
    if (registry.length > 1) throw new UserError("--registry may be given once");
    const chosen = registry[0] ?? "local";
    if (chosen !== "local" && chosen !== "upstream") throw new UserError(`--registry must be 'local' or 'upstream', not '${chosen}'`);
    return { apps: raw.app ?? [], registry: chosen };
  },

  async prepare(note) {
    await installManagers(loadManagers(), note);
  },

  estimate(scenario, runtime, options) {
    const { trials, runs } = scenario.profileParams;
    const packages = lockedPackages(scenario);
    const installS = (manager: Manager, state: InstallState) => {
      const kind = manager.manifest.runtimes[runtime]?.entry === undefined ? "builtin" : "script";
      return START_S[kind] + packages * PACKAGE_S[state][kind];
    };
    const cells = cellsOf(scenario, runtime, loadManagers(), options.apps);
    // Before its states, each manager primes the registry with two untimed installs (no lockfile, then the lockfile); `repeat` installs once more untimed.
    const managers = new Set(cells.map((cell) => cell.manager));
    const primingS = [...managers].reduce((sum, manager) => sum + installS(manager, "clean") + installS(manager, "lockfile"), 0);
    const cellS = ({ manager, state }: (typeof cells)[number]) =>
      (state === "repeat" ? installS(manager, "cache+lockfile") : 0) + trials * runs * (TIMED_INSTALL_S + installS(manager, state));
    return { cells: cells.length, seconds: primingS + cells.reduce((sum, cell) => sum + cellS(cell), 0) };
  },

  listApps() {
    return loadManagers().map((manager) => ({ name: manager.name, runtimes: Object.keys(manager.manifest.runtimes) }));
  },

  start(context) {
    const managers = loadManagers();
    const managerOf = (subject: InstallSubject) => managers.find((m) => m.name === subject.app)!;
    const root = join(context.workDir, "install");
    const installs = new Map<string, Promise<string | null>>();
    const preparations = new Map<string, Promise<Preparation>>();
    const trees = new Map<InstallSubject, InstalledTree>();
    const lockedTrees = new Map<string, Map<string, InstalledTree>>();
    let upstream: Promise<string> | null = null;
    // One local registry at a time: the one of the scenario being measured.
    let registry: { scenarioDir: string; running: Promise<LocalRegistry> } | null = null;

    const upstreamUrl = () => (upstream ??= configuredRegistry());

    async function registryFor(scenario: InstallScenario): Promise<LocalRegistry> {
      if (registry?.scenarioDir !== scenario.dir) {
        const previous = registry;
        const files = [join(scenario.dir, scenario.config.package_json), ...committedLockfiles(scenario.dir, managers)];
        registry = {
          scenarioDir: scenario.dir,
          running: (async () => {
            if (previous) await (await previous.running.catch(() => null))?.stop();
            const storage = registryStorageDir(snapshotKey(scenario.name, files));
            context.log(`install/${scenario.name}: local registry (storage ${storage})`);
            return LocalRegistry.start(storage, await upstreamUrl(), join(root, "registry", scenario.name), pinned(cpusOf(machineAssignment(), "registry")));
          })(),
        };
      }
      return registry.running;
    }

    /** The address the managers install from, and where their other requests go (null: nowhere is blocked). */
    async function endpoint(scenario: InstallScenario): Promise<{ url: string; egress: string | null; registry: LocalRegistry | null }> {
      if (context.options.registry === "upstream") return { url: await upstreamUrl(), egress: null, registry: null };
      const local = await registryFor(scenario);
      return { url: local.url, egress: local.gate.url, registry: local };
    }

    const subjectDir = (subject: InstallSubject, what: string) =>
      join(root, subject.scenario.name, `${subject.runtime.identity.name}-${subject.runtime.identity.version}`, subject.app!, what);
    const commandOf = async (subject: InstallSubject, paths: InstallPaths) => {
      const { url, egress } = await endpoint(subject.scenario);
      const runtime = { name: subject.runtime.identity.name, binary: subject.runtime.provisioned.binary };
      return installCommand(managerOf(subject), runtime, url, paths, egress);
    };

    /**
     * Primes the registry with everything this manager fetches for the scenario (an install with no
     * lockfile, then one from the committed lockfile, both into empty caches) and keeps the second
     * one's cache as the warm cache of the cache states.
     */
    function prepare(subject: InstallSubject): Promise<Preparation> {
      const manager = managerOf(subject);
      const key = [subject.scenario.dir, subject.runtime.identity.sha256, manager.name].join("\0");
      return once(preparations, key, async () => {
        const base = join(root, subject.scenario.name, `${subject.runtime.identity.name}-${subject.runtime.identity.version}`, manager.name);
        const lockfile = join(base, "staged", manager.manifest.lockfile);
        const warmCache = join(base, "warm-cache");
        const packageJson = join(subject.scenario.dir, subject.scenario.config.package_json);
        const committed = join(subject.scenario.dir, manager.manifest.lockfile);
        const fail = (error: string): Preparation => ({ error, lockfile, warmCache, lockedTree: null });
        if (!existsSync(committed)) return fail(`no committed ${manager.manifest.lockfile} in ${subject.scenario.name}: run scripts/install-lockfiles`);
        const { url } = await endpoint(subject.scenario);
        await mkdir(join(base, "staged"), { recursive: true });
        await writeFile(lockfile, withRegistry(await readFile(committed, "utf8"), CANONICAL_REGISTRY, url));
        for (const [step, staged] of [["with no lockfile", null], ["from the lockfile", lockfile]] as const) {
          const paths = pathsIn(join(base, "priming"));
          await freshProject(manager, paths, packageJson, staged);
          const command = await commandOf(subject, paths);
          const error = await installUntimed(command, paths.project);
          if (error) return fail(`priming install ${step} failed: ${error}`);
          const tree = readInstalledTree(paths.project);
          const problem = treeProblem(tree);
          if (problem) return fail(`priming install ${step}: ${problem}`);
          if (staged) {
            await rm(warmCache, { recursive: true, force: true });
            await rename(paths.cache, warmCache);
            await rm(paths.project, { recursive: true, force: true });
            return { error: null, lockfile, warmCache, lockedTree: tree };
          }
        }
        return fail("unreachable");
      });
    }

    function fixtureOf(subject: InstallSubject, preparation: Preparation) {
      return { packageJson: join(subject.scenario.dir, subject.scenario.config.package_json), lockfile: preparation.lockfile, warmCache: preparation.warmCache };
    }

    return {
      subjects(scenario: InstallScenario, runtime: IdentifiedRuntime) {
        const states = scenario.profileParams.states;
        if (states.length === 0) {
          context.log(`install/${scenario.name}: no states in the ${context.profile} profile, left out`);
          return [];
        }
        return cellsOf(scenario, runtime.identity.name, managers, context.options.apps).map(({ manager, state }) => ({
          scenario,
          runtime,
          app: manager.name,
          params: { state, registry: context.options.registry },
          flags: [],
        }));
      },

      async check(subject) {
        const manager = managerOf(subject);
        const unsupported = unsupportedApp(manager, subject.runtime);
        if (unsupported) return { status: "unsupported", error: unsupported };
        const installError = await once(installs, manager.dir, async () => {
          try {
            await installManagers([manager], context.log);
            return null;
          } catch (error) {
            return errorMessage(error);
          }
        });
        if (installError) return { status: "failed", error: installError };
        let local: LocalRegistry | null;
        try {
          local = (await endpoint(subject.scenario)).registry;
        } catch (error) {
          return { status: "failed", error: `the local registry did not start: ${errorMessage(error)}` };
        }
        local?.gate.setOpen(true);
        const preparation = await prepare(subject);
        if (preparation.error) return { status: "failed", error: preparation.error };
        if (preparation.lockedTree) {
          const byManager = lockedTrees.get(subject.scenario.dir) ?? new Map<string, InstalledTree>();
          byManager.set(`${manager.name} on ${subject.runtime.identity.name}@${subject.runtime.identity.version}`, preparation.lockedTree);
          lockedTrees.set(subject.scenario.dir, byManager);
        }
        const state = subject.params.state as InstallState;
        const paths = pathsIn(subjectDir(subject, state));
        const command = await commandOf(subject, paths);
        const script = prepareScript(state, manager, paths, fixtureOf(subject, preparation));
        if (state === "repeat") {
          // Everything present: one install from the lockfile with the warm cache, untimed.
          const setup = await runCommand("/bin/sh", ["-c", prepareScript("cache+lockfile", manager, paths, fixtureOf(subject, preparation))], { timeoutMs: INSTALL_TIMEOUT_MS });
          if (setup.code !== 0) return { status: "failed", error: `preparing the repeat state failed: ${tail(setup.stderr, 3)}` };
          const error = await installUntimed(command, paths.project);
          if (error) return { status: "failed", error: `the install before the repeat state failed: ${error}` };
        } else {
          await mkdir(paths.project, { recursive: true });
        }
        const unmatched = manager.manifest.unmatched ?? [];
        return {
          status: "ok",
          details: {
            manager: manager.name,
            manager_version: managerVersion(manager, subject.runtime.identity.version),
            command: commandLine(command),
            prepare: script,
            registry: context.options.registry === "upstream" ? `upstream: ${await upstreamUrl()}` : `local: verdaccio ${verdaccioVersion()} on loopback, primed, uplink closed while timing`,
            lockfile: manager.manifest.lockfile,
            cpu_split: describeAssignment(machineAssignment(), context.options.registry === "local" ? ["installer", "registry"] : ["installer"]),
            ...(unmatched.length > 0 ? { unmatched } : {}),
          },
        };
      },

      async trial(subject, trialIndex) {
        const manager = managerOf(subject);
        const state = subject.params.state as InstallState;
        const preparation = await prepare(subject);
        const paths = pathsIn(subjectDir(subject, state));
        const { registry: local } = await endpoint(subject.scenario);
        local?.gate.setOpen(false);
        const command = await commandOf(subject, paths);
        const script = prepareScript(state, manager, paths, fixtureOf(subject, preparation));
        const wall: number[] = [];
        const rss: number[] = [];
        const cpu: number[] = [];
        let tree: InstalledTree | null = null;
        let size = { mb: 0, files: 0 };
        for (let run = 0; run < subject.scenario.profileParams.runs; run++) {
          const name = `${subject.scenario.name}-${subject.runtime.identity.name}-${manager.name}-${state.replace("+", "-")}-${trialIndex}-${run}`;
          const rssFile = join(root, `${name}.rss`);
          const stdoutFile = join(root, `${name}.out`);
          const refusedBefore = local?.gate.refused ?? 0;
          const timed = await runHyperfine({
            argv: [...pinned(cpusOf(machineAssignment(), "installer")), GNU_TIME, "-f", "%M", "-o", rssFile, ...command.argv],
            cwd: paths.project,
            env: command.env,
            warmup: 0,
            runs: 1,
            prepare: ["/bin/sh", "-c", script],
            stdoutFile,
            exportDir: root,
            name,
          });
          if (!timed.ok) {
            const said = tail(await readFile(stdoutFile, "utf8").catch(() => ""), 6);
            throw new TrialFailure(`install failed: ${timed.error}${said ? `\n${said}` : ""}`);
          }
          const refused = (local?.gate.refused ?? 0) - refusedBefore;
          if (refused > 0) throw new TrialFailure(`a timed install sent ${refused} request(s) beyond loopback (refused by the gate)`);
          if (local?.exited) throw new TrialFailure(`the local registry ${local.exited}`);
          tree = readInstalledTree(paths.project);
          const problem = treeProblem(tree);
          if (problem) throw new TrialFailure(`install exited 0 but left a ${problem}`, { packages: tree.packages.length });
          size = folderSize(join(paths.project, "node_modules"));
          wall.push(...timed.wallMs);
          cpu.push(timed.cpuS);
          const kib = Number((await readFile(rssFile, "utf8")).trim().split("\n").pop());
          rss.push((kib * 1024) / 1e6);
        }
        if (tree) trees.set(subject, tree);
        return {
          samples: { wall_ms: wall, peak_rss_mb: rss, cpu_s: cpu },
          details: {
            packages: tree?.packages.length,
            node_modules_mb: size.mb,
            node_modules_files: size.files,
            ...(local ? { requests_beyond_loopback: local.gate.refused } : {}),
          },
        };
      },

      async finish(subject) {
        const manager = managerOf(subject);
        const tree = trees.get(subject);
        const details: Record<string, unknown> = {};
        if (tree) {
          const differences: Record<string, unknown> = {};
          for (const [other, otherTree] of lockedTrees.get(subject.scenario.dir) ?? []) {
            const difference = treeDifference(tree, otherTree);
            if (difference.only_here.length + difference.only_there.length > 0) differences[other] = difference;
          }
          details.tree_differences = differences;
        }
        const version = managerVersion(manager, subject.runtime.identity.version);
        return { details, tools: { verdaccio: verdaccioVersion(), [manager.name]: version } };
      },

      async close() {
        const running = registry;
        registry = null;
        await (await running?.running.catch(() => null))?.stop();
      },
    };
  },
});
