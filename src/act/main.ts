import { UserError, errorMessage } from "../core/errors.ts";
import { readJsonFile } from "../core/json-file.ts";
import { runStandIn, writeStandIns } from "./stand-ins.ts";

/*
 * scripts/act's TypeScript side:
 *   stand-ins STATE PINS   writes the stand-ins under STATE and prints act's --local-repository
 *                          mapping for each pin of PINS (.github/action-pins.json), one a line;
 *   stand-in NAME          runs one stand-in inside an act step.
 */
async function main([command, ...args]: string[]): Promise<void> {
  if (command === "stand-ins" && args.length === 2) {
    const { pins } = readJsonFile(args[1]!) as { pins: Record<string, { sha: string }> };
    process.stdout.write(writeStandIns(args[0]!, pins).map((mapping) => `${mapping}\n`).join(""));
  } else if (command === "stand-in" && args.length === 1) {
    await runStandIn(args[0]!, process.env);
  } else {
    throw new UserError("usage: main.ts stand-ins STATE PINS | stand-in NAME");
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`scripts/act: ${errorMessage(error)}\n`);
  if (!(error instanceof UserError)) process.stderr.write(`${(error as Error).stack ?? ""}\n`);
  process.exit(error instanceof UserError ? 2 : 1);
});
