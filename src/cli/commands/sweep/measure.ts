/** What the chains and the side-by-side run share: each release verified before it is measured, and one run measured into its stage and collected into data/. */
import { UserError } from "../../../core/errors.ts";
import type { LoadPointFilter } from "../../../core/params.ts";
import type { RuntimeRelease } from "../../../history/select.ts";
import { declaredMetrics } from "../validate.ts";
import { collectStaged, stageJob } from "../../../history/stage.ts";
import type { PlanJob } from "../../../collect/collect.ts";
import type { RunOutcome } from "../../../orchestrate/execute.ts";
import { prepareRuntimes } from "../../../runtimes/prepare.ts";
import type { Selection } from "../../../suites/selection.ts";
import { count } from "../../../ui/words.ts";
import { runBenchmarks } from "../run.ts";
import { specOf, type SweepRequest } from "./request.ts";

/** Downloads and verifies each release in turn; the first whose binary is refused, with the reason. */
export async function firstRefused(releases: readonly RuntimeRelease[], verified: Set<string>, note: (line: string) => void): Promise<{ release: RuntimeRelease; why: string } | null> {
  for (const release of releases) {
    try {
      await prepareRuntimes([specOf(release)], note);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      return { release, why: error.message };
    }
    verified.add(specOf(release));
  }
  return null;
}
/** What one run of a sweep measures besides its staged job: its releases, scenarios and each suite's options. */
interface StagedRun {
  readonly specs: readonly string[];
  readonly scenarios: readonly string[];
  readonly suiteOptions: Selection["suiteOptions"];
  /** The load points it measures: a narrowing run's step's; none given, every one. */
  readonly params?: LoadPointFilter;
  readonly timeLimit: number | undefined;
  readonly futility: boolean;
}

/**
 * Measures a job into its stage and collects it into data/. When collect refuses, its problems go
 * to `refused` and the job stays staged.
 */
export async function measureStaged(request: SweepRequest, workDir: string, job: PlanJob, run: StagedRun, refused: string[]): Promise<RunOutcome> {
  const outDir = await stageJob(workDir, job);
  const outcome = await runBenchmarks({
    suites: [],
    scenarios: [...run.scenarios],
    runtimes: [...run.specs],
    sentinel: null,
    profile: request.profile,
    ...(request.trials !== undefined ? { trials: request.trials } : {}),
    ...(request.trialBudget !== undefined ? { trialBudget: request.trialBudget } : {}),
    outDir,
    suiteOptions: run.suiteOptions,
    ...(run.params !== undefined ? { params: run.params } : {}),
    ...(run.timeLimit !== undefined ? { timeLimit: run.timeLimit } : {}),
    futility: run.futility,
    identity: { runner: request.testbed.name, runner_kind: "reference" },
  });
  const collected = await collectStaged(workDir, request.dataDir, { runners: request.machines, declared: declaredMetrics() });
  if (collected !== null && collected.problems.length > 0) {
    refused.push(...collected.problems);
    throw new UserError(`sweep: collect refused ${count(collected.problems.length, "problem")} in ${run.specs.join(", ")}; nothing of it entered ${request.dataDir}, and it stays in ${workDir}`);
  }
  return outcome;
}
