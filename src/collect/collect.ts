import { readFile } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { listResultFiles } from "../results/store.ts";
import { checkAgainst } from "../core/schema.ts";
import type { ResultDocument } from "../results/types.ts";
import { resultPath, writeResult } from "../results/store.ts";

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

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, "utf8")) as unknown;
}

async function existingDocument(path: string): Promise<unknown> {
  try {
    return await readJson(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return null; // present but unreadable: never equal to a result, so reported as a conflict
  }
}

/** Why an emulated result is never published, or null for one measured on its own architecture. */
export function emulatedRefusal(doc: ResultDocument): string | null {
  const emulated = doc.environment.emulated;
  return emulated ? `measured under ${emulated.emulator} (${doc.environment.arch} on ${emulated.host_arch}): an emulated result checks that a runtime runs, and is never published` : null;
}

/**
 * Checks every result file below the artifact folders, then adds the new ones to the data folder
 * at the place their contents name (`data/<runner>/<run id>/...`). Collecting the same artifacts
 * twice adds nothing the second time; a different file at the same place is an error, because a
 * result is never rewritten. Only dedicated runners' results enter the data folder.
 */
export async function collectResults(sources: readonly string[], dataDir: string): Promise<CollectOutcome> {
  const files = listResultFiles(sources);
  const problems: string[] = [];
  const incoming = new Map<string, { doc: ResultDocument; from: string }>();
  for (const file of files) {
    let doc: unknown;
    try {
      doc = await readJson(file);
    } catch {
      problems.push(`${file}: not valid JSON`);
      continue;
    }
    const schemaProblems = checkAgainst("result.schema.json", doc);
    if (schemaProblems.length > 0) {
      problems.push(...schemaProblems.map((p) => `${file}: ${p}`));
      continue;
    }
    const result = doc as ResultDocument;
    const emulated = emulatedRefusal(result);
    if (emulated) {
      problems.push(`${file}: ${emulated}`);
      continue;
    }
    if (result.run.runner_kind !== "dedicated") {
      problems.push(`${file}: a ${result.run.runner_kind} runner's result; only dedicated runners' results are published`);
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
    const existing = await existingDocument(destination);
    if (existing === undefined) toAdd.push(doc);
    else if (isDeepStrictEqual(existing, doc)) alreadyPresent += 1;
    else problems.push(`${from}: ${relative(dataDir, destination)} already holds a different result, and results are never rewritten`);
  }
  if (problems.length > 0) return { files: files.length, added: [], alreadyPresent, problems };
  const added: string[] = [];
  for (const doc of toAdd) added.push(relative(dataDir, await writeResult(dataDir, doc)));
  return { files: files.length, added, alreadyPresent, problems };
}
