import { mkdir } from "node:fs/promises";
import { errorMessage } from "../../core/errors.ts";
import { unsupportedApp } from "../../apps/manifest.ts";
import { once } from "../../core/once.ts";
import { describeAssignment, machineAssignment } from "../../tools/cpu-split.ts";
import type { CheckOutcome } from "../suite.ts";
import { commandLine, installManagers, managerVersion, pathsIn, prepareScript, type InstallState } from "./managers.ts";
import type { InstallSubject } from "./manifest.ts";
import { prepare } from "./preparation.ts";
import { installUntimed, putInState } from "./project.ts";
import { verdaccioVersion, type LocalRegistry } from "./registry.ts";
import { commandOf, endpoint, fixtureOf, managerOf, subjectDir, upstreamUrl, type InstallSession } from "./session.ts";
import type { InstalledTree } from "./tree.ts";

/** Installs the manager, starts the registry, primes it, and puts the subject's folders in its state: the repeat state's install included. */
export async function check(session: InstallSession, subject: InstallSubject): Promise<CheckOutcome> {
  const { context } = session;
  const manager = managerOf(session, subject);
  const unsupported = unsupportedApp(manager, subject.runtime);
  if (unsupported) return { status: "unsupported", error: unsupported };
  const installError = await once(session.installs, manager.dir, async () => {
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
    local = (await endpoint(session, subject.scenario)).registry;
  } catch (error) {
    return { status: "failed", error: `the local registry did not start: ${errorMessage(error)}` };
  }
  local?.gate.setOpen(true);
  const preparation = await prepare(session, subject);
  if (preparation.error) return { status: "failed", error: preparation.error };
  if (preparation.lockedTree) {
    const byManager = session.lockedTrees.get(subject.scenario.dir) ?? new Map<string, InstalledTree>();
    byManager.set(`${manager.name} on ${subject.runtime.identity.name}@${subject.runtime.identity.version}`, preparation.lockedTree);
    session.lockedTrees.set(subject.scenario.dir, byManager);
  }
  const state = subject.params.state as InstallState;
  const paths = pathsIn(subjectDir(session, subject, state));
  const command = await commandOf(session, subject, paths);
  const script = prepareScript(state, manager, paths, fixtureOf(subject, preparation));
  if (state === "repeat") {
    // Everything present: one install from the lockfile with the warm cache, untimed.
    const setup = await putInState("cache+lockfile", manager, paths, fixtureOf(subject, preparation));
    if (setup) return { status: "failed", error: `before the repeat state: ${setup}` };
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
      registry: context.options.registry === "upstream" ? `upstream: ${await upstreamUrl(session)}` : `local: verdaccio ${verdaccioVersion()} on loopback, primed, uplink closed while timing`,
      lockfile: manager.manifest.lockfile,
      cpu_split: describeAssignment(machineAssignment(), context.options.registry === "local" ? ["installer", "registry"] : ["installer"]),
      ...(unmatched.length > 0 ? { unmatched } : {}),
    },
  };
}
