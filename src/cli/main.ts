import { UserError, errorMessage } from "../core/errors.ts";
import { installInterruptHandling, interruptCleanup, interruptExitCode, isInterrupted } from "../process/children.ts";
import { invoke, type Command } from "./command.ts";
import { allSubcommand } from "./commands/all.ts";
import { collectSubcommand } from "./commands/collect.ts";
import { compareSubcommand } from "./commands/compare.ts";
import { exportSubcommand } from "./commands/export.ts";
import { findingsSubcommand } from "./commands/findings.ts";
import { listSubcommand } from "./commands/list.ts";
import { planSubcommand } from "./commands/plan.ts";
import { profileSubcommand } from "./commands/profile.ts";
import { regressionsSubcommand } from "./commands/regressions.ts";
import { releasesSubcommand } from "./commands/releases.ts";
import { reproSubcommand } from "./commands/repro.ts";
import { runSubcommand } from "./commands/run.ts";
import { toolsSubcommand } from "./commands/tools.ts";
import { setupSubcommand } from "./commands/setup.ts";
import { siteSubcommand } from "./commands/site.ts";
import { sweepSubcommand } from "./commands/sweep.ts";
import { validateSubcommand } from "./commands/validate.ts";

/** Every subcommand; `scripts/bench` with no arguments runs `all`. */
const COMMANDS: readonly Command[] = [allSubcommand, runSubcommand, setupSubcommand, listSubcommand, planSubcommand, validateSubcommand, siteSubcommand, compareSubcommand, findingsSubcommand, reproSubcommand, profileSubcommand, regressionsSubcommand, exportSubcommand, releasesSubcommand, sweepSubcommand, collectSubcommand, toolsSubcommand] as unknown as Command[];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "usage: scripts/bench [COMMAND] [OPTIONS]",
    "",
    "Continuous benchmarks of Node.js, Deno and Bun. With no command: set up, run every suite's default selection in the quick profile, summarise.",
    "",
    "commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "scripts/bench COMMAND --help shows a command's options.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const name = first ?? "all";
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UserError(`unknown command '${name}' (scripts/bench --help lists them)`);
  return invoke(command, rest);
}

/**
 * Exits once stdout has taken everything written to it. Writes to a pipe are asynchronous, so
 * exiting at once cut a long report short (`regressions --json | jq` got the first 128 KiB).
 */
function exitWhenWritten(code: number): void {
  process.stdout.write("", () => process.exit(code));
}

installInterruptHandling();
main(process.argv.slice(2)).then(
  // After Ctrl-C the command has waited for the save and reported what was written.
  async (code) => {
    await interruptCleanup();
    exitWhenWritten(isInterrupted() ? interruptExitCode() : code);
  },
  async (error: unknown) => {
    // A failure the interrupt caused (a killed psql became "could not load the database") exits only once its cleanup has.
    if (isInterrupted()) {
      await interruptCleanup();
      process.exit(interruptExitCode());
    }
    if (error instanceof UserError) {
      process.stderr.write(`runtime-bench: ${error.message}\n`);
      process.exit(2);
    }
    // A bug, not bad input: still one line, with the stack only on request.
    process.stderr.write(`runtime-bench: internal error: ${errorMessage(error)}\n`);
    if (process.env.RUNTIME_BENCH_DEBUG) process.stderr.write(`${(error as Error).stack ?? ""}\n`);
    process.exit(1);
  },
);
