import { UserError, errorMessage } from "../core/errors.ts";
import { installInterruptHandling, interruptCleanup, interruptExitCode, isInterrupted } from "../process/children.ts";
import { invoke, type Command } from "./command.ts";

/**
 * Every subcommand by name, in the order `--help` lists them (`scripts/bench` with no arguments runs `all`); a command's module (and what it
 * imports) is loaded only when it is chosen: loading all of them took a tenth of a second of every
 * command's start, the site build's among them.
 */
const COMMANDS: readonly (readonly [string, () => Promise<unknown>])[] = [
  ["all", async () => (await import("./commands/all.ts")).allSubcommand],
  ["run", async () => (await import("./commands/run.ts")).runSubcommand],
  ["setup", async () => (await import("./commands/setup.ts")).setupSubcommand],
  ["list", async () => (await import("./commands/list.ts")).listSubcommand],
  ["plan", async () => (await import("./commands/plan.ts")).planSubcommand],
  ["validate", async () => (await import("./commands/validate.ts")).validateSubcommand],
  ["site", async () => (await import("./commands/site.ts")).siteSubcommand],
  ["compare", async () => (await import("./commands/compare.ts")).compareSubcommand],
  ["findings", async () => (await import("./commands/findings.ts")).findingsSubcommand],
  ["repro", async () => (await import("./commands/repro.ts")).reproSubcommand],
  ["profile", async () => (await import("./commands/profile.ts")).profileSubcommand],
  ["regressions", async () => (await import("./commands/regressions.ts")).regressionsSubcommand],
  ["export", async () => (await import("./commands/export.ts")).exportSubcommand],
  ["releases", async () => (await import("./commands/releases.ts")).releasesSubcommand],
  ["sweep", async () => (await import("./commands/sweep/index.ts")).sweepSubcommand],
  ["collect", async () => (await import("./commands/collect.ts")).collectSubcommand],
  ["tools", async () => (await import("./commands/tools.ts")).toolsSubcommand],
];

async function load(entry: (typeof COMMANDS)[number]): Promise<Command> {
  return (await entry[1]()) as Command;
}

async function usage(): Promise<string> {
  const commands = await Promise.all(COMMANDS.map(load));
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "usage: scripts/bench [COMMAND] [OPTIONS]",
    "",
    "Continuous benchmarks of Node.js, Deno and Bun. With no command: set up, run every suite's default selection in the quick profile, summarise.",
    "",
    "commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "scripts/bench COMMAND --help shows a command's options.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(`${await usage()}\n`);
    return 0;
  }
  const name = first ?? "all";
  const entry = COMMANDS.find(([known]) => known === name);
  if (!entry) throw new UserError(`unknown command '${name}' (scripts/bench --help lists them)`);
  return invoke(await load(entry), rest);
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
