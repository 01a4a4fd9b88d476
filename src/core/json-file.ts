import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { UserError, errorMessage } from "./errors.ts";
import { REPO_ROOT } from "./paths.ts";

/** A path as a person reads it in a message: relative to the repository when it lies inside it. */
export function displayPath(path: string): string {
  const rel = relative(REPO_ROOT, path);
  return rel.startsWith("..") ? path : rel;
}

/** Parses a JSON file; bad JSON is a UserError naming the file. */
export function readJsonFile(path: string): unknown {
  const text = readFileSync(path, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(`${displayPath(path)}: not valid JSON: ${errorMessage(error)}`);
  }
}
