import { SUITES } from "../suites/index.ts";
import type { ResolvedScenario } from "../suites/resolve.ts";

/**
 * The order of trial `index`: the list rotated by one more place each trial (A B C, B C A, C A B),
 * so slow drift of the machine falls on every runtime alike.
 */
export function rotate<T>(items: readonly T[], index: number): T[] {
  if (items.length === 0) return [];
  const shift = index % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/**
 * The order a run measures its scenarios in: the suites in SUITES' order, each suite's scenarios in
 * theirs. Adaptive trials draw on one budget for the whole run, first come first served, so
 * startup and HTTP, whose detection the release job is sized for (docs/release-job.md), get the
 * first claim.
 */
export function inSuiteOrder(scenarios: readonly ResolvedScenario[]): ResolvedScenario[] {
  return [...scenarios].sort((a, b) => SUITES.indexOf(a.suite) - SUITES.indexOf(b.suite));
}
