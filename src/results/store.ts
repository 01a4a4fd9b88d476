import { readdirSync, readFileSync, statSync } from "node:fs";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { UserError } from "../core/errors.ts";
import { paramsSlug } from "../core/params.ts";
import { checkAgainst } from "../core/schema.ts";
import { unreadableReason } from "../core/json-file.ts";
import type { Environment } from "../env/fingerprint.ts";
import { isRuntimeName, type RuntimeName } from "../runtimes/catalog.ts";
import { incompleteResult } from "./limits.ts";
import type { ResultDocument, RunInfo } from "./types.ts";

/*
 * The results store: the only module that knows the layout of data/.
 *
 *   <out>/<runner>/<run id>/<suite>/<scenario>/<runtime>-<version>[@<label>][--<app>][--<params>].json
 *
 * `@<label>` only where the subject's label is not `<runtime>-<version>`: two builds of one version
 * in one run (labels unique within a run) never share a file.
 *
 * A run id is unique per run, so no two runs (or machines) ever write the same file, and a file
 * is never rewritten: results are append-only.
 *
 *   <out>/<runner>/<run id>/run.json
 *
 * holds what every result of the run shares, once: the run (all of `run` but its `trials`, which
 * each cell has its own of) and the machine's environment. Each result file holds the rest of its
 * document, as compact JSON; reading one joins the two, so a result read through this module is
 * the whole, self-describing document it was when written. A result file that holds a whole
 * document (the layout before run.json, still in older histories and artifacts) reads as it is.
 *
 *   <out>/.index/<runner>/<run id>.json
 *
 * is the run index (run-index.ts): each run folder's documents in one file, a cache that readers of
 * a whole history rebuild when it is missing or stale; hidden, so no listing takes it for a result.
 */

/** Folders between the data folder and a result file: runner, run id, suite, scenario. */
const RESULT_DEPTH = 4;

/** The folder of one run's results: `<out>/<runner>/<run id>`. */
export function runFolder(outDir: string, run: Pick<RunInfo, "runner" | "id">): string {
  return join(outDir, run.runner, run.id);
}

