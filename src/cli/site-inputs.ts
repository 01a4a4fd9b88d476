/**
 * What the site build is handed from outside src/site/ (which imports no suite code): the
 * scenarios described by their suites and the pools of .github/bench-runners.json. Apart from the
 * site command's module, which starts the build's parts before it loads this (and the suites).
 */
import { poolMemberships } from "../releases/pools.ts";
import { loadBenchRunners } from "../releases/runners.ts";
import type { PoolMembership } from "../site/model.ts";
import { selectScenarios } from "../scenarios/select.ts";
import { describeScenarios } from "../suites/resolve.ts";
import { benchCatalog } from "./commands/releases.ts";

/** The pools of .github/bench-runners.json, so the site shows each suite from the member that runs it. */
export function benchPools(): Map<string, PoolMembership> {
  return poolMemberships(loadBenchRunners(), benchCatalog());
}

/** Every scenario of this checkout, described by its suite: what the site shows beside the results. */
export function allScenarios() {
  return describeScenarios(selectScenarios({ suites: [], scenarios: [] }));
}
