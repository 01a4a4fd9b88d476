import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { checkAgainst } from "../core/schema.ts";
import { shapeProblems, sizeProblem, undeclaredMetrics, type DeclaredMetrics } from "../results/limits.ts";
import { listResultFiles, readResultFile, resultPath, runFolder, writeResult } from "../results/store.ts";
import type { ResultDocument } from "../results/types.ts";
import { errorMessage } from "../core/errors.ts";
import { isTestbed, type BenchMachine } from "../releases/runners.ts";
import type { MatrixEntry } from "../releases/matrix.ts";
import { MACHINE_CHECKS, untunedRefusal } from "./machines.ts";
import { bindArtifacts, CLOCK_SLACK_MS, outsideJob, type ArtifactUpload, type WorkflowRun } from "./workflow-run.ts";

/**
 * A job as collect holds its results to it: a plan's matrix entry, or a reference testbed's run of
 * the newest releases of several runtimes side by side (`sweep --side-by-side`), whose `beside`
 * names each release it measured besides `runtime` and `version` (`deno@2.9.6`).
 */
export type PlanJob = MatrixEntry & { readonly beside?: readonly string[] };

/** Whether a value is a plan's job as far as collect reads one: its runner, runtime and version, and any releases beside them. */
export const isPlanJob = (job: unknown): job is PlanJob => {
  const fields = (job ?? {}) as Record<string, unknown>;
  const beside = fields["beside"];
  return ["runner", "runtime", "version"].every((key) => typeof fields[key] === "string") && (beside === undefined || (Array.isArray(beside) && beside.every((spec) => typeof spec === "string")));
};

/** What collect trusts: the machines of .github/bench-runners.json, the suites' metrics, and the jobs of the run's plan. */
export interface CollectTrust {
  readonly runners: readonly BenchMachine[];
  /** Each suite's metrics and their units: a result records no other. */
  readonly declared: DeclaredMetrics;
  /** The plan job's matrix and the call's name, which together name each job's artifact; without them, results are checked against the runners only. */
  readonly plan?: { readonly call: string; readonly jobs: readonly PlanJob[] };
  /** The workflow run as GitHub's API lists it: each artifact is held to the upload step named for it, each result to that step's job. */
  readonly run?: WorkflowRun;
  /**
   * Accept results from a machine whose check before the run found settings of
   * docs/machine-tuning.md unmet: only for a workflow run locally under scripts/act, where this
   * machine stands in for the benchmark machines (each result still records what it lacked).
   */
  readonly acceptUntuned?: boolean;
  /** The time now, against which no run may be dated later (a test's fixed clock). */
  readonly now?: Date;
}

/** The artifact benchmark.yml's job for `entry` uploads: the workflow, not the job's own code, names it. A side-by-side run's names its other releases too. */
export function artifactName(call: string, entry: PlanJob): string {
  const beside = (entry.beside ?? []).map((spec) => `-${spec.replace("@", "-")}`).join("");
  return `results-${call}-${entry.runner}-${entry.runtime}-${entry.version}${beside}`;
}

/** What a result is checked against: the machine it claims, and the job whose artifact held it. */
interface Claim {
  readonly doc: ResultDocument;
  readonly runner: BenchMachine | undefined;
  readonly job: PlanJob | undefined;
  /** The upload step that made its artifact, where the run's record is known. */
  readonly upload: ArtifactUpload | undefined;
  readonly now: Date;
}

const jobVersions = (job: PlanJob) => [`${job.runtime} ${job.version}${job.predecessor ? ` and ${job.predecessor}` : ""}`, ...(job.beside ?? []).map((spec) => spec.replace("@", " "))].join(", ");

/** A canary's or a nightly's version: a pre-release part (Node's `27.0.0-nightly…`) or a build part (Deno's `2.7.0+<commit>`). */
const isPrerelease = (version: string) => /[-+]/.test(version);

/**
 * Why a job did not measure the runtime version a result claims, or nothing. A release job
 * measures its release and the predecessor beside it, each under its default label. A canary job
 * measures its baseline release, labelled `release`, and a build whose version is known only once
 * installed, labelled `canary`: that label is taken only by a version that is no release. A
 * side-by-side run measures each of its releases under its default label.
 */
