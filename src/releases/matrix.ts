import { UserError } from "../core/errors.ts";
import type { Arch, RuntimeName } from "../runtimes/catalog.ts";
import type { PlannedBenchmark } from "./select.ts";

/** GitHub Actions refuses a matrix of more jobs than this. */
export const MAX_MATRIX_JOBS = 256;

/** Everything one benchmark job needs, so benchmark.yml reads nothing else to run it. */
export interface MatrixEntry {
  readonly runtime: RuntimeName;
  readonly version: string;
  /** Name of the dedicated machine: RUNTIME_BENCH_RUNNER, and its folder in data/. */
  readonly runner: string;
  readonly arch: Arch;
  /** runs-on labels that reach that machine. */
  readonly labels: readonly string[];
}

/** The object `strategy.matrix` takes through `fromJSON`. */
export interface GithubMatrix {
  readonly include: readonly MatrixEntry[];
}

export function toMatrix(planned: readonly PlannedBenchmark[]): GithubMatrix {
  if (planned.length > MAX_MATRIX_JOBS) {
    throw new UserError(
      `${planned.length} benchmark jobs exceed GitHub's matrix limit of ${MAX_MATRIX_JOBS}: narrow the window (--lines, --since) or the runtimes`,
    );
  }
  return {
    include: planned.map((p) => ({ runtime: p.runtime, version: p.version, runner: p.runner.name, arch: p.runner.arch, labels: p.runner.labels })),
  };
}

/** `published` as a day, for the table a person reads. */
export function plannedRows(planned: readonly PlannedBenchmark[]): string[][] {
  return planned.map((p) => [p.runtime, p.version, p.published.toISOString().slice(0, 10), p.runner.name, p.runner.labels.join(",")]);
}
