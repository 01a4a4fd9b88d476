import type { ParamValue } from "../../core/params.ts";
import type { MetricDefinition } from "../../results/types.ts";
import { countInProcess, countingSeconds, type CountedInProcessRun } from "../../tools/in-process.ts";
import { countRuns, emulatedCounts } from "../../tools/strace.ts";
import { countedMetrics, type CountOutput, type Subject, type SuiteScenario } from "../suite.ts";
import type { WorkersConfig, WorkersProfile } from "./index.ts";

/**
 * System calls of the whole process (every thread) per message sent (round trips and throughput),
 * or per parallel count of primes; scheduling calls apart. Threads waking each other is most of a
 * message's cost, and its futex calls, which scheduling decides, are kept apart, so the figure is
 * the calls that move the message (an eventfd's write and read, a pipe's, a socket's).
 */
export const WORKERS_COUNT_METRICS: Readonly<Record<string, MetricDefinition>> = {
  syscalls_per_op: { unit: "calls/op", better: "lower", exact: true },
};

/**
 * Which cells are counted: each app's first load point, of every scenario in the full profile and
 * of round-trip in the quick one. A scenario has up to a dozen load points (batches, payloads,
 * sizes) whose calls per message differ little (the same channel wakes the same threads), and
 * counting them all would take the release job past the 6 hours in which its startup and HTTP
 * cells reach their cap of adaptive trials (tests/unit/selection.test.ts).
 */
export const QUICK_COUNTED_SCENARIO = "round-trip";
export const countedIn = (scenario: SuiteScenario, firstPoint: boolean): boolean => firstPoint && (scenario.profile === "full" || scenario.name === QUICK_COUNTED_SCENARIO);

/** What one iteration moves, and what one of those units is called. A count of primes is long by itself: two more iterations do. */
function unitsOf(config: WorkersConfig, params: Readonly<Record<string, ParamValue>>): { units: number; per: string; most?: number } {
  return config.kind === "parallel-primes" ? { units: 1, per: "count", most: 2 } : { units: Number(params.batch), per: "message" };
}

/**
 * A counted process against the same process timed, by the suite's estimate: the counting pass of
 * round-trip's first load point (node 26, deno 2.9, bun 1.4, quick profile) took 1.9 s on the
 * shared machine under load, about what the estimate gives those six processes timed (its 0.65 s a
 * process holds the heavier apps' servers and buffers).
 */
const STRACE_SLOWDOWN = 1;

/** Seconds of one cell's counting pass, from a process's cost and an iteration's (the suite's estimate). */
export function countSeconds(config: WorkersConfig, params: Readonly<Record<string, ParamValue>>, profile: WorkersProfile, processS: number, iterationS: number): number {
  const { units, most } = unitsOf(config, params);
  return countingSeconds(processS, iterationS, units, countRuns(profile.trials), STRACE_SLOWDOWN, most);
}

/** The counting pass of one cell: `run` starts the app as a trial does, and checks every answer inside it. */
export async function countWorkers(subject: Subject<WorkersConfig, WorkersProfile>, run: CountedInProcessRun, workDir: string): Promise<CountOutput> {
  if (countedMetrics(subject, WORKERS_COUNT_METRICS).length === 0) return { samples: {} };
  const emulated = emulatedCounts(subject.runtime);
  if (emulated) return { samples: {}, unavailable: { syscalls_per_op: emulated } };
  const { units, per, most } = unitsOf(subject.scenario.config, subject.params);
  const counts = await countInProcess(run, units, per, countRuns(subject.scenario.profileParams.trials), workDir, most);
  if (counts.syscalls === null) return { samples: {}, unavailable: { syscalls_per_op: counts.unavailable ?? "strace could not count" } };
  return { samples: { syscalls_per_op: counts.syscalls }, details: { syscall_counts: counts.profile } };
}
