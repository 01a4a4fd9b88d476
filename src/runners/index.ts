import { UserError } from "../core/errors.ts";
import { httpRunner } from "./http.ts";
import { startupRunner } from "./startup.ts";
import type { SuiteRunner } from "./types.ts";

/** Every suite the harness can run. A new scenario needs no entry here; a new kind of suite does. */
const RUNNERS: readonly SuiteRunner[] = [startupRunner, httpRunner];

export function runnerFor(suite: string): SuiteRunner {
  const runner = RUNNERS.find((r) => r.suite === suite);
  if (!runner) throw new UserError(`unknown suite '${suite}': known suites are ${RUNNERS.map((r) => r.suite).join(", ")}`);
  return runner;
}

export function allRunners(): readonly SuiteRunner[] {
  return RUNNERS;
}
