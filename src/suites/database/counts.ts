import type { MetricDefinition } from "../../results/types.ts";
import { countInProcess, countingSeconds } from "../../tools/in-process.ts";
import { countRuns, emulatedCounts } from "../../tools/strace.ts";
import { countedMetrics, TrialFailure, type CountOutput, type SuiteScenario } from "../suite.ts";
import { runApp, verify } from "./app-run.ts";
import { forgetDeadServer } from "./engines.ts";
import type { Workload } from "./expected.ts";
import { workloadOf, type DatabaseProfile, type DatabaseSubject } from "./manifest.ts";
import type { DatabaseSession } from "./session.ts";

/**
 * System calls of the app's process (the driver, not the database server) per operation: a query,
 * a batch or a transaction, as the workload counts them. Scheduling calls apart.
 */
export const DATABASE_COUNT_METRICS: Readonly<Record<string, MetricDefinition>> = {
  syscalls_per_op: { unit: "calls/op", better: "lower", exact: true },
};

/** What one operation of each workload is, for the calls by name (`+2.0 pread64 per query`). */
const UNIT: Record<Workload, string> = { "point-select": "query", "select-1000": "query", "insert-batch": "batch", "update-tx": "transaction" };

/** The scenario the quick profile counts (at each app's first load point); the full profile counts every cell. */
export const QUICK_COUNTED_SCENARIO = "point-select";
export const countedIn = (scenario: SuiteScenario, firstPoint: boolean): boolean => scenario.profile === "full" || (scenario.name === QUICK_COUNTED_SCENARIO && firstPoint);

/**
 * A counted process against the same process timed, by the suite's estimate: the counting pass of
 * point-select (seven cells of the default selection, quick profile, node 26, deno 2.9, bun 1.4)
 * took 8.7 s on the shared machine under load, twice what the estimate gives its processes timed.
 * An app waits on its database as much as it calls, so strace slows it less than it does file I/O.
 */
const STRACE_SLOWDOWN = 2;

/** Seconds of one cell's counting pass, from a process's and an operation's cost (the suite's estimate). */
export function countSeconds(profile: DatabaseProfile, processS: number, operationS: number): number {
  return countingSeconds(processS, profile.ops * operationS, profile.ops, countRuns(profile.trials), STRACE_SLOWDOWN);
}

/** The counting pass of one cell: each counted run is a process as a trial starts it, on a restored database, and is verified as one. */
export async function countDatabase(session: DatabaseSession, subject: DatabaseSubject): Promise<CountOutput> {
  if (countedMetrics(subject, DATABASE_COUNT_METRICS).length === 0) return { samples: {} };
  const emulated = emulatedCounts(subject.runtime);
  if (emulated) return { samples: {}, unavailable: { syscalls_per_op: emulated } };
  const workload = workloadOf(subject.scenario);
  const counts = await countInProcess(
    async (iterations, tracer) => {
      const run = await runApp(session, subject, { warmup: 0, iterations }, tracer);
      if (run.serverGone) {
        await forgetDeadServer(session.engines, run.serverGone);
        throw new TrialFailure(`${run.serverGone} during a counted run`);
      }
      if (run.outcome.ok) {
        const { error } = await verify(run, run.outcome.report);
        if (error !== null) throw new TrialFailure(`counted run: ${error}`);
      }
      return run.outcome;
    },
    workload.ops,
    UNIT[workload.scenario],
    countRuns(subject.scenario.profileParams.trials),
    session.context.workDir,
  );
  if (counts.syscalls === null) return { samples: {}, unavailable: { syscalls_per_op: counts.unavailable ?? "strace could not count" } };
  return { samples: { syscalls_per_op: counts.syscalls }, details: { syscall_counts: counts.profile } };
}
