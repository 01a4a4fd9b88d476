/**
 * Where a sweep's runs write before their results join data/: one folder per link, named as
 * benchmark.yml names a job's artifact, beside the job it measured. Collect takes each as it takes a
 * workflow's artifacts (the same checks against .github/bench-runners.json and the job), never a
 * copy of files. A staged link that was never collected (the harness killed between the run and its
 * collect) is collected by the next sweep before it measures anything. Beside the stage, which goes
 * once its links are collected, a sweep keeps its latest runs' times for the next sweep's pace.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { artifactName, collectResults, isPlanJob, type CollectOutcome, type CollectTrust, type PlanJob } from "../collect/collect.ts";
import { UserError } from "../core/errors.ts";
import { displayPath, readJsonFile, replaceFile } from "../core/json-file.ts";
import { cacheDir } from "../core/paths.ts";
import type { ReferenceTestbed } from "../releases/runners.ts";
import type { ChainLink, RuntimeRelease } from "./select.ts";
import type { TimedRun } from "./sweep.ts";

/** The call a sweep's jobs belong to: part of each staged artifact's name. */
export const SWEEP_CALL = "sweep";

/** `<work>/artifacts/<artifact>/…`, as download-artifact lays them out, and `<work>/jobs/<artifact>.json`. */
const artifactsDir = (workDir: string) => join(workDir, "artifacts");
const jobFile = (workDir: string, job: PlanJob) => join(workDir, "jobs", `${artifactName(SWEEP_CALL, job)}.json`);

/** A sweep's staging folder for a data folder: below the per-user cache, one per data folder. */
export function sweepWorkDir(dataDir: string): string {
  return join(cacheDir(), "sweep", createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 16));
}

/** Beside the staging folder, which goes once its links are collected: the latest runs' times, for the next sweep's pace. */
export const sweepPaceFile = (dataDir: string) => `${sweepWorkDir(dataDir)}.pace.json`;

/** A kept run, or one of a sweep before subjects were kept, which nothing is priced at any more (its runtime is unknown). */
const isTimedRun = (run: unknown): run is TimedRun | Omit<TimedRun, "subject"> => {
  const { purpose, subject, measured, estimated } = (run ?? {}) as Record<string, unknown>;
  return (
    (purpose === "chain" || purpose === "narrowing") &&
    (subject === undefined || typeof subject === "string") &&
    [measured, estimated].every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0)
  );
};

/** The runs earlier sweeps of a data folder kept; none, saying why, when their file is not one this harness wrote. */
export function earlierRuns(dataDir: string, log: (line: string) => void): TimedRun[] {
  const path = sweepPaceFile(dataDir);
  if (!existsSync(path)) return [];
  let runs: unknown;
  try {
    runs = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    runs = null;
  }
  if (Array.isArray(runs) && runs.every(isTimedRun)) return runs.filter((run): run is TimedRun => "subject" in run);
  log(`sweep: ${path} does not hold the times of earlier runs; starting at the estimates' own pace (the file is written again after the first run)`);
  return [];
}

export function keepRuns(dataDir: string, runs: readonly TimedRun[]): void {
  replaceFile(sweepPaceFile(dataDir), `${JSON.stringify(runs)}\n`);
}

/** What every job of a sweep on the testbed shares, measuring `scenarios` and `apps`. */
function testbedJob(testbed: ReferenceTestbed, scenarios: readonly string[], apps: readonly string[]) {
  return {
    runner: testbed.name,
    arch: testbed.arch,
    labels: [],
    suites: [...new Set(scenarios.map((s) => s.split("/")[0]!))].join(" "),
    scenarios: scenarios.join(" "),
    apps: apps.join(" "),
    channel: "release",
  } as const;
}

/** A link as collect's plan holds a job: the newer release, measured beside the older one on the testbed. */
export function linkJob(link: ChainLink, testbed: ReferenceTestbed, scenarios: readonly string[], apps: readonly string[]): PlanJob {
  return { ...testbedJob(testbed, scenarios, apps), runtime: link.runtime, version: link.to, predecessor: link.from };
}

/** Several runtimes' releases measured side by side in one run on the testbed, as collect's plan holds the job. */
export function sideBySideJob(releases: readonly RuntimeRelease[], testbed: ReferenceTestbed, scenarios: readonly string[]): PlanJob {
  const [first, ...others] = releases;
  return { ...testbedJob(testbed, scenarios, []), runtime: first!.runtime, version: first!.version, predecessor: "", beside: others.map((r) => `${r.runtime}@${r.version}`) };
}

/** Declares a job's staging folder and the job it holds; returns the folder a run writes its results below. */
export async function stageJob(workDir: string, job: PlanJob): Promise<string> {
  const artifact = join(artifactsDir(workDir), artifactName(SWEEP_CALL, job));
  await rm(artifact, { recursive: true, force: true });
  await mkdir(artifact, { recursive: true });
  await mkdir(join(workDir, "jobs"), { recursive: true });
  await writeFile(jobFile(workDir, job), `${JSON.stringify(job)}\n`);
  return artifact;
}

/** The jobs of the links staged in a work folder. */
function stagedJobs(workDir: string): PlanJob[] {
  const dir = join(workDir, "jobs");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => {
      const path = join(dir, name);
      const job = readJsonFile(path);
      if (!isPlanJob(job)) throw new UserError(`sweep: ${displayPath(path)} is not a staged link's job ({"runner", "runtime", "version", ...}): look at it, then remove the stage ${displayPath(workDir)}`);
      return job;
    });
}

/**
 * Adds every staged link's results to data/, checked against the machines, the suites' metrics and each link's job, and
 * removes what was added from the stage. With any problem, nothing is added and everything stays
 * staged for the operator to look at (the outcome names each problem).
 */
export async function collectStaged(workDir: string, dataDir: string, trust: Pick<CollectTrust, "runners" | "declared">): Promise<CollectOutcome | null> {
  const jobs = stagedJobs(workDir);
  if (jobs.length === 0) return null;
  await mkdir(artifactsDir(workDir), { recursive: true });
  const outcome = await collectResults([artifactsDir(workDir)], dataDir, { ...trust, plan: { call: SWEEP_CALL, jobs } });
  if (outcome.problems.length > 0) return outcome;
  // Every staged link is in data/ now: the stage goes with them.
  await rm(workDir, { recursive: true, force: true });
  return outcome;
}
