import type { MetricDefinition } from "../../results/types.ts";
import { countInProcess, countingSeconds, type InProcessOutcome } from "../../tools/in-process.ts";
import { countRuns, emulatedCounts } from "../../tools/strace.ts";
import { countedMetrics, type CountOutput, type Subject, type SuiteScenario } from "../suite.ts";
import type { FileioConfig, FileioProfile } from "./index.ts";
import type { Operation, PreparedData, TrialFolder, Workspace } from "./workspace.ts";

/**
 * System calls per unit an operation moves (scheduling calls apart): per file for the many small
 * files, per MB for the large file, per entry for the tree. A manifest names the unit in its
 * metric's `unit`; the calls by name are in the result's `details.syscall_counts`.
 */
export const FILEIO_COUNT_METRICS: Readonly<Record<string, MetricDefinition>> = {
  syscalls_per_op: { unit: "calls/op", better: "lower", exact: true },
};

/** The scenario the quick profile counts (at each app's first load point); the full profile counts every cell. */
export const QUICK_COUNTED_SCENARIO = "read-many";
export const countedIn = (scenario: SuiteScenario, firstPoint: boolean): boolean => scenario.profile === "full" || (scenario.name === QUICK_COUNTED_SCENARIO && firstPoint);

/** What one unit of each operation is, for the calls by name (`+1.0 statx per file`). */
const UNIT: Record<Operation, string> = {
  "read-many": "file",
  "write-many": "file",
  "read-large": "MB",
  "write-large": "MB",
  "copy-large": "MB",
  "walk-tree": "entry",
};

/**
 * A counted process against the same process timed, by the suite's estimate: node reading files
 * under strace took 4 to 5 times as long (read-many, read-large), walking a tree 1.7 times (quick
 * profile, the shared machine under load).
 */
const STRACE_SLOWDOWN = 4;

/** Seconds of one cell's counting pass, from its process and iteration costs (the suite's estimate). */
export function countSeconds(profile: FileioProfile, processS: number, iterationS: number, unitsPerIteration: number): number {
  return countingSeconds(processS, iterationS, unitsPerIteration, countRuns(profile.trials), STRACE_SLOWDOWN);
}

/** One app process on the prepared data, writing into `output`, as a trial starts it. */
type AppRun = (data: PreparedData, output: TrialFolder, iterations: number, tracer: readonly string[]) => Promise<InProcessOutcome>;

/** The counting pass of one cell: each counted run gets an output folder of its own, removed after it. */
export async function countFileio(subject: Subject<FileioConfig, FileioProfile>, data: PreparedData, workspace: Workspace, workDir: string, run: AppRun): Promise<CountOutput> {
  if (countedMetrics(subject, FILEIO_COUNT_METRICS).length === 0) return { samples: {} };
  const emulated = emulatedCounts(subject.runtime);
  if (emulated) return { samples: {}, unavailable: { syscalls_per_op: emulated } };
  const counted = async (iterations: number, tracer: readonly string[]) => {
    const output = await workspace.output(data);
    try {
      return await run(data, output, iterations, tracer);
    } finally {
      await output.remove();
    }
  };
  const counts = await countInProcess(counted, data.amount.perIteration, UNIT[data.operation], countRuns(subject.scenario.profileParams.trials), workDir);
  if (counts.syscalls === null) return { samples: {}, unavailable: { syscalls_per_op: counts.unavailable ?? "strace could not count" } };
  return { samples: { syscalls_per_op: counts.syscalls }, details: { syscall_counts: counts.profile } };
}