/** The run's full table of figures, kept beside its results (not a result: no listing reads it). */
export async function writeRunTable(outDir: string, run: Pick<RunInfo, "runner" | "id">, text: string): Promise<string> {
  const path = join(runFolder(outDir, run), "summary.txt");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

export function resultPath(outDir: string, doc: ResultDocument): string {
  const measured = `${doc.runtime.name}-${doc.runtime.version}`;
  const parts = [doc.label === undefined || doc.label === measured ? measured : `${measured}@${doc.label}`];
  if (doc.app !== null) parts.push(doc.app);
  const slug = paramsSlug(doc.params);
  if (slug) parts.push(slug);
  const file = `${parts.join("--").replace(/[^A-Za-z0-9._=,@+-]/g, "_")}.json`;
  return join(runFolder(outDir, doc.run), doc.suite, doc.scenario, file);
}

/**
 * `node-22.11.0[@label]--app--params.json` → node, 22.11.0. Runtime names hold no dash, `@` only
 * starts a label and `--` only separates the app and the params, so the file name alone says which
 * version it measured.
 */
export function runtimeOfResultFile(file: string): { runtime: RuntimeName; version: string } | null {
  const name = basename(file);
  if (!name.endsWith(".json")) return null;
  const head = name.slice(0, -".json".length).split("--")[0]!.split("@")[0]!;
  const dash = head.indexOf("-");
  const runtime = head.slice(0, dash);
  const version = head.slice(dash + 1);
  return dash > 0 && version && isRuntimeName(runtime) ? { runtime, version } : null;
}

export class InvalidResultError extends Error {
  override readonly name = "InvalidResultError";
}

/** The file of a run folder that holds what its results share. */
export const RUN_FILE = "run.json";
const RUN_FILE_SCHEMA_ID = "runtime-bench/run/v1";

/** What every result of one run shares: `run.json`. */
interface RunFile {
  schema: typeof RUN_FILE_SCHEMA_ID;
  run: Omit<RunInfo, "trials">;
  environment: Environment;
}

/** A result file beside its run.json: the document without what the run shares. */
type StoredResult = Omit<ResultDocument, "run" | "environment"> & { run: Pick<RunInfo, "trials"> };

/** The run folder of a result file at its place: `<run folder>/<suite>/<scenario>/<file>`. */
const runFolderOf = (resultFile: string) => dirname(dirname(dirname(resultFile)));

function splitDocument(doc: ResultDocument): { shared: RunFile; stored: StoredResult } {
  const { schema, run, environment, ...rest } = doc;
  const { trials, ...runShared } = run;
  return { shared: { schema: RUN_FILE_SCHEMA_ID, run: runShared, environment }, stored: { schema, run: { trials }, ...rest } };
}

/**
 * Creates a run's run.json, or checks that the one there holds the same: a result never joins a
 * run of another machine or start. Created under a temporary name and linked into place, so that a
 * reader never sees half of it and two writers of one run cannot both create it.
 */
async function ensureRunFile(runDir: string, shared: RunFile, what: string): Promise<void> {
  const path = join(runDir, RUN_FILE);
  const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(partial, `${JSON.stringify(shared)}\n`);
  try {
    await link(partial, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const existing = JSON.parse(await readFile(path, "utf8")) as unknown;
    if (!isDeepStrictEqual(existing, shared)) throw new InvalidResultError(`${what} claims run ${shared.run.id} of ${shared.run.runner}, whose ${RUN_FILE} records another run or machine`);
  } finally {
    await unlink(partial);
  }
}

/** Checks a document against the schema, then creates its file (and its run's run.json); an existing file is never rewritten. */
export async function writeResult(outDir: string, doc: ResultDocument): Promise<string> {
  const what = `result for ${doc.suite}/${doc.scenario}`;
  const problems = checkAgainst("result.schema.json", doc);
  if (problems.length > 0) throw new InvalidResultError(`${what} breaks the schema: ${problems.join("; ")}`);
  const path = resultPath(outDir, doc);
  const { shared, stored } = splitDocument(doc);
  await mkdir(dirname(path), { recursive: true });
  await ensureRunFile(runFolder(outDir, doc.run), shared, what);
  await writeFile(path, `${JSON.stringify(stored)}\n`, { flag: "wx" });
  return path;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function visibleEntries(dir: string) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => !e.name.startsWith("."))
    .sort(byName);
}

/**
 * Strictly: every `.json` file below the given files or folders, at any depth, in a stable order;
 * each is taken for a result (validate, compare and collect report one that is not). Synchronous on
 * purpose, like the reads below: a history holds 100,000 small files, and a stat and a promise per
 * entry cost more than the reading.
 */
export function listResultFiles(paths: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of visibleEntries(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json") && entry.name !== RUN_FILE) found.push(path);
    }
  };
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      throw new UserError(`${path}: ${unreadableReason(error, "no such file or folder")}`);
    }
    if (isDirectory) walk(path);
    else if (path.endsWith(".json")) found.push(path);
  }
  return found;
}

