import { UserError } from "../core/errors.ts";
import { SUITES_DIR } from "../core/paths.ts";
import { loadScenario, scenarioDirs, suiteNames, type Scenario } from "./manifest.ts";

export interface Selection {
  /** Suite names; all suites when empty. */
  readonly suites: readonly string[];
  /** Scenario names (or `suite/scenario`); all scenarios of the chosen suites when empty. */
  readonly scenarios: readonly string[];
}

/** Loads and checks every manifest of the chosen suites, then keeps the chosen scenarios. */
export function selectScenarios(selection: Selection, suitesDir = SUITES_DIR): Scenario[] {
  const known = suiteNames(suitesDir);
  for (const suite of selection.suites) {
    if (!known.includes(suite)) throw new UserError(`unknown suite '${suite}': suites are ${known.join(", ")}`);
  }
  // A suite named twice is chosen once: its scenarios measured twice would be cells written twice.
  const suites = selection.suites.length > 0 ? [...new Set(selection.suites)] : known;
  const all = suites.flatMap((suite) => scenarioDirs(suite, suitesDir).map((dir) => loadScenario(dir, suite)));
  if (selection.scenarios.length === 0) return all;
  const wanted = new Set(selection.scenarios);
  const chosen = all.filter((scenario) => wanted.has(scenario.name) || wanted.has(`${scenario.suite}/${scenario.name}`));
  const missing = [...wanted].filter((name) => !chosen.some((scenario) => name === scenario.name || name === `${scenario.suite}/${scenario.name}`));
  if (missing.length > 0) {
    throw new UserError(`unknown scenario '${missing[0]}' in suites ${suites.join(", ")}: scenarios are ${all.map((s) => s.name).join(", ")}`);
  }
  return chosen;
}