function versionRefusal(job: PlanJob, doc: ResultDocument): string | undefined {
  const { name, version } = doc.runtime;
  const claimed = `claims ${name} ${version}${doc.label === undefined ? "" : ` labelled ${doc.label}`}`;
  const beside = job.beside?.includes(`${name}@${version}`) ?? false;
  if (job.runtime !== name && !beside) return `${claimed}, but its job measured ${jobVersions(job)}`;
  if (job.channel === "canary") {
    if (doc.label === "release") return version === job.predecessor ? undefined : `${claimed}, but its canary job's release is ${job.predecessor}`;
    if (doc.label === "canary") return isPrerelease(version) ? undefined : `${claimed}, but ${version} is a release, not a nightly or canary build`;
    return `${claimed}, but a canary job's results are labelled release or canary`;
  }
  if (!beside && version !== job.version && version !== job.predecessor) return `${claimed}, but its job measured ${jobVersions(job)}`;
  return doc.label === undefined || doc.label === `${name}-${version}` ? undefined : `${claimed}, but a release job's results carry their own runtime and version as label`;
}

/** The second a run id names (`20261101T000000Z-abcdef`), as its started_at gives it. */
const idStamp = (startedAt: string) => new Date(startedAt).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");

/** Why a result's run cannot have started when it says, or nothing. */
function dateRefusal({ doc, upload, now }: Claim): string | undefined {
  const { id, started_at: startedAt } = doc.run;
  if (!id.startsWith(`${idStamp(startedAt)}-`)) return `claims run ${id}, which did not start at its started_at ${startedAt}`;
  if (Date.parse(startedAt) > now.getTime() + CLOCK_SLACK_MS) return `claims a run started at ${startedAt}, later than now`;
  return upload ? outsideJob(startedAt, upload.job, now) : undefined;
}

/**
 * Each check returns why the result cannot be published, or nothing. A result says where, when and
 * on what it ran; a compromised or misconfigured machine could say anything, so every claim is held
 * against what the repository itself planned and declared and what GitHub recorded of the run.
 */
const RESULT_CHECKS: readonly ((claim: Claim) => string | undefined)[] = [
  emulatedRefusal,
  ...MACHINE_CHECKS,
  ({ doc, runner }) => (runner ? undefined : `claims runner '${doc.run.runner}', which .github/bench-runners.json does not list`),
  ({ doc, job }) => (!job || job.runner === doc.run.runner ? undefined : `claims runner '${doc.run.runner}', but its job ran on ${job.runner}`),
  ({ doc, runner }) => (!runner || runner.arch === doc.environment.arch ? undefined : `claims architecture ${doc.environment.arch}, but ${runner.name} is ${runner.arch} (.github/bench-runners.json)`),
  ({ doc, job }) => (job ? versionRefusal(job, doc) : undefined),
  // Only a sweep plans several runtimes in one job, and only on a reference testbed: a benchmark machine's job measures one.
  ({ job, runner }) => (job?.beside?.length && runner && !isTestbed(runner) ? `is in a job of several runtimes (${jobVersions(job)}), which only a reference testbed's sweep runs, not ${runner.name}` : undefined),
  dateRefusal,
];

/** Where a file's artifact was found: its name, and the job and upload step it belongs to. */
interface ArtifactOf {
  readonly name: string;
  readonly job: PlanJob;
  readonly upload: ArtifactUpload | undefined;
}

/**
 * The artifact holding `file`. download-artifact puts each artifact in a folder of its name, except
 * when exactly one matches its pattern: then it unpacks that one into the folder itself (v8), and
 * the run's record (or, without one, a plan of a single job) says which artifact it was.
 */
function artifactOf(file: string, sources: readonly string[], plan: NonNullable<CollectTrust["plan"]>, bound: BoundRun | undefined): ArtifactOf | string {
  const source = sources.map((s) => resolve(s)).find((s) => resolve(file).startsWith(s + sep));
  const first = source === undefined ? "" : relative(source, resolve(file)).split(sep)[0]!;
  const planned = new Map(plan.jobs.map((job) => [artifactName(plan.call, job), job]));
  const single = bound ? (bound.listed.length === 1 ? bound.listed[0] : undefined) : plan.jobs.length === 1 ? artifactName(plan.call, plan.jobs[0]!) : undefined;
  const name = planned.has(first) ? first : (single ?? first);
  const job = planned.get(name);
  if (!job) return `is in artifact '${name}', which no job of call '${plan.call}' uploads`;
  if (bound && !bound.listed.includes(name)) return `is in artifact '${name}', which the workflow run does not list`;
  return { name, job, upload: bound?.uploads.get(name) };
}

