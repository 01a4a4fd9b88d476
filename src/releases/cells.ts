import type { RuntimeName } from "../runtimes/catalog.ts";
import type { RunnerWork } from "./pools.ts";
import type { PlannedBenchmark } from "./select.ts";

/** The versions of `runtime` that `runner` has any result for in `scenario` (`suite/name`). */
export type MeasuredVersions = (runner: string, scenario: string, runtime: RuntimeName) => ReadonlySet<string>;

/**
 * The planned jobs narrowed to the cells (scenario, runner, version) that have no result yet: a
 * backfill of named scenarios measures each cell once, however many merges asked for it. A job
 * whose every cell is measured is dropped; the others run only their missing scenarios.
 */
export function missingCells(planned: readonly PlannedBenchmark[], work: ReadonlyMap<string, RunnerWork>, measured: MeasuredVersions): PlannedBenchmark[] {
  return planned.flatMap((job) => {
    const missing = work.get(job.runner.name)!.covers.filter((scenario) => !measured(job.runner.name, scenario, job.runtime).has(job.version));
    return missing.length === 0 ? [] : [{ ...job, scenarios: missing }];
  });
}
