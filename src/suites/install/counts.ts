import { join } from "node:path";
import { runCommand, tail } from "../../process/children.ts";
import type { MetricDefinition } from "../../results/types.ts";
import { cpusOf, machineAssignment, pinned } from "../../tools/cpu-split.ts";
import { filesChangedSince, fileSystemNow } from "../../tools/sizes.ts";
import { countRuns, emulatedCounts, runCounted, splitScheduling, sumCalls, syscallProfile, type SplitCounts } from "../../tools/strace.ts";
import { countedMetrics, TrialFailure, type CountOutput, type SuiteScenario } from "../suite.ts";
import { pathsIn, prepareScript, type InstallState } from "./managers.ts";
import type { InstallSubject } from "./manifest.ts";
import { prepare } from "./preparation.ts";
import { commandOf, endpoint, fixtureOf, managerOf, subjectDir, type InstallSession } from "./session.ts";
import { readInstalledTree, treeProblem } from "./tree.ts";

/**
 * An install's system calls (the manager and every process it starts; scheduling calls apart),
 * and the files it wrote: created or changed in the project, the cache and the manager's home
 * while it ran, each once (a file hard-linked from the cache into node_modules counts once).
 */
export const INSTALL_COUNT_METRICS: Readonly<Record<string, MetricDefinition>> = {
  syscalls: { unit: "calls/install", better: "lower", exact: true },
  files_written: { unit: "files/install", better: "lower", exact: true },
};

/** What the quick profile counts (every manager); the full profile counts every cell. */
export const QUICK_COUNTED_SCENARIO = "small";
export const QUICK_COUNTED_STATE: InstallState = "cache+lockfile";
export const countedIn = (scenario: SuiteScenario, state: InstallState): boolean =>
  scenario.profile === "full" || (scenario.name === QUICK_COUNTED_SCENARIO && state === QUICK_COUNTED_STATE);

/**
 * A counted install against a timed one with what surrounds it (TIMED_INSTALL_S and the install by
 * the suite's estimate): the counting pass of `small` in the cache+lockfile state (npm on node 26,
 * bun 1.4, deno 2.9; two counted installs each) took 27.9 s on the shared machine under load, 2.3
 * times what the estimate gives those six installs timed.
 */
const STRACE_SLOWDOWN = 2.3;
export const countSeconds = (trials: number, installS: number): number => countRuns(trials) * STRACE_SLOWDOWN * installS;


/**
 * The counting pass of one cell: `countRuns` installs from the cell's state, prepared as for a
 * timed one, each under strace, checked like a timed one (exit 0, a complete tree, no request
 * beyond loopback).
 */
export async function countInstalls(session: InstallSession, subject: InstallSubject): Promise<CountOutput> {
  if (countedMetrics(subject, INSTALL_COUNT_METRICS).length === 0) return { samples: {} };
  const emulated = emulatedCounts(subject.runtime);
  if (emulated) return { samples: {}, unavailable: { syscalls: emulated, files_written: emulated } };
  const state = subject.params.state as InstallState;
  const preparation = await prepare(session, subject);
  if (preparation.error) throw new TrialFailure(preparation.error);
  const paths = pathsIn(subjectDir(session, subject, state));
  const { registry: local } = await endpoint(session, subject.scenario);
  local?.gate.setOpen(false);
  const command = await commandOf(session, subject, paths);
  const script = prepareScript(state, managerOf(session, subject), paths, fixtureOf(subject, preparation));
  const runs: SplitCounts[] = [];
  const written: number[] = [];
  let missing: string | null = null;
  for (let run = 0; run < countRuns(subject.scenario.profileParams.trials); run++) {
    const prepared = await runCommand("/bin/sh", ["-c", script], { cwd: join(paths.project, ".."), timeoutMs: 600_000 });
    if (prepared.code !== 0) throw new TrialFailure(`preparing a counted install failed: ${tail(prepared.stderr, 3)}`);
    const refusedBefore = local?.gate.refused ?? 0;
    const started = await fileSystemNow(session.context.workDir);
    const counted = await runCounted([...pinned(cpusOf(machineAssignment(), "installer")), ...command.argv], { cwd: paths.project, env: command.env, timeoutMs: 30 * 60_000 }, session.context.workDir);
    if (counted.result.code !== 0) throw new TrialFailure(`counted install exited with ${counted.result.code ?? counted.result.signal}: ${tail(counted.result.stderr, 3)}`);
    if ((local?.gate.refused ?? 0) > refusedBefore) throw new TrialFailure("a counted install sent requests beyond loopback (refused by the gate)");
    const problem = treeProblem(readInstalledTree(paths.project));
    if (problem) throw new TrialFailure(`counted install exited 0 but left a ${problem}`);
    written.push(filesChangedSince([paths.project, paths.cache, paths.home], started));
    if (counted.counts === null) missing = counted.unavailable;
    else runs.push(splitScheduling(counted.counts));
  }
  if (missing !== null) return { samples: { files_written: written }, unavailable: { syscalls: missing } };
  return { samples: { syscalls: runs.map((split) => sumCalls(split.work)), files_written: written }, details: { syscall_counts: syscallProfile("install", runs) } };
}
