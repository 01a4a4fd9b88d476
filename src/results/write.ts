import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { checkAgainst } from "./schema.ts";
import type { ParamValue, ResultDocument } from "./types.ts";

/** `connections=100,keepalive=true`, in key order: the part of a file name that tells load points apart. */
export function paramsSlug(params: Readonly<Record<string, ParamValue>>): string {
  return Object.keys(params)
    .sort()
    .map((key) => `${key}=${String(params[key])}`)
    .join(",");
}

/**
 * `<out>/<runner>/<run id>/<suite>/<scenario>/<runtime>-<version>[--<app>][--<params>].json`.
 * A run id is unique per run, so no two runs (or machines) ever write the same file.
 */
export function resultPath(outDir: string, doc: ResultDocument): string {
  const parts = [`${doc.runtime.name}-${doc.runtime.version}`];
  if (doc.app !== null) parts.push(doc.app);
  const slug = paramsSlug(doc.params);
  if (slug) parts.push(slug);
  const file = `${parts.join("--").replace(/[^A-Za-z0-9._=,@+-]/g, "_")}.json`;
  return join(outDir, doc.run.runner, doc.run.id, doc.suite, doc.scenario, file);
}

export class InvalidResultError extends Error {
  override readonly name = "InvalidResultError";
}

/** Checks a document against the schema, then creates its file; an existing file is never rewritten. */
export async function writeResult(outDir: string, doc: ResultDocument): Promise<string> {
  const problems = checkAgainst("result.schema.json", doc);
  if (problems.length > 0) throw new InvalidResultError(`result for ${doc.suite}/${doc.scenario} breaks the schema: ${problems.join("; ")}`);
  const path = resultPath(outDir, doc);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(doc, null, 1)}\n`, { flag: "wx" });
  return path;
}
