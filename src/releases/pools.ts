import { createHash } from "node:crypto";
import { UserError } from "../core/errors.ts";
import type { BenchRunner } from "./runners.ts";

/*
 * A pool is a set of identical machines that share out the suites, so that a release is published
 * within hours however many suites there are. A series never moves between machines while the
 * pool stays as declared: each suite always runs on the same member, so every trend and every
 * comparison stays on one machine.
 *
 * The rule, for each pool and each suite:
 *   1. the member that lists the suite in its `suites` runs it;
 *   2. a suite no member lists runs on the member with the highest sha256 of `suite/member`
 *      (rendezvous hashing).
 * So adding a suite moves no other suite; adding a member takes to it only unlisted suites that
 * now hash to it; listing a suite pins it (and moves it, if it hashed elsewhere).
 */

/** The member of a pool that runs an unlisted suite: the highest hash of suite and member name. */
function rendezvous(suite: string, members: readonly BenchRunner[]): BenchRunner {
  const score = (member: BenchRunner) => createHash("sha256").update(`${suite}/${member.name}`).digest("hex");
  return members.reduce((best, member) => (score(member) > score(best) ? member : best));
}

/**
 * The suites each runner runs, by runner name, in the order of `suites`: every suite for a machine
 * outside a pool, its share for a pool member. `runners` is the whole configuration: a member's
 * share depends on every member of its pool, whichever runners a command was asked for.
 */
export function assignSuites(runners: readonly BenchRunner[], suites: readonly string[]): Map<string, string[]> {
  for (const runner of runners) {
    const unknown = runner.suites?.find((suite) => !suites.includes(suite));
    if (unknown !== undefined) throw new UserError(`.github/bench-runners.json: runner '${runner.name}' lists unknown suite '${unknown}': suites are ${suites.join(", ")}`);
  }
  const assigned = new Map(runners.map((runner) => [runner.name, runner.pool === undefined ? [...suites] : []]));
  const pools = new Set(runners.flatMap((runner) => (runner.pool === undefined ? [] : [runner.pool])));
  for (const pool of pools) {
    const members = runners.filter((runner) => runner.pool === pool);
    for (const suite of suites) {
      const member = members.find((m) => m.suites?.includes(suite)) ?? rendezvous(suite, members);
      assigned.get(member.name)!.push(suite);
    }
  }
  return assigned;
}

/** What a benchmark asks for: suites, or scenarios as `suite/name`, and apps; all suites when neither. */
export interface WorkRequest {
  readonly suites: readonly string[];
  readonly scenarios: readonly string[];
  readonly apps: readonly string[];
}

/** What one runner's jobs run: `scripts/bench run --suite S... --scenario X... --app A...`. */
export interface RunnerWork {
  readonly suites: readonly string[];
  /** The requested scenarios of those suites; empty: every scenario of them. */
  readonly scenarios: readonly string[];
  /** Empty unless one of those suites has apps (`--app` is refused by a run without one). */
  readonly apps: readonly string[];
}

/** The scenario's suite, from `suite/name`; a bare name is refused, since it names no machine. */
export function suiteOfScenario(scenario: string, suites: readonly string[]): string {
  const match = /^([^/]+)\/[^/]+$/.exec(scenario);
  if (!match) throw new UserError(`--scenario '${scenario}': expected SUITE/NAME, such as http/json`);
  if (!suites.includes(match[1]!)) throw new UserError(`--scenario '${scenario}': unknown suite '${match[1]}': suites are ${suites.join(", ")}`);
  return match[1]!;
}

/**
 * The work of each runner that has any, by runner name: its suites narrowed to the request. A pool
 * member none of whose suites is asked for is left out, so no job runs there for nothing.
 */
export function planWork(
  assigned: ReadonlyMap<string, readonly string[]>,
  request: WorkRequest,
  allSuites: readonly string[],
  suitesWithApps: ReadonlySet<string>,
): Map<string, RunnerWork> {
  if (request.suites.length > 0 && request.scenarios.length > 0) throw new UserError("give --suite or --scenario, not both: a scenario names its suite");
  for (const suite of request.suites) {
    if (!allSuites.includes(suite)) throw new UserError(`unknown suite '${suite}': suites are ${allSuites.join(", ")}`);
  }
  const scenarioSuites = request.scenarios.map((scenario) => suiteOfScenario(scenario, allSuites));
  const wanted = request.scenarios.length > 0 ? scenarioSuites : request.suites.length > 0 ? request.suites : allSuites;
  const work = new Map<string, RunnerWork>();
  for (const [runner, suites] of assigned) {
    const mine = suites.filter((suite) => wanted.includes(suite));
    if (mine.length === 0) continue;
    work.set(runner, {
      suites: mine,
      scenarios: request.scenarios.filter((_, i) => mine.includes(scenarioSuites[i]!)),
      apps: mine.some((suite) => suitesWithApps.has(suite)) ? [...request.apps] : [],
    });
  }
  return work;
}

/** Each pool member's pool and current suites, by runner name, for the site; machines outside a pool are absent. */
export function poolMemberships(runners: readonly BenchRunner[], suites: readonly string[]): Map<string, { name: string; suites: string[] }> {
  const assigned = assignSuites(runners, suites);
  return new Map(runners.flatMap((runner) => (runner.pool === undefined ? [] : [[runner.name, { name: runner.pool, suites: assigned.get(runner.name)! }] as const])));
}
