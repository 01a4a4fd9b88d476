import type { RegressionReport } from "./types.ts";

/** The feed's file name for programs (the site reads it): the whole report. */
export const FEED_JSON_FILE = "regressions.json";

export function regressionsJson(report: RegressionReport): string {
  return `${JSON.stringify(report, null, 1)}\n`;
}
