import type { RuntimeName } from "../runtimes/catalog.ts";
import type { RunnerWork } from "./pools.ts";
import type { PlannedBenchmark } from "./select.ts";

/** The versions of `runtime` that `runner` has any result for in `scenario` (`suite/name`). */
export type MeasuredVersions = (runner: string, scenario: string, runtime: RuntimeName) => ReadonlySet<string>;

/** Whether a job's cell (the job on one scenario, `suite/name`) already has its results in data/. */
export type CellMeasured<J> = (job: J, scenario: string) => boolean;

/**
 * The planned jobs narrowed to the cells (job × scenario) that have no result yet: a backfill of
 * named scenarios, or a history sweep run again, measures each cell once however often it is asked
 * for. A job whose every cell is measured is dropped; the others run only their missing scenarios.
 * `covers` gives the scenarios a job would run.
 */
export function missingCells<J extends { readonly scenarios?: readonly string[] }>(planned: readonly J[], covers: (job: J) => readonly string[], measured: CellMeasured<J>): J[] {
  return planned.flatMap((job) => {
    const missing = covers(job).filter((scenario) => !measured(job, scenario));
    return missing.length === 0 ? [] : [{ ...job, scenarios: missing }];
  });
}

/** A backfill's cells: a job's scenarios are its runner's work, a cell is measured when its version has any result there. */
export function missingBackfillCells(planned: readonly PlannedBenchmark[], work: ReadonlyMap<string, RunnerWork>, measured: MeasuredVersions): PlannedBenchmark[] {
  return missingCells(planned, (job) => work.get(job.runner.name)!.covers, (job, scenario) => measured(job.runner.name, scenario, job.runtime).has(job.version));
}
