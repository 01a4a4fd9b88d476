import { setTimeout as sleep } from "node:timers/promises";
import { groupHoldings, groupPids } from "./proc-stats.ts";
import { TrialFailure } from "../core/errors.ts";
import { attachCounter, perUnit, splitScheduling, StraceUnavailable, sumCalls, syscallProfile, type SplitCounts, type SyscallCounts, type SyscallProfile } from "./strace.ts";

/**
 * The counting pass of a server under load (the http and websocket suites): after a warm-up, a
 * few windows of load at a fixed rate, strace attached to the server's processes during each, and
 * what the server holds read from /proc after each. A window is one trial of the counts.
 */
export interface ServerCountPhases {
  /** Load before counting, never counted: what brings the server to the state its trials measure. */
  warmup(): Promise<void>;
  /** One window of load; resolves with the requests (or messages) the server answered in it. */
  window(): Promise<number>;
}

/** Per window: calls per unit (scheduling calls apart), and threads, descriptors and resident memory after it. */
export interface ServerCounts {
  /** Null where strace could not count, with `unavailable` saying why. */
  readonly syscalls: number[] | null;
  readonly unavailable: string | null;
  readonly threads: number[];
  readonly fds: number[];
  /** Growth of the server's resident memory over each window, in MB per 10,000 units. */
  readonly rssGrowth: number[];
  readonly profile: SyscallProfile | null;
}

/** A metric as the suites declare it (src/results/types.ts MetricDefinition, which this layer cannot name). */
interface CountMetric {
  readonly unit: string;
  readonly better: "lower";
  readonly resolution?: number;
  readonly exact?: boolean;
}

/**
 * What a server's counting pass records: its system calls per request or message (scheduling calls
 * apart), the threads and file descriptors it holds at steady state, and how far its resident
 * memory grows per 10,000 requests or messages (a leak shows as a steady growth; a garbage
 * collector's swings make it noisy, and a growth of 0.1 MB or less is not judged).
 */
export function serverCountMetrics(per: "request" | "message"): Record<string, CountMetric> {
  const unit = per === "request" ? "req" : "msg";
  return {
    [`syscalls_per_${per}`]: { unit: `calls/${unit}`, better: "lower", exact: true },
    server_threads: { unit: "threads", better: "lower", exact: true },
    server_fds: { unit: "fds", better: "lower", exact: true },
    rss_growth_mb_per_10k: { unit: `MB/10k ${unit}`, better: "lower", resolution: 0.1 },
  };
}

/** A server's counts as a counting pass reports them: samples by metric, and why the calls are missing where they are. */
export function serverCountOutput(counts: ServerCounts, per: "request" | "message") {
  const samples: Record<string, number[]> = { server_threads: counts.threads, server_fds: counts.fds, rss_growth_mb_per_10k: counts.rssGrowth };
  const calls = `syscalls_per_${per}`;
  if (counts.syscalls === null) return { samples, unavailable: { [calls]: counts.unavailable ?? "strace counted too few windows" } };
  return { samples: { ...samples, [calls]: counts.syscalls }, details: { syscall_counts: counts.profile } };
}

/** Time after a window's load for the server to finish what it answered (closing connections) before strace lets go. */
const SETTLE_MS = 100;
/**
 * A counting window lasts the profile's fixed-rate phase, at most a second: a thousand requests at
 * 1,000 a second give calls per request to a thousandth, and the full profile's 2-s phases would
 * double what its counting costs.
 */
const MAX_WINDOW_S = 1;
export const windowSeconds = (rateDurationS: number): number => Math.min(rateDurationS, MAX_WINDOW_S);

/** The units a leak figure is per. */
export const LEAK_UNITS = 10_000;

/** Runs the warm-up, then `windows` counted windows, against the server leading process group `pgid`. */
export async function countServer(pgid: number, phases: ServerCountPhases, windows: number, per: string, scratchDir: string): Promise<ServerCounts> {
  await phases.warmup();
  const perWindow: SplitCounts[] = [];
  const counts = { threads: [] as number[], fds: [] as number[], rssGrowth: [] as number[] };
  let unavailable: string | null = null;
  for (let w = 0; w < windows; w++) {
    const before = groupHoldings(pgid);
    let counter: Awaited<ReturnType<typeof attachCounter>> | null = null;
    if (unavailable === null) {
      try {
        counter = await attachCounter(groupPids(pgid), scratchDir);
      } catch (error) {
        if (!(error instanceof StraceUnavailable)) throw error;
        unavailable = error.message;
      }
    }
    let served = 0;
    let traced: SyscallCounts | Error | undefined;
    try {
      served = await phases.window();
      await sleep(SETTLE_MS);
    } finally {
      // The server must never stay traced, whatever the window did.
      traced = await counter?.detach().catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    }
    if (served <= 0) throw new TrialFailure(`counting window ${w + 1}: the server answered nothing`);
    if (traced instanceof StraceUnavailable) unavailable = traced.message;
    else if (traced instanceof Error) throw traced;
    else if (traced !== undefined) perWindow.push(perUnit(splitScheduling(traced), served));
    const after = groupHoldings(pgid);
    counts.threads.push(after.threads);
    counts.fds.push(after.fds);
    counts.rssGrowth.push(Math.round(((after.rssMb - before.rssMb) / served) * LEAK_UNITS * 1000) / 1000);
  }
  const complete = unavailable === null && perWindow.length === windows;
  return {
    ...counts,
    syscalls: complete ? perWindow.map((split) => Math.round(sumCalls(split.work) * 1e4) / 1e4) : null,
    unavailable,
    profile: complete ? syscallProfile(per, perWindow) : null,
  };
}
