import { createHash } from "node:crypto";
import { UserError } from "../core/errors.ts";
import type { BenchRunner } from "./runners.ts";

/*
 * A pool is a set of identical machines that share out the work, so that a release is published
 * within hours however many suites there are. A series never moves between machines while the
 * pool stays as declared: each scenario (and so each of its series) always runs on the same member,
 * so every trend and every comparison stays on one machine.
 *
 * A member's `suites` lists whole suites (`http`) or single scenarios (`http/crud`), for a suite
 * too long for one machine. The rule, for each pool and each scenario:
 *   1. the member that lists the scenario runs it;
 *   2. else the member that lists its suite;
 *   3. else the member with the highest sha256 of `suite/member` (rendezvous hashing), so an
 *      unlisted suite stays whole on one member.
 * So adding a scenario or a suite moves nothing else; adding a member takes to it only unlisted
 * suites that now hash to it; listing a suite or scenario pins it (and moves it, if it ran elsewhere).
 */

/** The suites and scenarios of this checkout. */
export interface ScenarioCatalog {
  /** In the registry's order. */
  readonly suites: readonly string[];
  /** `suite/name`, grouped by suite in the order of `suites`. */
  readonly scenarios: readonly string[];
  /** Suites that take `--app`. */
  readonly suitesWithApps: ReadonlySet<string>;
}

const suiteOf = (scenario: string) => scenario.slice(0, scenario.indexOf("/"));

/** The member of a pool that runs an unlisted suite: the highest hash of suite and member name. */
function rendezvous(suite: string, members: readonly BenchRunner[]): BenchRunner {
  const score = (member: BenchRunner) => createHash("sha256").update(`${suite}/${member.name}`).digest("hex");
  return members.reduce((best, member) => (score(member) > score(best) ? member : best));
}

/**
 * The scenarios each runner runs (`suite/name`), by runner name, in catalog order: every scenario
 * for a machine outside a pool, its share for a pool member. `runners` is the whole configuration:
 * a member's share depends on every member of its pool, whichever runners a command was asked for.
 */
export function assignScenarios(runners: readonly BenchRunner[], catalog: ScenarioCatalog): Map<string, string[]> {
  for (const runner of runners) {
    const unknown = runner.suites?.find((entry) => !catalog.suites.includes(entry) && !catalog.scenarios.includes(entry));
    if (unknown !== undefined) {
      throw new UserError(`.github/bench-runners.json: runner '${runner.name}' lists '${unknown}', which is neither a suite (${catalog.suites.join(", ")}) nor a scenario as suite/name`);
    }
  }
  const assigned = new Map(runners.map((runner) => [runner.name, runner.pool === undefined ? [...catalog.scenarios] : []]));
  const pools = new Set(runners.flatMap((runner) => (runner.pool === undefined ? [] : [runner.pool])));
  for (const pool of pools) {
    const members = runners.filter((runner) => runner.pool === pool);
    for (const scenario of catalog.scenarios) {
      const suite = suiteOf(scenario);
      const member = members.find((m) => m.suites?.includes(scenario)) ?? members.find((m) => m.suites?.includes(suite)) ?? rendezvous(suite, members);
      assigned.get(member.name)!.push(scenario);
    }
  }
  return assigned;
}

/** Scenarios as a person reads them: a suite whose every scenario is there by its name, the others as suite/name. */
export function compactScenarios(scenarios: readonly string[], catalog: ScenarioCatalog): string[] {
  return catalog.suites.flatMap((suite) => {
    const all = catalog.scenarios.filter((s) => suiteOf(s) === suite);
    const mine = scenarios.filter((s) => suiteOf(s) === suite);
    return mine.length === all.length && mine.length > 0 ? [suite] : mine;
  });
}

/** What a benchmark asks for: suites, or scenarios as `suite/name`, and apps; everything when neither. */
export interface WorkRequest {
  readonly suites: readonly string[];
  readonly scenarios: readonly string[];
  readonly apps: readonly string[];
}

/** What one runner's jobs run: `scripts/bench run --suite S... --scenario X... --app A...`. */
export interface RunnerWork {
  readonly suites: readonly string[];
  /** The scenarios of those suites it runs; empty: every scenario of them. */
  readonly scenarios: readonly string[];
  /** Empty unless one of those suites has apps (`--app` is refused by a run without one). */
  readonly apps: readonly string[];
  /** Every scenario it runs, `suite/name`, whether or not `scenarios` names them. */
  readonly covers: readonly string[];
}

/** Checks a requested scenario: `suite/name` of this checkout (a bare name names no machine). */
function checkScenario(scenario: string, catalog: ScenarioCatalog): void {
  const match = /^([^/]+)\/[^/]+$/.exec(scenario);
  if (!match) throw new UserError(`--scenario '${scenario}': expected SUITE/NAME, such as http/json`);
  if (!catalog.suites.includes(match[1]!)) throw new UserError(`--scenario '${scenario}': unknown suite '${match[1]}': suites are ${catalog.suites.join(", ")}`);
  if (!catalog.scenarios.includes(scenario)) throw new UserError(`--scenario '${scenario}': no such scenario in suites/${match[1]}/`);
}

/**
 * The work of each runner that has any, by runner name: its share narrowed to the request. A pool
 * member none of whose scenarios is asked for is left out, so no job runs there for nothing.
 */
export function planWork(assigned: ReadonlyMap<string, readonly string[]>, request: WorkRequest, catalog: ScenarioCatalog): Map<string, RunnerWork> {
  if (request.suites.length > 0 && request.scenarios.length > 0) throw new UserError("give --suite or --scenario, not both: a scenario names its suite");
  for (const suite of request.suites) {
    if (!catalog.suites.includes(suite)) throw new UserError(`unknown suite '${suite}': suites are ${catalog.suites.join(", ")}`);
  }
  for (const scenario of request.scenarios) checkScenario(scenario, catalog);
  const wanted = new Set(
    request.scenarios.length > 0 ? request.scenarios : request.suites.length > 0 ? catalog.scenarios.filter((s) => request.suites.includes(suiteOf(s))) : catalog.scenarios,
  );
  const work = new Map<string, RunnerWork>();
  for (const [runner, scenarios] of assigned) {
    const covers = scenarios.filter((scenario) => wanted.has(scenario));
    if (covers.length === 0) continue;
    const suites = [...new Set(covers.map(suiteOf))];
    const wholeSuites = suites.every((suite) => catalog.scenarios.filter((s) => suiteOf(s) === suite).every((s) => covers.includes(s)));
    work.set(runner, {
      suites,
      scenarios: request.scenarios.length === 0 && wholeSuites ? [] : covers,
      apps: suites.some((suite) => catalog.suitesWithApps.has(suite)) ? [...request.apps] : [],
      covers,
    });
  }
  return work;
}

/** Each pool member's pool and what it runs there (`compactScenarios`), by runner name, for the site; machines outside a pool are absent. */
export function poolMemberships(runners: readonly BenchRunner[], catalog: ScenarioCatalog): Map<string, { name: string; runs: string[] }> {
  const assigned = assignScenarios(runners, catalog);
  return new Map(
    runners.flatMap((runner) => (runner.pool === undefined ? [] : [[runner.name, { name: runner.pool, runs: compactScenarios(assigned.get(runner.name)!, catalog) }] as const])),
  );
}
