import { existsSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { appsRoot } from "../../apps/manifest.ts";
import { errorMessage, UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR, SUITES_DIR } from "../../core/paths.ts";
import { checkAgainst } from "../../core/schema.ts";
import { shapeProblems, sizeProblem, undeclaredMetrics, type DeclaredMetrics } from "../../results/limits.ts";
import { listResultFiles, readResultFile } from "../../results/store.ts";
import type { ResultDocument } from "../../results/types.ts";
import { loadScenario, scenarioDirs, suiteNames } from "../../scenarios/manifest.ts";
import { SUITES, suiteFor } from "../../suites/index.ts";
import { describeScenarios, narrowedAway, scenarioMetrics } from "../../suites/resolve.ts";
import { count } from "../../ui/words.ts";
import { defineCommand } from "../command.ts";
import { warnStrayFolders } from "./run.ts";

/**
 * Each suite's metrics, each with every unit the suite or one of its scenarios' manifests declares
 * for it: what a result may record (a manifest this cannot load is validate's to report).
 */
export function declaredMetrics(): DeclaredMetrics {
  const declared = new Map<string, Map<string, Set<string>>>();
  const withScenarios = new Set(suiteNames(SUITES_DIR));
  for (const suite of SUITES) {
    const metrics = new Map(Object.entries(suite.metrics).map(([name, metric]) => [name, new Set([metric.unit])]));
    for (const dir of withScenarios.has(suite.name) ? scenarioDirs(suite.name) : []) {
      try {
        for (const [name, metric] of Object.entries(scenarioMetrics(suite, loadScenario(dir, suite.name)))) metrics.get(name)?.add(metric.unit);
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
      }
    }
    declared.set(suite.name, metrics);
  }
  return declared;
}

/** Problems in result files, as `path: /field: message` lines. Read synchronously, as readResults does. */
export function validateResultFiles(paths: readonly string[], declared = declaredMetrics()): { files: number; problems: string[] } {
  const files = listResultFiles(paths);
  const problems: string[] = [];
  for (const file of files) {
    const tooBig = sizeProblem(statSync(file).size);
    if (tooBig) {
      problems.push(`${file}: ${tooBig}`);
      continue;
    }
    let doc: unknown;
    try {
      doc = readResultFile(file);
    } catch (error) {
      problems.push(errorMessage(error));
      continue;
    }
    const shape = shapeProblems(doc);
    const schema = shape.length > 0 ? [] : checkAgainst("result.schema.json", doc);
    const undeclared = shape.length > 0 || schema.length > 0 ? [] : undeclaredMetrics(doc as ResultDocument, declared);
    problems.push(...[...shape, ...schema, ...undeclared].map((p) => `${file}: ${p}`));
  }
  return { files: files.length, problems };
}

/** Problems in every scenario and app manifest, each with its file; notes for metrics a manifest narrows away. */
export function validateManifests(): { scenarios: number; apps: number; problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  let scenarios = 0;
  let apps = 0;
  const attempt = (work: () => void) => {
    try {
      work();
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      problems.push(error.message);
    }
  };
  for (const suiteName of suiteNames(SUITES_DIR)) {
    attempt(() => {
      const suite = suiteFor(suiteName);
      for (const dir of scenarioDirs(suiteName)) {
        attempt(() => {
          const scenario = loadScenario(dir, suiteName);
          describeScenarios([scenario]);
          scenarios += 1;
          const dropped = narrowedAway(suite, scenario);
          if (dropped.length > 0) notes.push(`${suiteName}/${scenario.name}: records no ${dropped.join(", ")} (its manifest's metrics leave them out)`);
        });
      }
      if (suite.listApps) attempt(() => void (apps += suite.listApps!().length));
    });
  }
  return { scenarios, apps, problems, notes };
}

/** Whether a PATH is in the suites' or the apps' folder in use: their JSON files are manifests and packages, which as results would each be a problem. */
function holdsManifests(path: string): boolean {
  return [SUITES_DIR, appsRoot()].some((dir) => !relative(dir, resolve(path)).startsWith(".."));
}

export const validateSubcommand = defineCommand({
  name: "validate",
  summary: "Check result files against schemas/result.schema.json and the suites' metrics, and every scenario and app manifest against its schemas.",
  usage: "validate [PATH...]",
  help: [
    "  PATH   result files or folders (default: data/, which may not exist yet: then no results are checked)",
    "",
    "Exit status: 0 when all is valid, 1 when a manifest or a result is not, 2 when a PATH given does not exist or is in suites/ or apps/ (manifests, not results).",
  ],
  options: {},
  allowPositionals: true,
  async run(_values, positionals) {
    const paths = positionals.length > 0 ? positionals : existsSync(DEFAULT_DATA_DIR) ? [DEFAULT_DATA_DIR] : [];
    const manifestPath = paths.find(holdsManifests);
    if (manifestPath !== undefined) throw new UserError(`${manifestPath}: scenario or app manifests (and their packages), not results: validate checks every manifest without being asked; give it result files or folders`);
    warnStrayFolders();
    const manifests = validateManifests();
    if (paths.length === 0) process.stdout.write("no data/ folder: no results to check yet\n");
    const results = validateResultFiles(paths);
    for (const note of manifests.notes) process.stdout.write(`note: ${note}\n`);
    const problems = [...manifests.problems, ...results.problems];
    for (const problem of problems) process.stderr.write(`${problem}\n`);
    process.stdout.write(
      `${manifests.scenarios} scenario and ${count(manifests.apps, "app manifest")} valid; ${count(results.files, "result file")} checked, ${count(problems.length, "problem")}\n`,
    );
    return problems.length > 0 ? 1 : 0;
  },
});
