import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import type { ResultDocument } from "./types.ts";

/** Every `.json` file below the given files or folders, in a stable order. */
export async function listJsonFiles(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string): Promise<void> => {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new UserError(`${path}: no such file or folder`);
    }
    if (info.isDirectory()) {
      const entries = (await readdir(path)).filter((e) => !e.startsWith(".")).sort();
      for (const entry of entries) await walk(join(path, entry));
    } else if (path.endsWith(".json")) {
      found.push(path);
    }
  };
  for (const path of paths) await walk(path);
  return found;
}

export interface LoadedResult {
  readonly path: string;
  readonly doc: ResultDocument;
}

/** Reads result documents (unchecked: `validate` is the checker); unreadable files are a UserError. */
export async function readResults(paths: readonly string[]): Promise<LoadedResult[]> {
  const files = await listJsonFiles(paths);
  return Promise.all(
    files.map(async (path) => {
      try {
        return { path, doc: JSON.parse(await readFile(path, "utf8")) as ResultDocument };
      } catch {
        throw new UserError(`${path}: not valid JSON`);
      }
    }),
  );
}
