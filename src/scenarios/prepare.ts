import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import { runCommand, tail } from "../process/children.ts";
import { displayPath, type Scenario } from "./manifest.ts";

/**
 * Runs a scenario's prepare step (generate files, install its packages from its lockfile) with the
 * harness's own Node and npm, once: a scenario whose `creates` path exists is ready.
 */
export async function prepareScenario(scenario: Scenario, note: (line: string) => void): Promise<void> {
  const prepare = scenario.manifest.prepare;
  if (!prepare || existsSync(join(scenario.dir, prepare.creates))) return;
  note(`preparing ${scenario.suite}/${scenario.name}: ${prepare.command.join(" ")}`);
  const [command, ...args] = prepare.command.map((part) => (part === "node" ? process.execPath : part));
  const result = await runCommand(command!, args, { cwd: scenario.dir, timeoutMs: 10 * 60_000 });
  if (result.code !== 0 || !existsSync(join(scenario.dir, prepare.creates))) {
    throw new UserError(
      `${displayPath(scenario.dir)}: prepare step '${prepare.command.join(" ")}' failed: ${tail(result.stderr || result.stdout, 3) || result.spawnError || `did not create ${prepare.creates}`}`,
    );
  }
}