/** The run's record bound to the call's artifacts: the artifacts it lists, and the upload that made each. */
interface BoundRun {
  readonly listed: readonly string[];
  readonly uploads: ReadonlyMap<string, ArtifactUpload>;
}

/** What a collect did, or would have done had nothing been wrong. */
export interface CollectOutcome {
  readonly files: number;
  /** Paths (relative to the data folder) of the files added. */
  readonly added: string[];
  /** Results already in the data folder, byte for byte or field for field. */
  readonly alreadyPresent: number;
  /** One line per file that is invalid or would rewrite a different result; nothing is written when there is any. */
  readonly problems: string[];
}

function existingDocument(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return readResultFile(path);
  } catch {
    return null; // present but unreadable: never equal to a result, so reported as a conflict
  }
}

/** Why an emulated result is never published, or null for one measured on its own architecture. */
export function emulatedRefusal({ doc }: Pick<Claim, "doc">): string | undefined {
  const emulated = doc.environment.emulated;
  return emulated ? `measured under ${emulated.emulator} (${doc.environment.arch} on ${emulated.host_arch}): an emulated result checks that a runtime runs, and is never published` : undefined;
}

/** A result file read and checked on its own: its document, or why it is none. */
async function readChecked(file: string, declared: DeclaredMetrics): Promise<ResultDocument | string[]> {
  const stats = await lstat(file);
  if (!stats.isFile()) return ["not a regular file"];
  const tooBig = sizeProblem(stats.size);
  if (tooBig) return [tooBig];
  let doc: unknown;
  try {
    // Through the store, which joins a result with its run's run.json.
    doc = readResultFile(file);
  } catch (error) {
    return [errorMessage(error).replace(`${file}: `, "")];
  }
  const shape = shapeProblems(doc);
  if (shape.length > 0) return shape;
  const schema = checkAgainst("result.schema.json", doc);
  if (schema.length > 0) return schema;
  const undeclared = undeclaredMetrics(doc as ResultDocument, declared);
  return undeclared.length > 0 ? undeclared : (doc as ResultDocument);
}

/** A checked result on its way in: the file it came from, and the artifact that held it. */
interface Incoming {
  readonly doc: ResultDocument;
  readonly from: string;
  readonly artifact: string | undefined;
}

/** Every file checked against everything it claims; the results that passed, by destination. */
async function checkFiles(files: readonly string[], sources: readonly string[], dataDir: string, trust: CollectTrust, bound: BoundRun | undefined, problems: string[]) {
  const incoming = new Map<string, Incoming>();
  const now = trust.now ?? new Date();
  for (const file of files) {
    const checked = await readChecked(file, trust.declared);
    if (Array.isArray(checked)) {
      problems.push(...checked.map((problem) => `${file}: ${problem}`));
      continue;
    }
    const artifact = trust.plan ? artifactOf(file, sources, trust.plan, bound) : undefined;
    if (typeof artifact === "string") {
      problems.push(`${file}: ${artifact}`);
      continue;
    }
    const claim: Claim = { doc: checked, runner: trust.runners.find((r) => r.name === checked.run.runner), job: artifact?.job, upload: artifact?.upload, now };
    const refused = RESULT_CHECKS.map((check) => check(claim)).filter((problem) => problem !== undefined);
    const untuned = untunedRefusal(claim, trust.acceptUntuned ?? false);
    if (untuned !== undefined) refused.push(untuned);
    const destination = resultPath(dataDir, checked);
    const place = relative(dataDir, destination);
    if (!resolve(file).endsWith(sep + place)) refused.push(`its contents belong at ${place}; the file was renamed or edited`);
    const earlier = incoming.get(destination);
    if (earlier && !isDeepStrictEqual(earlier.doc, checked)) refused.push(`differs from ${earlier.from}, another result for ${place}`);
    if (refused.length > 0) problems.push(...refused.map((problem) => `${file}: ${problem}`));
    else incoming.set(destination, { doc: checked, from: file, artifact: artifact?.name });
  }
  return incoming;
}

