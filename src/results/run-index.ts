import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import { replaceFile } from "../core/json-file.ts";
import { readCompleteResult, runFolderContents, runFolderNames, runIndexPath } from "./store.ts";
import type { ResultDocument } from "./types.ts";

/*
 * The run index: each run folder's documents kept in one file, so that reading a history of
 * 100,000 results opens a few thousand files instead (opening and reading each small file, not
 * parsing, is most of the cost). An index is checked against the modification time of every
 * folder of its run: results are only ever added, and adding a file or a folder changes the time of
 * the folder that holds it, so unchanged times mean unchanged results. Anything else (no index, an
 * older format, one changed time) rebuilds the run's index from its files.
 */

/**
 * 4: a document without the fields every reader relies on held as null, as bad JSON is; 3: what a
 * run's results share (its run.json) held once, not in every document; 2: written in ASCII only
 * (format 1 held its text as UTF-8).
 */
const INDEX_FORMAT = 4;

/**
 * Folder times this recent are not trusted: a file written in the same clock tick as the folder's
 * time was read would leave it unchanged. Such a run (one still being written) is read from its
 * files and indexed by a later read.
 */
const SETTLED_MS = 2000;

/** One result file of the index: its document, or null where it cannot be read as one (not valid JSON, without its run.json, or incomplete). */
export interface IndexedResult {
  readonly path: string;
  readonly doc: ResultDocument | null;
}

/** What a run's results share, as its run.json holds it: the run but its trials, and the machine's environment. */
interface SharedPart {
  run: Omit<ResultDocument["run"], "trials">;
  environment: ResultDocument["environment"];
}

interface RunIndex {
  format: typeof INDEX_FORMAT;
  /** Each folder of the run, relative to it, with its modification time in nanoseconds. */
  folders: [string, string][];
  shared: SharedPart | null;
  files: IndexEntry[];
}

/** A document without the shared part: `{ trials }` for its run and null for its environment, which reading puts back in their places. */
type WithoutShared = Omit<ResultDocument, "run" | "environment"> & { run: Pick<ResultDocument["run"], "trials">; environment: null };

/** Each file's document, whole (or null where it cannot be read as one), or without the shared part. */
type IndexEntry = { file: string; doc: ResultDocument | null; shared?: undefined } | { file: string; doc: WithoutShared; shared: true };

const folderTime = (path: string): string | null => {
  try {
    return statSync(path, { bigint: true }).mtimeNs.toString();
  } catch {
    return null;
  }
};

/**
 * An index's JSON with every character beyond ASCII escaped (`\u00b5` for a unit's µ), which
 * JSON.parse turns back into the same text. An ASCII file is read as Latin-1, a copy of its bytes:
 * decoding it as UTF-8 took a tenth of reading and parsing the five-year history's indexes, and one
 * character beyond Latin-1 (data/ holds a few `…`) made a whole index a two-byte string.
 */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The buffer every index is read into, kept from one index to the next. */
let readBuffer = Buffer.allocUnsafe(0);

/**
 * An index's text, read as Latin-1 into the one buffer: readFileSync's fresh buffer for each
 * index, its pages faulted in anew, made reading and decoding the five-year history's indexes of
 * one runner take 128-222 ms of CPU against 110-142 ms (five alternated rounds, load 2).
 */
function readIndexText(path: string): string {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > readBuffer.length) readBuffer = Buffer.allocUnsafe(Math.max(size, 2 * readBuffer.length));
    let length = 0;
    while (length < size) {
      const read = readSync(fd, readBuffer, length, size - length, null);
      if (read === 0) break;
      length += read;
    }
    return readBuffer.toString("latin1", 0, length);
  } finally {
    closeSync(fd);
  }
}

function loadIndex(path: string, runDir: string): RunIndex | null {
  let index: RunIndex;
  try {
    // An index of an older format (UTF-8) still parses as Latin-1, well enough to be found older and rebuilt.
    index = JSON.parse(readIndexText(path)) as RunIndex;
  } catch {
    return null;
  }
  if (index.format !== INDEX_FORMAT || !Array.isArray(index.folders) || !Array.isArray(index.files)) return null;
  if (index.shared === null && index.files.some((entry) => entry.shared)) return null;
  return index.folders.every(([folder, time]) => folderTime(join(runDir, folder)) === time) ? index : null;
}

function parseOrNull(path: string): ResultDocument | null {
  try {
    return readCompleteResult(path);
  } catch (error) {
    if (error instanceof UserError) return null;
    throw error;
  }
}

