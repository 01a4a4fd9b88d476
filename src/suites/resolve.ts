import { UserError } from "../core/errors.ts";
import { displayPath } from "../core/json-file.ts";
import { checkAgainst } from "../core/schema.ts";
import { suiteProfileOf, type Profile, type SuiteProfile } from "../results/types.ts";
import { suiteSchemas, type DescribedScenario, type ProfileParams, type Scenario } from "../scenarios/manifest.ts";
import type { MetricDefinition } from "../results/types.ts";
import { smokeWarmUp } from "../tools/warm-up.ts";
import { suiteFor } from "./index.ts";
import type { AnySuite, SuiteScenario } from "./suite.ts";

/** A scenario ready to run: its suite, and the scenario with the chosen profile resolved. */
export interface ResolvedScenario {
  readonly suite: AnySuite;
  readonly scenario: SuiteScenario;
}

/** The metrics a scenario records: the suite's, narrowed and overridden by the manifest's `metrics`. */
export function scenarioMetrics(suite: AnySuite, scenario: Scenario): Record<string, MetricDefinition> {
  const overrides = scenario.manifest.metrics;
  if (!overrides) return { ...suite.metrics };
  const unknown = Object.keys(overrides).filter((name) => !suite.metrics[name]);
  if (unknown.length > 0) {
    throw new UserError(
      `${displayPath(scenario.manifestPath)}: /metrics: ${unknown.join(", ")} not recorded by the ${suite.name} suite (it records ${Object.keys(suite.metrics).join(", ")})`,
    );
  }
  return Object.fromEntries(Object.entries(overrides).map(([name, override]) => [name, { ...suite.metrics[name]!, ...override }]));
}

/** The suite's metrics a manifest leaves out: `validate` reports them, since their samples are never kept. */
export function narrowedAway(suite: AnySuite, scenario: Scenario): string[] {
  const kept = scenario.manifest.metrics;
  return kept ? Object.keys(suite.metrics).filter((name) => !kept[name]) : [];
}

/** A profile of a scenario: the suite's defaults, then the manifest's overrides, checked by the suite's profile schema. */
export function scenarioProfile(suite: AnySuite, scenario: Scenario, profile: SuiteProfile): ProfileParams {
  const merged = { ...suite.profiles[profile], ...scenario.manifest.profiles?.[profile] } as ProfileParams;
  const problems = checkAgainst(suiteSchemas(suite.name).profile, merged, `/profiles/${profile}`);
  if (problems.length > 0) throw new UserError(`${displayPath(scenario.manifestPath)}: ${problems.join("; ")}`);
  return merged;
}

/** Every scenario with its metrics and both profiles resolved, for the site (which imports no suite code). */
export function describeScenarios(scenarios: readonly Scenario[]): DescribedScenario[] {
  return scenarios.map((scenario) => {
    const suite = suiteFor(scenario.suite);
    return {
      scenario,
      metrics: scenarioMetrics(suite, scenario),
      profiles: { quick: scenarioProfile(suite, scenario, "quick"), full: scenarioProfile(suite, scenario, "full") },
    };
  });
}

/**
 * Joins each scenario to its suite and resolves the chosen profile, with `trials` (from `run
 * --trials`) in place of its trials when given; a manifest that breaks either is a UserError.
 */
export function resolveScenarios(scenarios: readonly Scenario[], profile: Profile, trials?: number): ResolvedScenario[] {
  // Smoke is the quick profile with one trial and one window of warm-up: does it run at all.
  const resolved = (params: ProfileParams): ProfileParams =>
    profile === "smoke" ? smokeWarmUp({ ...params, trials: trials ?? 1 }) : { ...params, trials: trials ?? params.trials };
  return scenarios.map((scenario) => {
    const suite = suiteFor(scenario.suite);
    // Both profiles are checked, so a broken `full` is caught by a quick run and by validate.
    const [described] = describeScenarios([scenario]);
    const params = described!.profiles[suiteProfileOf(profile)];
    return { suite, scenario: { ...scenario, config: scenario.suiteConfig, profile, profileParams: resolved(params), metrics: described!.metrics } };
  });
}
