/**
 * The command that measures a cell again: `scripts/bench run` with its scenario, app, runtimes and
 * profile. A result's `reproduce` and the site's chained trend (which measures a link again) both
 * write it here, so the two cannot drift apart. The browser imports it.
 */
import type { Profile } from "./types.ts";

export interface RunCommand {
  suite: string;
  scenario: string;
  app: string | null;
  /** `node@22.11.0`, in the order they run. */
  runtimes: readonly string[];
  profile: Profile;
  /** Each scenario's minimum trials, where the run was given them instead of its profile's. */
  trials?: number;
  /**
   * The cell's load point (`connections=100,rate=500`), measured alone with `--param` options. A
   * result leaves it out: the result holds `params`, and its `reproduce` measures the profile's cells.
   */
  loadPoint?: string;
}

export function runCommand(cell: RunCommand): string {
  return [
    "scripts/bench run",
    `--suite ${cell.suite}`,
    `--scenario ${cell.scenario}`,
    cell.app ? `--app ${cell.app}` : "",
    ...cell.runtimes.map((runtime) => `--runtime ${runtime}`),
    `--profile ${cell.profile}`,
    cell.trials !== undefined ? `--trials ${cell.trials}` : "",
    ...(cell.loadPoint ? cell.loadPoint.split(",").map((pair) => `--param ${pair}`) : []),
  ].filter(Boolean).join(" ");
}
