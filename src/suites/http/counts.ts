import { machineAssignment, type CpuAssignment } from "../../tools/cpu-split.ts";
import { PostgresFailure } from "../../tools/postgres.ts";
import { countServer, serverCountMetrics, serverCountOutput, windowSeconds } from "../../tools/server-counts.ts";
import { serverTrial, type RunningServer } from "../../tools/server.ts";
import { countRuns, emulatedCounts } from "../../tools/strace.ts";
import { expectedWarmUpS } from "../../tools/warm-up.ts";
import { countedMetrics, type CountOutput, type Subject, type SuiteScenario } from "../suite.ts";
import type { HttpConfig, HttpProfile } from "./index.ts";
import { checkLoad, loadBase, operationOf, warmServer } from "./load.ts";
import { LoadError, runOha } from "./oha.ts";

/** The server's system calls per request, threads, file descriptors and memory growth per 10,000 requests. */
export const HTTP_COUNT_METRICS = serverCountMetrics("request");

/** The scenario the quick profile counts (every app's cells of it); the full profile counts every scenario. */
export const QUICK_COUNTED_SCENARIO = "json";
export const countedIn = (scenario: SuiteScenario): boolean => scenario.profile === "full" || scenario.name === QUICK_COUNTED_SCENARIO;

/**
 * What a cell's counting pass costs beyond its windows of load: a server's start and stop (the
 * suite's trial figure), and per window strace attaching (5–14 ms to a node server here) and
 * letting go (1–5 ms), oha's start (about 50 ms) and the 100 ms the server is given to settle.
 */
const SERVER_LIFECYCLE_S = 1.5;
const WINDOW_OVERHEAD_S = 0.2;

/** Seconds of one cell's counting pass: a server, its warm-up, a window to settle at the rate, and the counted windows. */
export function countSeconds(profile: HttpProfile): number {
  const windows = countRuns(profile.trials);
  return SERVER_LIFECYCLE_S + expectedWarmUpS(profile) + (1 + windows) * (windowSeconds(profile.rate_duration_s) + WINDOW_OVERHEAD_S);
}

/**
 * The counting pass of one load point: a fresh server (on a restored database, as a trial's), the
 * trials' warm-up at full speed until steady, then one window at the load point's fixed rate that is not
 * counted (what the server compiles on first meeting the rate, node's JIT writing its code pages,
 * is not its steady cost), then `countRuns` windows (`rate_duration_s`, at most 1 s) at that rate with strace
 * attached. Every request must be answered with the operation's status, as in a trial.
 */
export async function countHttp(subject: Subject<HttpConfig, HttpProfile>, workDir: string, start: (split: CpuAssignment) => Promise<RunningServer>): Promise<CountOutput> {
  if (countedMetrics(subject, HTTP_COUNT_METRICS).length === 0) return { samples: {} };
  const emulated = emulatedCounts(subject.runtime);
  if (emulated) return { samples: {}, unavailable: Object.fromEntries(Object.keys(HTTP_COUNT_METRICS).map((metric) => [metric, emulated])) };
  const split = machineAssignment();
  const profile = subject.scenario.profileParams;
  const { status } = operationOf(subject.scenario.config, subject.params);
  const rate = Number(subject.params.rate);
  const load = async (server: RunningServer, phase: string) => {
    const outcome = await runOha({ ...loadBase(subject, server.url, split), durationS: windowSeconds(profile.rate_duration_s), rate }, workDir);
    return checkLoad(server, status, phase, outcome).good;
  };
  return serverTrial(
    () => start(split),
    async (server) => {
      const phases = {
        warmup: async () => {
          await warmServer(subject, server, split, workDir);
          await load(server, "counting settle");
        },
        window: () => load(server, "counting window"),
      };
      return serverCountOutput(await countServer(server.pid, phases, countRuns(profile.trials), "request", workDir), "request");
    },
    [LoadError, PostgresFailure],
  );
}
