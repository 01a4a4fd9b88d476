import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { UserError } from "../core/errors.ts";
import { readResultFile, runFolderContents, runFolderNames, runIndexPath } from "./store.ts";
import type { ResultDocument } from "./types.ts";

/*
 * The run index: each run folder's documents kept in one file, so that reading a history of
 * 100,000 results opens a few thousand files instead (opening and reading each small file, not
 * parsing, is most of the cost). An index is checked against the modification time of every
 * folder of its run: results are only ever added, and adding a file or a folder changes the time of
 * the folder that holds it, so unchanged times mean unchanged results. Anything else (no index, an
 * older format, one changed time) rebuilds the run's index from its files.
 */

/** 2: written in ASCII only (format 1 held its text as UTF-8). */
const INDEX_FORMAT = 2;

/**
 * Folder times this recent are not trusted: a file written in the same clock tick as the folder's
 * time was read would leave it unchanged. Such a run (one still being written) is read from its
 * files and indexed by a later read.
 */
const SETTLED_MS = 2000;

/** One result file of the index: its document, or null where it cannot be read as one (not valid JSON, or without its run.json). */
export interface IndexedResult {
  readonly path: string;
  readonly doc: ResultDocument | null;
}

interface RunIndex {
  format: typeof INDEX_FORMAT;
  /** Each folder of the run, relative to it, with its modification time in nanoseconds. */
  folders: [string, string][];
  files: { file: string; doc: ResultDocument | null }[];
}

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

function loadIndex(path: string, runDir: string): RunIndex | null {
  let index: RunIndex;
  try {
    // An index of an older format (UTF-8) still parses as Latin-1, well enough to be found older and rebuilt.
    index = JSON.parse(readFileSync(path, "latin1")) as RunIndex;
  } catch {
    return null;
  }
  if (index.format !== INDEX_FORMAT || !Array.isArray(index.folders) || !Array.isArray(index.files)) return null;
  return index.folders.every(([folder, time]) => folderTime(join(runDir, folder)) === time) ? index : null;
}

function parseOrNull(path: string): ResultDocument | null {
  try {
    return readResultFile(path);
  } catch (error) {
    if (error instanceof UserError) return null;
    throw error;
  }
}

/** Reads a run from its files and writes its index, unless the run is still being written or the folder is read-only. */
function indexRun(runDir: string, path: string): RunIndex {
  const { folders, files } = runFolderContents(runDir);
  const times = folders.map((folder): [string, string | null] => [folder, folderTime(join(runDir, folder))]);
  const index: RunIndex = {
    format: INDEX_FORMAT,
    folders: times.filter((t): t is [string, string] => t[1] !== null),
    files: files.map((file) => ({ file, doc: parseOrNull(join(runDir, file)) })),
  };
  const settledBefore = BigInt(Date.now() - SETTLED_MS) * 1_000_000n;
  const settled = times.every(([, time]) => time !== null && BigInt(time) < settledBefore);
  if (settled) {
    try {
      mkdirSync(dirname(path), { recursive: true });
      const partial = `${path}.${process.pid}.tmp`;
      writeFileSync(partial, asciiJson(index));
      renameSync(partial, path);
    } catch {
      // The index only saves time: a data folder that cannot hold one is read from its files.
    }
  }
  return index;
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
    for (const { file, doc } of index.files) yield { path: join(runDir, file), doc };
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
  return readIndexedResults(dataDir).map(({ path, doc }) => doc ?? readResultFile(path));
}
