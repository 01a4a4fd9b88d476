/**
 * What scripts/benchmark starts: benchmarks/NAME.ts, as if started alone (its argv is its own), with
 * bad input (an option it does not know, a UserError it throws) said in one line and exit status 2,
 * as the harness says it, never as a stack trace.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { UserError, errorMessage } from "../../src/core/errors.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";

const [name = "", ...args] = process.argv.slice(2);
const file = join(REPO_ROOT, "benchmarks", `${name}.ts`);
process.argv = [process.argv[0]!, file, ...args];

/** node:util's parseArgs throws these for an unknown option or a missing value. */
const badOption = (error: unknown) => typeof (error as { code?: unknown }).code === "string" && (error as { code: string }).code.startsWith("ERR_PARSE_ARGS_");

try {
  await import(pathToFileURL(file).href);
} catch (error) {
  if (!(error instanceof UserError) && !badOption(error)) throw error;
  process.stderr.write(`${name}: ${errorMessage(error)}\n`);
  process.exitCode = 2;
}
