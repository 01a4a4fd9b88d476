import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError, parseArgsProblem } from "../core/errors.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A subcommand: its options, its help text, and what it does with them. */
export interface Command<O extends Options = Options> {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Help lines for each option, in the order shown. */
  readonly help: readonly string[];
  readonly options: O;
  readonly allowPositionals?: boolean;
  run(values: ParsedValues<O>, positionals: string[]): Promise<number>;
}

export type ParsedValues<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>["values"];

export function defineCommand<O extends Options>(command: Command<O>): Command<O> {
  return command;
}

export function helpText(command: Command): string {
  return [`usage: scripts/bench ${command.usage}`, "", command.summary, "", ...command.help, "  -h, --help  show this help"].join("\n");
}

/** Parses argv for a command; `--help` prints its help and exits 0, a bad option is a UserError. */
export async function invoke(command: Command, argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${helpText(command)}\n`);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: command.options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UserError(`${command.name}: ${parseArgsProblem(error)} (see scripts/bench ${command.name} --help)`);
  }
  if (!command.allowPositionals && parsed.positionals.length > 0) {
    throw new UserError(`${command.name}: unexpected argument '${parsed.positionals[0]}' (see scripts/bench ${command.name} --help)`);
  }
  return command.run(parsed.values as never, parsed.positionals);
}
