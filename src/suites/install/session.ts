import { join } from "node:path";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { countedScenario, type SuiteContext } from "../suite.ts";
import { countedIn, INSTALL_COUNT_METRICS } from "./counts.ts";
import { cpusOf, machineAssignment, pinned } from "../../tools/cpu-split.ts";
import { installCommand, committedLockfiles, loadManagers, type InstallPaths, type Manager } from "./managers.ts";
import { removeTrees, settleSeconds } from "./freed-inodes.ts";
import { cellsOf, type InstallOptions, type InstallScenario, type InstallSubject } from "./manifest.ts";
import type { Preparation } from "./preparation.ts";
import { configuredRegistry, LocalRegistry, registryStorageDir, snapshotKey } from "./registry.ts";
import type { InstalledTree } from "./tree.ts";

/** What a run's hooks share: the managers, the registry installs come from, and what each subject's installs left. */
export interface InstallSession {
  readonly context: SuiteContext<InstallOptions>;
  readonly managers: readonly Manager[];
  /** The run's install folder, inside its work folder. */
  readonly root: string;
  /** Each manager's own install (npm ci in its folder), by folder. */
  readonly installs: Map<string, Promise<string | null>>;
  /** Each manager's preparation on a runtime for a scenario, by scenario, runtime and manager. */
  readonly preparations: Map<string, Promise<Preparation>>;
  /** The tree a subject's last timed install left. */
  readonly trees: Map<InstallSubject, InstalledTree>;
  /** By scenario folder, the tree each manager on each runtime installs from the lockfile. */
  readonly lockedTrees: Map<string, Map<string, InstalledTree>>;
  upstream: Promise<string> | null;
  /** One local registry at a time: the one of the scenario being measured. */
  registry: { scenarioDir: string; running: Promise<LocalRegistry> } | null;
  /**
   * Set by closeSession: a check still under way when an interrupt closed the session must not
   * start a registry again, in the work folder the interrupt's save is removing.
   */
  closed: boolean;
  /** How long after the last session deleted its trees the first timed install waits (freed-inodes.ts). */
  readonly settleS: number;
}

export function openSession(context: SuiteContext<InstallOptions>): InstallSession {
  return {
    context,
    managers: loadManagers(),
    root: join(context.workDir, "install"),
    installs: new Map(),
    preparations: new Map(),
    trees: new Map(),
    lockedTrees: new Map(),
    upstream: null,
    registry: null,
    closed: false,
    settleS: settleSeconds(),
  };
}

export function subjects(session: InstallSession, scenario: InstallScenario, runtime: IdentifiedRuntime): InstallSubject[] {
  const { context } = session;
  if (scenario.profileParams.states.length === 0) {
    context.log(`install/${scenario.name}: no states in the ${context.profile} profile, left out`);
    return [];
  }
  return cellsOf(scenario, runtime.identity.name, session.managers, context.options).map(({ manager, state, params }) => ({
    scenario: countedScenario(scenario, INSTALL_COUNT_METRICS, countedIn(scenario, state)),
    runtime,
    app: manager.name,
    params,
    flags: [],
  }));
}

export function managerOf(session: InstallSession, subject: InstallSubject): Manager {
  return session.managers.find((m) => m.name === subject.app)!;
}

export function upstreamUrl(session: InstallSession): Promise<string> {
  return (session.upstream ??= configuredRegistry());
}

function registryFor(session: InstallSession, scenario: InstallScenario): Promise<LocalRegistry> {
  if (session.closed) return Promise.reject(new Error(`install/${scenario.name}: the install session is closed, so no registry starts`));
  if (session.registry?.scenarioDir !== scenario.dir) {
    const previous = session.registry;
    const files = [join(scenario.dir, scenario.config.package_json), ...committedLockfiles(scenario.dir, session.managers)];
    session.registry = {
      scenarioDir: scenario.dir,
      running: (async () => {
        if (previous) await (await previous.running.catch(() => null))?.stop();
        const storage = registryStorageDir(snapshotKey(scenario.name, files));
        session.context.log(`install/${scenario.name}: local registry (storage ${storage})`);
        return LocalRegistry.start(storage, await upstreamUrl(session), join(session.root, "registry", scenario.name), pinned(cpusOf(machineAssignment(), "registry")));
      })(),
    };
  }
  return session.registry.running;
}

/** The address the managers install from, and where their other requests go (null: nowhere is blocked). */
export async function endpoint(session: InstallSession, scenario: InstallScenario): Promise<{ url: string; egress: string | null; registry: LocalRegistry | null }> {
  if (session.context.options.registry === "upstream") return { url: await upstreamUrl(session), egress: null, registry: null };
  const local = await registryFor(session, scenario);
  return { url: local.url, egress: local.gate.url, registry: local };
}

/** The folder of a subject's manager on its runtime for its scenario. */
export function managerDir(session: InstallSession, subject: InstallSubject): string {
  return join(session.root, subject.scenario.name, `${subject.runtime.identity.name}-${subject.runtime.identity.version}`, subject.app!);
}

export function subjectDir(session: InstallSession, subject: InstallSubject, what: string): string {
  return join(managerDir(session, subject), what);
}

export async function commandOf(session: InstallSession, subject: InstallSubject, paths: InstallPaths) {
  const { url, egress } = await endpoint(session, subject.scenario);
  const runtime = { name: subject.runtime.identity.name, binary: subject.runtime.provisioned.binary };
  return installCommand(managerOf(session, subject), runtime, url, paths, egress);
}

export function fixtureOf(subject: InstallSubject, preparation: Preparation) {
  return { packageJson: join(subject.scenario.dir, subject.scenario.config.package_json), lockfile: preparation.lockfile, warmCache: preparation.warmCache };
}

export async function closeSession(session: InstallSession): Promise<void> {
  session.closed = true;
  const running = session.registry;
  session.registry = null;
  await (await running?.running.catch(() => null))?.stop();
  await removeTrees(session.root);
}