/** Reads a run from its files and writes its index, unless the run is still being written or the folder is read-only. */
function indexRun(runDir: string, path: string): RunIndex {
  const { folders, files } = runFolderContents(runDir);
  const times = folders.map((folder): [string, string | null] => [folder, folderTime(join(runDir, folder))]);
  const whole = files.map((file) => ({ file, doc: parseOrNull(join(runDir, file)) }));
  const index: RunIndex = { format: INDEX_FORMAT, folders: times.filter((t): t is [string, string] => t[1] !== null), shared: null, files: whole };
  const settledBefore = BigInt(Date.now() - SETTLED_MS) * 1_000_000n;
  const settled = times.every(([, time]) => time !== null && BigInt(time) < settledBefore);
  if (settled) {
    try {
      replaceFile(path, asciiJson({ ...index, ...sharedOnce(whole) }));
    } catch {
      // The index only saves time: a data folder that cannot hold one is read from its files.
    }
  }
  return index;
}

/** A document's shared part as its run.json holds it, if the document begins as one joined with it does (schema, run ending in its trials, environment). */
function sharedPartOf(doc: ResultDocument | null): SharedPart | null {
  if (doc === null || typeof doc !== "object" || typeof doc.run !== "object" || doc.run === null) return null;
  const keys = Object.keys(doc);
  const runKeys = Object.keys(doc.run);
  if (keys[0] !== "schema" || keys[1] !== "run" || keys[2] !== "environment" || runKeys[runKeys.length - 1] !== "trials") return null;
  const { trials: _trials, ...run } = doc.run;
  return { run, environment: doc.environment };
}

/**
 * The index as written: the run's shared part once, and each document that holds exactly it
 * without it. A run's 300 copies of its run and environment were a sixth of the five-year history's
 * index text, all of it parsed by every site build.
 */
function sharedOnce(whole: readonly { file: string; doc: ResultDocument | null }[]): Pick<RunIndex, "shared" | "files"> {
  const shared = whole.map(({ doc }) => sharedPartOf(doc)).find((part) => part !== null) ?? null;
  const text = JSON.stringify(shared);
  const files = whole.map(({ file, doc }): IndexEntry => {
    const part = sharedPartOf(doc);
    if (doc === null || part === null || JSON.stringify(part) !== text) return { file, doc };
    return { file, doc: { ...doc, run: { trials: doc.run.trials }, environment: null }, shared: true };
  });
  return { shared, files };
}

/**
 * A document given back its shared part, in place, so that its keys keep their order (as a read of
 * its file gives them); one run object per count of trials, shared as a read of the files shares run.json's.
 */
function rejoined(doc: WithoutShared, shared: SharedPart, runs: Map<number, ResultDocument["run"]>): ResultDocument {
  const whole = doc as unknown as ResultDocument;
  const { trials } = doc.run;
  let run = runs.get(trials);
  if (!run) runs.set(trials, (run = { ...shared.run, trials }));
  whole.run = run;
  whole.environment = shared.environment;
  return whole;
}

/**
 * Every result file at a result's place below a data folder (or one runner's part of it), with its
 * document, in the order of `layoutResultFiles`; read through the run index, which this keeps up to
 * date. A file that cannot be read as a result comes with a null document, for the caller to report or skip.
 * One run's index at a time, so a caller that keeps part of each document lets the rest go young
 * (holding every parsed index at once made the garbage collector copy all of it, a fifth of a site build).
 */
export function* indexedResults(dataDir: string, runner?: string): Generator<IndexedResult> {
  for (const name of runFolderNames(dataDir, runner)) {
    const runDir = join(dataDir, name);
    const path = runIndexPath(dataDir, name);
    const index = loadIndex(path, runDir) ?? indexRun(runDir, path);
    const runs = new Map<number, ResultDocument["run"]>();
    for (const entry of index.files) yield { path: join(runDir, entry.file), doc: entry.shared ? rejoined(entry.doc, index.shared!, runs) : entry.doc };
  }
}

/** `indexedResults`, all at once. */
export function readIndexedResults(dataDir: string, runner?: string): IndexedResult[] {
  return [...indexedResults(dataDir, runner)];
}

/** The documents below a data folder, strictly: a missing folder or a file that cannot be read as a result is bad input. */
export function readIndexedDocuments(dataDir: string): ResultDocument[] {
  if (!existsSync(dataDir)) throw new UserError(`${dataDir}: no such data folder`);
  // Reading the file again throws the UserError that says what is wrong with it.
  return readIndexedResults(dataDir).map(({ path, doc }) => doc ?? readCompleteResult(path));
}
