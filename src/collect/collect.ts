import { existsSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { listResultFiles } from "../results/store.ts";
import { checkAgainst } from "../core/schema.ts";
import type { ResultDocument } from "../results/types.ts";
import { readResultFile, resultPath, writeResult } from "../results/store.ts";
import { errorMessage } from "../core/errors.ts";
import type { BenchMachine } from "../releases/runners.ts";
import type { MatrixEntry } from "../releases/matrix.ts";
import { MACHINE_CHECKS, untunedRefusal } from "./machines.ts";

/** What collect trusts: the machines of .github/bench-runners.json, and the jobs of the run's plan. */
export interface CollectTrust {
  readonly runners: readonly BenchMachine[];
  /** The plan job's matrix and the call's name, which together name each job's artifact; without them, results are checked against the runners only. */
  readonly plan?: { readonly call: string; readonly jobs: readonly MatrixEntry[] };
  /**
   * Accept results from a machine whose check before the run found settings of
   * docs/machine-tuning.md unmet: only for a workflow run locally under scripts/act, where this
   * machine stands in for the benchmark machines (each result still records what it lacked).
   */
  readonly acceptUntuned?: boolean;
}

/** The artifact benchmark.yml's job for `entry` uploads: the workflow, not the job's own code, names it. */
export function artifactName(call: string, entry: MatrixEntry): string {
  return `results-${call}-${entry.runner}-${entry.runtime}-${entry.version}`;
}

/** What a result is checked against: the machine it claims, and the job whose artifact held it. */
interface Claim {
  readonly doc: ResultDocument;
  readonly runner: BenchMachine | undefined;
  readonly job: MatrixEntry | undefined;
}

/**
 * Whether a job measured the runtime version a result claims: its release, or the predecessor it
 * measured beside it. A canary's version is whatever its nightly build reports, known only once
 * installed, so a canary job vouches for its runtime's name and its baseline release.
 */
function measuredBy(job: MatrixEntry, doc: ResultDocument): boolean {
  if (job.runtime !== doc.runtime.name) return false;
  return doc.runtime.version === job.version || doc.runtime.version === job.predecessor || job.channel === "canary";
}

const jobVersions = (job: MatrixEntry) => `${job.runtime} ${job.version}${job.predecessor ? ` and ${job.predecessor}` : ""}`;

/**
 * Each check returns why the result cannot be published, or nothing. A result says where and on
 * what it ran; a compromised or misconfigured machine could say anything, so every claim is held
 * against what the repository itself planned and declared.
 */
const RESULT_CHECKS: readonly ((claim: Claim) => string | undefined)[] = [
  emulatedRefusal,
  ...MACHINE_CHECKS,
  ({ doc, runner }) => (runner ? undefined : `claims runner '${doc.run.runner}', which .github/bench-runners.json does not list`),
  ({ doc, job }) => (!job || job.runner === doc.run.runner ? undefined : `claims runner '${doc.run.runner}', but its job ran on ${job.runner}`),
  ({ doc, runner }) => (!runner || runner.arch === doc.environment.arch ? undefined : `claims architecture ${doc.environment.arch}, but ${runner.name} is ${runner.arch} (.github/bench-runners.json)`),
  ({ doc, job }) => (!job || measuredBy(job, doc) ? undefined : `claims ${doc.runtime.name} ${doc.runtime.version}, but its job measured ${jobVersions(job)}`),
];

/** The job whose artifact holds `file`: download-artifact puts each artifact in a folder of its name. */
function jobOf(file: string, sources: readonly string[], trust: CollectTrust): MatrixEntry | string | undefined {
  if (!trust.plan) return undefined;
  const source = sources.map((s) => resolve(s)).find((s) => resolve(file).startsWith(s + sep));
  const artifact = source === undefined ? "" : relative(source, resolve(file)).split(sep)[0]!;
  const { call, jobs } = trust.plan;
  return jobs.find((job) => artifactName(call, job) === artifact) ?? `is in artifact '${artifact}', which no job of call '${call}' uploads`;
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

/**
 * Checks every result file below the artifact folders, then adds the new ones to the data folder
 * at the place their contents name (`data/<runner>/<run id>/...`). Collecting the same artifacts
 * twice adds nothing the second time; a different file at the same place is an error, because a
 * result is never rewritten. Only results whose every claim holds (RESULT_CHECKS), measured on a
 * machine tuned as docs/machine-tuning.md says, enter the data folder, and when any file has a
 * problem none does.
 */
export async function collectResults(sources: readonly string[], dataDir: string, trust: CollectTrust): Promise<CollectOutcome> {
  const files = listResultFiles(sources);
  const problems: string[] = [];
  const incoming = new Map<string, { doc: ResultDocument; from: string }>();
  for (const file of files) {
    let doc: unknown;
    try {
      // Through the store, which joins a result with its run's run.json.
      doc = readResultFile(file);
    } catch (error) {
      problems.push(errorMessage(error));
      continue;
    }
    const schemaProblems = checkAgainst("result.schema.json", doc);
    if (schemaProblems.length > 0) {
      problems.push(...schemaProblems.map((p) => `${file}: ${p}`));
      continue;
    }
    const result = doc as ResultDocument;
    const job = jobOf(file, sources, trust);
    if (typeof job === "string") {
      problems.push(`${file}: ${job}`);
      continue;
    }
    const claim = { doc: result, runner: trust.runners.find((r) => r.name === result.run.runner), job };
    const refused = RESULT_CHECKS.map((check) => check(claim)).filter((problem) => problem !== undefined);
    if (refused.length > 0) {
      problems.push(...refused.map((problem) => `${file}: ${problem}`));
      continue;
    }
    const untuned = untunedRefusal(claim, trust.acceptUntuned ?? false);
    if (untuned !== undefined) {
      problems.push(`${file}: ${untuned}`);
      continue;
    }
    const destination = resultPath(dataDir, result);
    const place = relative(dataDir, destination);
    if (!resolve(file).endsWith(sep + place)) {
      problems.push(`${file}: its contents belong at ${place}; the file was renamed or edited`);
      continue;
    }
    const earlier = incoming.get(destination);
    if (earlier && !isDeepStrictEqual(earlier.doc, result)) {
      problems.push(`${file}: differs from ${earlier.from}, another result for ${place}`);
      continue;
    }
    incoming.set(destination, { doc: result, from: file });
  }
  const toAdd: ResultDocument[] = [];
  let alreadyPresent = 0;
  for (const [destination, { doc, from }] of incoming) {
    const existing = existingDocument(destination);
    if (existing === undefined) toAdd.push(doc);
    else if (isDeepStrictEqual(existing, doc)) alreadyPresent += 1;
    else problems.push(`${from}: ${relative(dataDir, destination)} already holds a different result, and results are never rewritten`);
  }
  if (problems.length > 0) return { files: files.length, added: [], alreadyPresent, problems };
  const added: string[] = [];
  for (const doc of toAdd) added.push(relative(dataDir, await writeResult(dataDir, doc)));
  return { files: files.length, added, alreadyPresent, problems };
}