/**
 * The new results among `incoming`, each in a run folder that data/ does not hold yet and that one
 * artifact alone brings (a run's results arrive together, from its job), or a problem for each
 * that is not; results already there, field for field, are counted.
 */
async function newResults(incoming: ReadonlyMap<string, Incoming>, dataDir: string, problems: string[]) {
  const toAdd: ResultDocument[] = [];
  let alreadyPresent = 0;
  const artifactOfRun = new Map<string, Incoming>();
  for (const [destination, entry] of incoming) {
    const { doc, from, artifact } = entry;
    const run = relative(dataDir, runFolder(dataDir, doc.run));
    const other = artifactOfRun.get(run);
    if (other && other.artifact !== artifact) problems.push(`${from}: adds to run ${run}, which artifact '${other.artifact}' brings too (${other.from})`);
    artifactOfRun.set(run, entry);
    const existing = existingDocument(destination);
    if (existing === undefined && existsSync(runFolder(dataDir, doc.run))) problems.push(`${from}: adds to run folder ${run}, which data/ already holds; a run's results arrive in one collect`);
    else if (existing === undefined) toAdd.push(doc);
    else if (isDeepStrictEqual(existing, doc)) alreadyPresent += 1;
    else problems.push(`${from}: ${relative(dataDir, destination)} already holds a different result, and results are never rewritten`);
  }
  return { toAdd, alreadyPresent };
}

/**
 * Writes every new result into a staging folder inside the data folder, then moves each new run
 * folder into place; a failure moves back what was moved. So data/ gains every run of the collect
 * or none of them, never part of one.
 */
async function addAll(dataDir: string, docs: readonly ResultDocument[]): Promise<string[]> {
  if (docs.length === 0) return [];
  await mkdir(dataDir, { recursive: true });
  const staging = await mkdtemp(join(dataDir, ".collect-"));
  try {
    for (const doc of docs) await writeResult(staging, doc);
    const runs = [...new Map(docs.map((doc) => [runFolder(dataDir, doc.run), doc.run])).values()];
    const moved: typeof runs = [];
    try {
      for (const run of runs) {
        await mkdir(dirname(runFolder(dataDir, run)), { recursive: true });
        await rename(runFolder(staging, run), runFolder(dataDir, run));
        moved.push(run);
      }
    } catch (error) {
      for (const run of moved.reverse()) await rename(runFolder(dataDir, run), runFolder(staging, run)).catch(() => undefined);
      throw error;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return docs.map((doc) => relative(dataDir, resultPath(dataDir, doc)));
}

/**
 * Checks every result file below the artifact folders, then adds the new ones to the data folder
 * at the place their contents name (`data/<runner>/<run id>/...`). Collecting the same artifacts
 * twice adds nothing the second time; a different file at the same place is an error, because a
 * result is never rewritten. Only results whose every claim holds (RESULT_CHECKS), measured on a
 * machine tuned as docs/machine-tuning.md says, enter the data folder, and when any file (or the
 * run's record of its artifacts) has a problem, nothing at all is written.
 */
export async function collectResults(sources: readonly string[], dataDir: string, trust: CollectTrust): Promise<CollectOutcome> {
  const files = listResultFiles(sources);
  const problems: string[] = [];
  let bound: BoundRun | undefined;
  if (trust.run && trust.plan) {
    const prefix = `results-${trust.plan.call}-`;
    const binding = bindArtifacts(trust.run, prefix);
    problems.push(...binding.problems);
    bound = { listed: trust.run.artifacts.filter((a) => a.name.startsWith(prefix)).map((a) => a.name), uploads: binding.uploads };
  }
  const incoming = await checkFiles(files, sources, dataDir, trust, bound, problems);
  const { toAdd, alreadyPresent } = await newResults(incoming, dataDir, problems);
  if (problems.length > 0) return { files: files.length, added: [], alreadyPresent, problems };
  return { files: files.length, added: await addAll(dataDir, toAdd), alreadyPresent, problems };
}
