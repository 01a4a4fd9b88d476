import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { UserError, errorMessage } from "./errors.ts";
import { REPO_ROOT } from "./paths.ts";
import { describeErrors, validatorFor } from "./schema.ts";

/** A path as a person reads it in a message: relative to the repository when it lies inside it. */
export function displayPath(path: string): string {
  const rel = relative(REPO_ROOT, path);
  return rel.startsWith("..") ? path : rel;
}

/** Parses a JSON file; a missing or unreadable file, or bad JSON, is a UserError naming the file. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UserError(`${displayPath(path)}: ${unreadableReason(error, "no such file")}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(`${displayPath(path)}: not valid JSON: ${errorMessage(error)}`);
  }
}

/**
 * A file the harness derives from the results (the feed, the chained trends) and reads back: null
 * where it has not been written; bad JSON, another schema, or a file its schema in schemas/ refuses
 * (one edited or forged), a UserError naming the first problem and saying how to write it again.
 */
export function readDerivedFile<T extends { schema: string }>(path: string, schema: { id: string; file: string }, writtenBy: string): T | null {
  if (!existsSync(path)) return null;
  let parsed: T;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    throw new UserError(`${displayPath(path)}: not valid JSON (run ${writtenBy} again)`);
  }
  if (parsed?.schema !== schema.id) throw new UserError(`${displayPath(path)}: not a ${schema.id} file (run ${writtenBy} again)`);
  const validate = validatorFor(schema.file);
  if (!validate(parsed)) {
    const problems = describeErrors(validate.errors);
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    throw new UserError(`${displayPath(path)}: ${problems[0]}${more}, which schemas/${schema.file} does not allow (run ${writtenBy} again)`);
  }
  return parsed;
}

/** Writes a file through a rename, its folder created, so that a reader never sees half of it. */
export function replaceFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}

/**
 * A folder an option named (`where`: the command and option) must be there: the option's default
 * may be absent, but a folder named and absent is a typo; `remedy` says what to do instead.
 */
export function checkNamedFolder(where: string, path: string | undefined, remedy: string): void {
  if (path !== undefined && !existsSync(path)) throw new UserError(`${where} ${path}: no such folder (${remedy})`);
}

/** Why a path named on the command line cannot be read, from the error reading it gave; `missing`: what a missing one is. */
export function unreadableReason(error: unknown, missing: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return missing;
  if (code === "ELOOP") return "its symbolic links loop";
  if (code === "EACCES") return "permission denied";
  return `cannot read: ${code ?? errorMessage(error)}`;
}

/** Why a path named on the command line cannot be written, from the error writing it gave. */
export function unwritableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EISDIR") return "a folder is there";
  if (code === "EEXIST" || code === "ENOTDIR") return "a file is in the way";
  if (code === "ENOENT") return "its folder does not exist";
  return `cannot write: ${code ?? errorMessage(error)}`;
}

/** Creates a folder named on the command line (`option`: the one that named it), or a UserError naming it and why not. */
export function makeFolder(path: string, option: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    throw new UserError(`${option} ${displayPath(path)}: ${unwritableReason(error)}`);
  }
}
