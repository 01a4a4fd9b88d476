import { UserError, errorMessage } from "../core/errors.ts";
import { installInterruptHandling, interruptExitCode, isInterrupted } from "../process/children.ts";
import { invoke, type Command } from "./command.ts";
import { allCommand } from "./commands/all.ts";
import { collectCommand } from "./commands/collect.ts";
import { compareCommand } from "./commands/compare.ts";
import { exportCommand } from "./commands/export.ts";
import { findingsCommand } from "./commands/findings.ts";
import { listCommand } from "./commands/list.ts";
import { planCommand } from "./commands/plan.ts";
import { profileCommand } from "./commands/profile.ts";
import { regressionsCommand } from "./commands/regressions.ts";
import { releasesCommand } from "./commands/releases.ts";
import { reproCommand } from "./commands/repro.ts";
import { runCommand } from "./commands/run.ts";
import { toolsCommand } from "./commands/tools.ts";
import { setupCommand } from "./commands/setup.ts";
import { siteCommand } from "./commands/site.ts";
import { validateCommand } from "./commands/validate.ts";

/** Every subcommand; `scripts/bench` with no arguments runs `all`. */
const COMMANDS: readonly Command[] = [allCommand, runCommand, setupCommand, listCommand, planCommand, validateCommand, siteCommand, compareCommand, findingsCommand, reproCommand, profileCommand, regressionsCommand, exportCommand, releasesCommand, collectCommand, toolsCommand] as unknown as Command[];

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
  (code) => exitWhenWritten(isInterrupted() ? interruptExitCode() : code),
  (error: unknown) => {
    if (isInterrupted()) process.exit(interruptExitCode());
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
