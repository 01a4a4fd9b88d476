/**
 * What a run will cost before it measures anything: each suite's cells, trials and seconds from
 * its estimate hook, at each profile's minimum trials. `scripts/bench plan` prints it; `run
 * --time-limit` gives adaptive trials what the limit leaves beyond it.
 */
import semver from "semver";
import { MIN_PAIRS, adaptivePlan, oneOffPlan } from "../compare/sequential.ts";
import { atLoadPoint, paramsSlug, type LoadPointFilter, type ParamValue } from "../core/params.ts";
import type { RuntimeSpec } from "../runtimes/spec.ts";
import { suiteProfileOf } from "../results/types.ts";
import type { ResolvedScenario } from "../suites/resolve.ts";
import { trialsSeconds } from "../suites/suite.ts";

/** A suite's share of a planned run. */
export interface SuitePlan {
  suite: string;
  scenarios: number;
  /** Cells and trials are counted by the suite's estimate hook: 0 without one. */
  cells: number;
  trials: number;
  /** Null when the suite has no estimate hook. */
  seconds: number | null;
  /** The same with every cell at its cap of adaptive trials (where subjects run side by side and no cell decides early). */
  maxSeconds: number | null;
}

/** Whether a runtime can run a scenario at all, as far as its spec tells (an exact version below the minimum cannot). */
function runs(selected: ResolvedScenario, spec: RuntimeSpec): boolean {
  const support = selected.scenario.manifest.runtimes[spec.name];
  if (!support) return false;
  if (spec.request.kind !== "exact" || !support.min_version) return true;
  return !semver.lt(spec.request.version, support.min_version);
}

/** What a suite's estimate of a scenario is asked with: the suite's own options, parsed, and the runtimes that run the scenario. */
function estimateInputs(selected: ResolvedScenario, specs: readonly RuntimeSpec[], suiteOptions: Readonly<Record<string, Record<string, string[]>>>) {
  const { suite } = selected;
  return { parsed: suite.parseOptions?.(suiteOptions[suite.name] ?? {}) ?? {}, running: specs.filter((s) => runs(selected, s)) };
}

/**
 * The first scenario a load-point filter leaves none of its cells, with the load points the suite's
 * estimate lists for it, or null: `run` names it before anything is provisioned. (A suite without
 * an estimate is checked when the run lists its cells.)
 */
export function scenarioLeftNoCell(scenarios: readonly ResolvedScenario[], specs: readonly RuntimeSpec[], suiteOptions: Readonly<Record<string, Record<string, string[]>>>, params: LoadPointFilter): { selected: ResolvedScenario; points: string[] } | null {
  for (const selected of scenarios) {
    const { suite, scenario } = selected;
    if (!suite.estimate) continue;
    const { parsed, running } = estimateInputs(selected, specs, suiteOptions);
    const points = new Set<string>();
    let kept = false;
    const keeps = (cell: Readonly<Record<string, ParamValue>>) => {
      points.add(paramsSlug(cell) || "none");
      const keep = atLoadPoint(cell, params);
      kept ||= keep;
      return keep;
    };
    for (const spec of running) suite.estimate(scenario, spec.name, parsed, keeps);
    if (points.size > 0 && !kept) return { selected, points: [...points] };
  }
  return null;
}

export interface PlanOptions {
  /** False where no verdict reads the run (the smoke profile); default true. */
  readonly judged?: boolean;
  /** Only the cells at these load points (`run --param`, `--load-point`); default every cell. */
  readonly params?: LoadPointFilter;
}

/**
 * The cells, trials and estimated time of each suite for these scenarios on these runtimes, with
 * each suite's own options (suite → option → values), as `run` would measure them: where several
 * runtimes run a scenario side by side, at least the MIN_PAIRS trials a paired verdict needs
 * (src/orchestrate/adaptive.ts), unless no verdict reads the run.
 */
export function planRun(scenarios: readonly ResolvedScenario[], specs: readonly RuntimeSpec[], suiteOptions: Readonly<Record<string, Record<string, string[]>>>, options: PlanOptions = {}): SuitePlan[] {
  const judged = options.judged ?? true;
  const keeps = (params: Readonly<Record<string, ParamValue>>) => atLoadPoint(params, options.params);
  const plans = new Map<string, SuitePlan>();
  for (const selected of scenarios) {
    const { suite, scenario } = selected;
    const plan = plans.get(suite.name) ?? { suite: suite.name, scenarios: 0, cells: 0, trials: 0, seconds: suite.estimate ? 0 : null, maxSeconds: suite.estimate ? 0 : null };
    plans.set(suite.name, plan);
    plan.scenarios += 1;
    if (!suite.estimate) continue;
    const { parsed, running } = estimateInputs(selected, specs, suiteOptions);
    const { trials } = scenario.profileParams;
    const measured = judged && running.length > 1 ? Math.max(trials, MIN_PAIRS) : trials;
    // Two releases of one runtime go to the sequential rule's cap; runtimes side by side to the one-off plan's second look.
    const releases = new Set(running.map((s) => s.name)).size < running.length;
    const cap = judged && running.length > 1 ? (releases ? adaptivePlan : oneOffPlan)(trials, suiteProfileOf(scenario.profile)).looks.at(-1)! : trials;
    for (const spec of running) {
      const estimate = suite.estimate(scenario, spec.name, parsed, keeps);
      const { cells, countingSeconds = 0 } = estimate;
      // A trial's cost is the same at any count: the trials run, and the cap, scale the estimate; the counting pass runs once.
      const timed = trialsSeconds(estimate);
      const seconds = (timed * measured) / trials + countingSeconds;
      plan.cells += cells;
      plan.trials += cells * measured;
      plan.seconds! += seconds;
      plan.maxSeconds! += (timed * cap) / trials + countingSeconds;
    }
  }
  return [...plans.values()];
}

/**
 * What a time limit leaves for adaptive trials: the limit less the plans' estimate at each
 * profile's minimum (the estimate `scripts/bench plan` prints), never below 0.
 */
export function timeLeft(limitSeconds: number, plans: readonly SuitePlan[]): { estimate: number; extra: number } {
  const estimate = plans.reduce((sum, plan) => sum + (plan.seconds ?? 0), 0);
  return { estimate, extra: Math.max(0, limitSeconds - estimate) };
}

/**
 * The seconds a scenario's adaptive trials may take of what a time limit left (`left`): its share
 * in proportion to what they would add at every cell's cap (`own`, priced as `planRun` prices it)
 * against what the scenarios after it would add (`after`). What a scenario leaves unspent goes to
 * those after it, and a limit that covers every cap holds none back. Shares keep the first
 * scenarios in the run's order from taking what the last need; without a price (a suite with no
 * estimate) a scenario may take all that is left.
 */
export function secondsShare(left: number, own: number | null, after: number): number {
  if (own === null || !Number.isFinite(left)) return left;
  return own + after <= 0 ? left : (left * own) / (own + after);
}

/** What a scenario's adaptive trials would add at every cell's cap on these runtimes, or null where its suite has no estimate. */
export function extraAtCap(selected: ResolvedScenario, specs: readonly RuntimeSpec[], suiteOptions: Readonly<Record<string, Record<string, string[]>>>, options: PlanOptions): number | null {
  const [plan] = planRun([selected], specs, suiteOptions, options);
  return plan?.seconds == null || plan.maxSeconds == null ? null : Math.max(0, plan.maxSeconds - plan.seconds);
}
