import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { tail } from "../../process/children.ts";
import { cpusOf, machineAssignment, pinned } from "../../tools/cpu-split.ts";
import { GNU_TIME } from "../../tools/gnu-time.ts";
import { runHyperfine } from "../../tools/hyperfine.ts";
import { TrialFailure, type FinishOutput, type TrialOutput } from "../suite.ts";
import { managerVersion, pathsIn, prepareScript, type InstallState } from "./managers.ts";
import type { InstallSubject } from "./manifest.ts";
import { prepare } from "./preparation.ts";
import { verdaccioVersion } from "./registry.ts";
import { commandOf, endpoint, fixtureOf, managerOf, subjectDir, type InstallSession } from "./session.ts";
import { folderSize } from "../../tools/sizes.ts";
import { readInstalledTree, treeDifference, treeProblem, type InstalledTree } from "./tree.ts";

/** Times the profile's runs of one install, each from its state, each verified; the local registry's uplink is closed meanwhile. */
export async function trial(session: InstallSession, subject: InstallSubject, trialIndex: number): Promise<TrialOutput> {
  const { root } = session;
  const manager = managerOf(session, subject);
  const state = subject.params.state as InstallState;
  const preparation = await prepare(session, subject);
  const paths = pathsIn(subjectDir(session, subject, state));
  const { registry: local } = await endpoint(session, subject.scenario);
  local?.gate.setOpen(false);
  const command = await commandOf(session, subject, paths);
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
  if (tree) session.trees.set(subject, tree);
  return {
    samples: { wall_ms: wall, peak_rss_mb: rss, cpu_s: cpu },
    details: {
      packages: tree?.packages.length,
      node_modules_mb: size.mb,
      node_modules_files: size.files,
      ...(local ? { requests_beyond_loopback: local.gate.refused } : {}),
    },
  };
}

/** How the tree a subject's trials left differs from the tree each manager installs from the lockfile. */
export async function finish(session: InstallSession, subject: InstallSubject): Promise<FinishOutput> {
  const manager = managerOf(session, subject);
  const tree = session.trees.get(subject);
  const details: Record<string, unknown> = {};
  if (tree) {
    const differences: Record<string, unknown> = {};
    for (const [other, otherTree] of session.lockedTrees.get(subject.scenario.dir) ?? []) {
      const difference = treeDifference(tree, otherTree);
      if (difference.only_here.length + difference.only_there.length > 0) differences[other] = difference;
    }
    details.tree_differences = differences;
  }
  const version = managerVersion(manager, subject.runtime.identity.version);
  return { details, tools: { verdaccio: verdaccioVersion(), [manager.name]: version } };
}
