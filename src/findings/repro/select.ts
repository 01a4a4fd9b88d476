import { cellLabel } from "../../compare/format.ts";
import { paramsSlug } from "../../core/params.ts";
import { NoReproduction, UserError } from "../../core/errors.ts";
import type { ResultDocument } from "../../results/types.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { resolveScenarios, type ResolvedScenario } from "../../suites/resolve.ts";

/**
 * The cell that `repro` and `profile` are given: results of one suite, scenario, app and load
 * point, one per runtime version, each `ok`; its scenario resolved in the results' own profile so a
 * reproduction runs the iterations that were measured.
 */
export function reproducedCell(docs: readonly ResultDocument[], command: string): { selected: ResolvedScenario; docs: ResultDocument[] } {
  if (docs.length === 0) throw new UserError(`${command}: give at least one result file`);
  const key = (doc: ResultDocument) => `${doc.suite}/${doc.scenario} ${doc.app ?? ""} ${paramsSlug(doc.params)}`;
  const first = docs[0]!;
  const other = docs.find((doc) => key(doc) !== key(first));
  if (other) throw new UserError(`${command}: the results are of different cells (${cellLabel(first)} and ${cellLabel(other)}); give one cell's results`);
  const failed = docs.find((doc) => doc.status !== "ok");
  if (failed) throw new UserError(`${command}: the ${failed.runtime.name}@${failed.runtime.version} result of ${cellLabel(failed)} is ${failed.status}, not a measurement`);
  const byVersion = new Map(docs.map((doc) => [`${doc.runtime.name}@${doc.runtime.version}`, doc]));
  const [selected] = resolveScenarios(selectScenarios({ suites: [first.suite], scenarios: [`${first.suite}/${first.scenario}`] }), first.run.profile);
  if (!selected) throw new NoReproduction(`this checkout has no scenario ${first.suite}/${first.scenario}`, command);
  if (selected.scenario.manifest.version !== first.scenario_version) {
    throw new NoReproduction(`${first.suite}/${first.scenario} is at version ${selected.scenario.manifest.version} here, the results measured version ${first.scenario_version}`, command);
  }
  return { selected, docs: [...byVersion.values()] };
}
