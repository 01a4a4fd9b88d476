/**
 * What scripts/benchmark starts: benchmarks/NAME.ts, as if started alone (its argv is its own), with
 * bad input (an option it does not know, a UserError it throws) said in one line and exit status 2,
 * as the harness says it, never as a stack trace; an interrupt exits as the harness's does (130 after
 * SIGINT), once the commands it started have saved and cleaned up.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { UserError, errorMessage, parseArgsProblem } from "../../src/core/errors.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { installInterruptHandling, interruptCleanup, interruptExitCode, isInterrupted } from "../../src/process/children.ts";

const [name = "", ...args] = process.argv.slice(2);
const file = join(REPO_ROOT, "benchmarks", `${name}.ts`);
process.argv = [process.argv[0]!, file, ...args];

/** node:util's parseArgs throws these for an unknown option or a missing value. */
const badOption = (error: unknown) => typeof (error as { code?: unknown }).code === "string" && (error as { code: string }).code.startsWith("ERR_PARSE_ARGS_");

// Before the benchmark starts anything: an interrupt then stops its children, and the `scripts/bench` ones save and clean up first.
installInterruptHandling();
try {
  await import(pathToFileURL(file).href);
} catch (error) {
  if (isInterrupted()) {
    await interruptCleanup();
    process.exit(interruptExitCode());
  }
  if (!(error instanceof UserError) && !badOption(error)) throw error;
  process.stderr.write(`${name}: ${badOption(error) ? parseArgsProblem(error) : errorMessage(error)}\n`);
  process.exitCode = 2;
}
