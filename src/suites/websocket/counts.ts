import { cpusOf, machineAssignment, pinned, type CpuAssignment } from "../../tools/cpu-split.ts";
import { countServer, serverCountMetrics, serverCountOutput, windowSeconds } from "../../tools/server-counts.ts";
import { ServerFailure, serverTrial, type RunningServer } from "../../tools/server.ts";
import { countRuns, emulatedCounts } from "../../tools/strace.ts";
import { expectedWarmUpS, type WarmUp } from "../../tools/warm-up.ts";
import { countedMetrics, TrialFailure, type CountOutput, type Subject, type SuiteScenario } from "../suite.ts";
import type { WebSocketConfig, WebSocketProfile } from "./index.ts";
import { k6Count, runK6 } from "./k6.ts";
import { ClientError, runLoad, type LoadSpec } from "./wsclient.ts";

/** The server's system calls per message, threads, file descriptors and memory growth per 10,000 messages. */
export const WEBSOCKET_COUNT_METRICS = serverCountMetrics("message");

/** The scenario the quick profile counts (every app's cells of it); the full profile counts every scenario. */
export const QUICK_COUNTED_SCENARIO = "echo";
export const countedIn = (scenario: SuiteScenario): boolean => scenario.profile === "full" || scenario.name === QUICK_COUNTED_SCENARIO;

/** A server's start and stop (the suite's trial figure), and per window strace attaching and letting go (20 ms at most), the client's start (k6's 0.1 s) and 100 ms to settle. */
const SERVER_LIFECYCLE_S = 1;
const WINDOW_OVERHEAD_S = 0.25;

/** Seconds of one cell's counting pass: a server, its warm-up (as long as a trial's is expected to be), a window to settle, and the counted windows. */
export function countSeconds(profile: WebSocketProfile): number {
  return SERVER_LIFECYCLE_S + expectedWarmUpS(profile) + (1 + countRuns(profile.trials)) * (windowSeconds(profile.rate_duration_s) + WINDOW_OVERHEAD_S);
}

/** What the counting pass needs of the suite: its server, the address of the scenario's path, the wsclient load of a cell, and the trials' warm-up. */
export interface WebSocketCounting {
  start(split: CpuAssignment): Promise<RunningServer>;
  url(server: RunningServer): string;
  load(server: RunningServer, durationS: number): LoadSpec;
  warm(server: RunningServer, pin: readonly string[]): Promise<WarmUp>;
}

/** Echoes at the profile's fixed rate through k6, every one answered intact: the messages echoed. */
async function echoWindow(profile: WebSocketProfile, config: WebSocketConfig, url: string, pin: readonly string[], workDir: string): Promise<number> {
  const env = { URL: url, CONNECTIONS: profile.rate_connections, RATE: profile.rate, SIZE: config.message_bytes, BINARY: String(config.binary), DURATION_MS: Math.round(windowSeconds(profile.rate_duration_s) * 1000) };
  const outcome = await runK6("echo.js", env, pin, workDir, (windowSeconds(profile.rate_duration_s) + 60) * 1000);
  const [sent, received, mismatched, unanswered] = ["echo_sent", "echo_received", "echo_mismatched", "echo_unanswered"].map((name) => k6Count(outcome, name));
  if (sent === 0 || mismatched! > 0 || unanswered! > 0 || received !== sent) {
    throw new TrialFailure(`counting window: of ${sent} messages k6 sent, ${received} were echoed, ${mismatched} wrong, ${unanswered} unanswered`);
  }
  return received!;
}

/** Broadcasts through wsclient for the window's length, every delivery intact: the deliveries. */
async function broadcastWindow(spec: LoadSpec, pin: readonly string[]): Promise<number> {
  const report = await runLoad(spec, pin);
  const errors = Object.values(report.errors).reduce((sum, n) => sum + n, 0);
  if (report.mismatched > 0 || errors > 0 || report.received === 0) {
    throw new TrialFailure(`counting window: ${report.received} deliveries, ${report.mismatched} wrong, ${errors} errors`);
  }
  return report.received;
}

/**
 * The counting pass of one load point: a fresh server, the trials' warm-up, one window that is not
 * counted, then `countRuns` windows (`rate_duration_s`, at most 1 s) with strace attached. An echo server gets
 * k6's echoes at the profile's fixed rate (per message echoed); a broadcast server gets wsclient's
 * sender, one message in flight at a time (per delivery), as its trials do.
 */
export async function countWebSocket(subject: Subject<WebSocketConfig, WebSocketProfile>, workDir: string, suite: WebSocketCounting): Promise<CountOutput> {
  if (countedMetrics(subject, WEBSOCKET_COUNT_METRICS).length === 0) return { samples: {} };
  const emulated = emulatedCounts(subject.runtime);
  if (emulated) return { samples: {}, unavailable: Object.fromEntries(Object.keys(WEBSOCKET_COUNT_METRICS).map((metric) => [metric, emulated])) };
  const split = machineAssignment();
  const pin = pinned(cpusOf(split, "client"));
  const { config, profileParams: profile } = subject.scenario;
  return serverTrial(
    () => suite.start(split),
    async (server) => {
      const window = async () => {
        const served = config.mode === "echo" ? await echoWindow(profile, config, suite.url(server), pin, workDir) : await broadcastWindow(suite.load(server, windowSeconds(profile.rate_duration_s)), pin);
        if (server.exited) throw new ServerFailure(`server ${server.exited} during a counting window`, server.output());
        return served;
      };
      const phases = {
        warmup: async () => {
          await suite.warm(server, pin);
          await window();
        },
        window,
      };
      return serverCountOutput(await countServer(server.pid, phases, countRuns(profile.trials), "message", workDir), "message");
    },
    [ClientError],
  );
}