/** Visible entries of a folder; a missing folder has none. */
function entriesOrNone(dir: string) {
  try {
    return visibleEntries(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** The run folders below a data folder, or below one runner's folder of it, as `<runner>/<run id>`. */
export function runFolderNames(dataDir: string, runner?: string): string[] {
  const runners = runner === undefined ? entriesOrNone(dataDir).filter((e) => e.isDirectory()).map((e) => e.name) : [runner];
  return runners.flatMap((name) =>
    entriesOrNone(join(dataDir, name))
      .filter((e) => e.isDirectory())
      .map((e) => `${name}/${e.name}`),
  );
}

/** What one run folder holds: every folder in it (itself as "") and its result files, relative to it. */
export function runFolderContents(runDir: string): { folders: string[]; files: string[] } {
  const folders = [""];
  const files: string[] = [];
  const walk = (relative: string, depth: number): void => {
    for (const entry of entriesOrNone(join(runDir, relative))) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (depth === RESULT_DEPTH - 2) {
        if (entry.isFile() && entry.name.endsWith(".json")) files.push(path);
      } else if (entry.isDirectory()) {
        folders.push(path);
        walk(path, depth + 1);
      }
    }
  };
  walk("", 0);
  return { folders, files };
}

/** The run index file of a run folder named `<runner>/<run id>`. */
export function runIndexPath(dataDir: string, runFolderName: string): string {
  return join(dataDir, ".index", `${runFolderName}.json`);
}

/**
 * Leniently: the files at a result's place below a data folder (or below one runner's folder of
 * it), and nothing else: a feed or a note kept beside the results is not walked into. A missing
 * folder holds no results.
 */
export function layoutResultFiles(dataDir: string, runner?: string): string[] {
  return runFolderNames(dataDir, runner).flatMap((name) => {
    const runDir = join(dataDir, name);
    return runFolderContents(runDir).files.map((file) => join(runDir, file));
  });
}

/**
 * The versions of each runtime that one runner has any result for, from file names alone (data/
 * only grows); with `scenarios` (`suite/name`), only results of those scenarios count.
 */
export function benchmarkedVersions(dataDir: string, runner: string, scenarios?: readonly string[]): Map<RuntimeName, Set<string>> {
  const byRuntime = new Map<RuntimeName, Set<string>>();
  for (const name of runFolderNames(dataDir, runner)) {
    for (const file of runFolderContents(join(dataDir, name)).files) {
      const [suite, scenario] = file.split("/");
      if (scenarios !== undefined && !scenarios.includes(`${suite}/${scenario}`)) continue;
      const measured = runtimeOfResultFile(file);
      if (!measured) continue;
      const versions = byRuntime.get(measured.runtime) ?? new Set<string>();
      versions.add(measured.version);
      byRuntime.set(measured.runtime, versions);
    }
  }
  return byRuntime;
}

export interface LoadedResult {
  readonly path: string;
  readonly doc: ResultDocument;
}

/** The text of one result file; an unreadable one is a UserError naming it. */
export function readResultText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UserError(`${path}: cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** Run files already read, by run folder: a run.json is never rewritten, and a history reads each once. */
const runFiles = new Map<string, RunFile>();

function runFileOf(resultFile: string): RunFile {
  const runDir = runFolderOf(resultFile);
  let shared = runFiles.get(runDir);
  if (shared === undefined) {
    const path = join(runDir, RUN_FILE);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      throw new UserError(`${resultFile}: holds a result without its run, and its run folder has no readable ${RUN_FILE} (${path})`);
    }
    try {
      shared = JSON.parse(text) as RunFile;
    } catch {
      throw new UserError(`${path}: not valid JSON`);
    }
    runFiles.set(runDir, shared);
  }
  return shared;
}

/** A result file's text as the whole document: as it is (a whole document), or joined with its run's run.json. */
function joinedDocument(path: string, text: string): ResultDocument {
  let parsed: ResultDocument | StoredResult;
  try {
    parsed = JSON.parse(text) as ResultDocument | StoredResult;
  } catch {
    throw new UserError(`${path}: not valid JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || "environment" in parsed || typeof parsed.run?.trials !== "number" || "id" in parsed.run) return parsed as ResultDocument;
  const { schema, run, ...rest } = parsed;
  const shared = runFileOf(path);
  return { schema, run: { ...shared.run, trials: run.trials }, environment: shared.environment, ...rest } as ResultDocument;
}

/** Reads one result file, unchecked, as its whole document; unreadable or malformed (or a result without its run.json) is a UserError naming it. */
export function readResultFile(path: string): ResultDocument {
  return joinedDocument(path, readResultText(path));
}

/**
 * Reads one result file as `readResultFile` does, and refuses a document without the fields every
 * reader relies on (limits.ts): a UserError naming the file and the first such field.
 */
export function readCompleteResult(path: string): ResultDocument {
  const doc = readResultFile(path);
  const problem = incompleteResult(doc);
  if (problem !== undefined) throw new UserError(`${path}: not a complete result: ${problem} (scripts/bench validate names every problem)`);
  return doc;
}

/**
 * Reads result documents, each complete enough to read (the schema unchecked: `validate` is the
 * checker); unreadable files are a UserError. A plain loop of readFileSync + JSON.parse reads
 * 100,000 small files several times faster than promise-based reads.
 */
export function readResults(paths: readonly string[]): LoadedResult[] {
  return listResultFiles(paths).map((path) => ({ path, doc: readCompleteResult(path) }));
}

/** The documents of `readResults`; none at all is bad input, named by `what` (the side or command). */
export function readDocuments(paths: readonly string[], what: string): ResultDocument[] {
  if (paths.length === 0) throw new UserError(`${what}: name at least one result file or folder (see scripts/bench ${what} --help)`);
  const docs = readResults(paths).map((r) => r.doc);
  if (docs.length === 0) throw new UserError(`${what}: no result files in ${paths.join(", ")}`);
  return docs;
}

/** One runner's results of the given runtime versions (`node-22.11.0`), read by file name first so a long history stays quick. */
export function readRunnerResults(dataDir: string, runner: string, runtimeVersions: ReadonlySet<string>): ResultDocument[] {
  return layoutResultFiles(dataDir, runner)
    .filter((file) => {
      const measured = runtimeOfResultFile(file);
      return measured !== null && runtimeVersions.has(`${measured.runtime}-${measured.version}`);
    })
    .map(readCompleteResult);
}
