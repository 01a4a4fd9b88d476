import { groupBy } from "../compare/series-key.ts";
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
 * The order of trial `index` when items of one `key` are compared trial by trial (the runtimes or
 * builds of one app and load point): each group's items back to back, so the two trials of a pair
 * run seconds apart and share what the machine did then, rather than a whole round apart; the
 * groups, and the items within each group, rotated by one more place each trial, so no subject
 * always goes first.
 */
export function pairedOrder<T>(items: readonly T[], key: (item: T) => string, index: number): T[] {
  return rotate([...groupBy(items, key).values()], index).flatMap((group) => rotate(group, index));
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
