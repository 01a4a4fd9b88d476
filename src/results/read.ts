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

/** Files read at once: enough to keep the disk busy, far below the process's open-file limit. */
const READ_CONCURRENCY = 64;

/** Reads result documents (unchecked: `validate` is the checker); unreadable files are a UserError. */
export async function readResults(paths: readonly string[]): Promise<LoadedResult[]> {
  const files = await listJsonFiles(paths);
  const loaded = new Array<LoadedResult>(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const index = next++;
      const path = files[index]!;
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (error) {
        throw new UserError(`${path}: cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      try {
        loaded[index] = { path, doc: JSON.parse(text) as ResultDocument };
      } catch {
        throw new UserError(`${path}: not valid JSON`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
  return loaded;
}
