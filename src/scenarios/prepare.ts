import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import { runCommand, tail } from "../process/children.ts";
import { displayPath } from "../core/json-file.ts";
import type { Scenario } from "./manifest.ts";

/** A command that makes a folder ready, run once: a folder whose `creates` path exists is ready. */
export interface PrepareStep {
  readonly command: readonly string[];
  readonly creates: string;
}

/** Installs a folder's npm packages exactly as its lockfile pins them, running none of their scripts. */
export const NPM_CI_STEP: PrepareStep = {
  command: ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
  creates: "node_modules/.package-lock.json",
};

/** Runs `step` in `dir` with the harness's own Node and npm, unless it has run before. */
export async function runPrepareStep(dir: string, step: PrepareStep, label: string, note: (line: string) => void): Promise<void> {
  if (existsSync(join(dir, step.creates))) return;
  note(`preparing ${label}: ${step.command.join(" ")}`);
  const [command, ...args] = step.command.map((part) => (part === "node" ? process.execPath : part));
  const result = await runCommand(command!, args, { cwd: dir, timeoutMs: 10 * 60_000 });
  if (result.code !== 0 || !existsSync(join(dir, step.creates))) {
    throw new UserError(
      `${displayPath(dir)}: prepare step '${step.command.join(" ")}' failed: ${tail(result.stderr || result.stdout, 3) || result.spawnError || `did not create ${step.creates}`}`,
    );
  }
}

/** Runs a scenario's prepare step (generate files, install its packages from its lockfile) once. */
export async function prepareScenario(scenario: Scenario, note: (line: string) => void): Promise<void> {
  const prepare = scenario.manifest.prepare;
  if (prepare) await runPrepareStep(scenario.dir, prepare, `${scenario.suite}/${scenario.name}`, note);
}
