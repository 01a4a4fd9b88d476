/**
 * The command that measures a cell again: `scripts/bench run` with its scenario, app, runtimes and
 * profile. A result's `reproduce` and the site's chained trend (which measures a link again) both
 * write it here, so the two cannot drift apart. The browser imports it.
 */
import { shellComment } from "../core/markup.ts";
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
   * The cell's load point (`connections=100,rate=500`). `run` has no option choosing one: it
   * measures every load point of the profile, this one among them, so a trailing comment names it.
   * A result leaves it out: its schema keeps `reproduce` to options, and the result holds `params`.
   */
  loadPoint?: string;
}

export function runCommand(cell: RunCommand): string {
  const command = [
    "scripts/bench run",
    `--suite ${cell.suite}`,
    `--scenario ${cell.scenario}`,
    cell.app ? `--app ${cell.app}` : "",
    ...cell.runtimes.map((runtime) => `--runtime ${runtime}`),
    `--profile ${cell.profile}`,
    cell.trials !== undefined ? `--trials ${cell.trials}` : "",
  ].filter(Boolean).join(" ");
  return cell.loadPoint ? `${command} ${shellComment(`measures the load point ${cell.loadPoint} among the ${cell.profile} profile's`)}` : command;
}
