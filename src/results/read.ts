import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import type { ResultDocument } from "./types.ts";

/**
 * Every `.json` file below the given files or folders, in a stable order. Synchronous on purpose,
 * like the reads below: a history holds 100,000 small files, and a stat and a promise per entry
 * cost more than the reading.
 */
export function listJsonFiles(paths: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith("."))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json")) found.push(path);
    }
  };
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new UserError(`${path}: no such file or folder`);
    }
    if (isDirectory) walk(path);
    else if (path.endsWith(".json")) found.push(path);
  }
  return found;
}

export interface LoadedResult {
  readonly path: string;
  readonly doc: ResultDocument;
}

/**
 * Reads result documents (unchecked: `validate` is the checker); unreadable files are a UserError.
 * A plain loop of readFileSync + JSON.parse reads 100,000 small files several times faster than
 * promise-based reads (as the site build does).
 */
export function readResults(paths: readonly string[]): LoadedResult[] {
  return listJsonFiles(paths).map((path) => {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new UserError(`${path}: cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    try {
      return { path, doc: JSON.parse(text) as ResultDocument };
    } catch {
      throw new UserError(`${path}: not valid JSON`);
    }
  });
}

/** The documents of `readResults`; none at all is bad input, named by `what` (the side or command). */
export function readDocuments(paths: readonly string[], what: string): ResultDocument[] {
  const docs = readResults(paths).map((r) => r.doc);
  if (docs.length === 0) throw new UserError(`${what}: no result files in ${paths.join(", ")}`);
  return docs;
}
