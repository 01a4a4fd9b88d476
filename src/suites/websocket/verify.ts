import type { ResultDocument } from "../../results/types.ts";
import { k6Count, runK6 } from "./k6.ts";
import { runVerify, type VerifyCheck } from "./wsclient.ts";

/** Every binary size up to this is echoed in verification: the echo-binary scenario's size. */
export const VERIFY_MAX_BINARY = 64 * 1024;
/** Receivers and messages of the broadcast delivery check (k6). */
export const BROADCAST_CHECK = { receivers: 10, messages: 100 } as const;

export type Verification = NonNullable<ResultDocument["verification"]>;

export interface BroadcastCounts {
  readonly expected: number;
  readonly delivered_once: number;
  readonly duplicated: number;
  readonly missing: number;
  readonly corrupted: number;
  readonly to_sender: number;
  readonly receivers_not_joined: number;
}

/** What went wrong in a broadcast check, in words, or null when every receiver got every message once. */
export function broadcastProblem(counts: BroadcastCounts): string | null {
  const problems: string[] = [];
  if (counts.receivers_not_joined > 0) problems.push(`${counts.receivers_not_joined} receivers never joined the room`);
  if (counts.missing > 0) problems.push(`${counts.missing} deliveries missing`);
  if (counts.duplicated > 0) problems.push(`${counts.duplicated} duplicated`);
  if (counts.corrupted > 0) problems.push(`${counts.corrupted} that were never sent (corrupted)`);
  if (counts.to_sender > 0) problems.push(`${counts.to_sender} sent back to the sender`);
  if (problems.length === 0 && counts.delivered_once !== counts.expected) problems.push(`${counts.delivered_once} of ${counts.expected} delivered once`);
  return problems.length === 0 ? null : `broadcast: ${problems.join(", ")} (of ${counts.expected} expected)`;
}

/**
 * Checks a running server: text and binary echoes byte for byte and the closing handshake with
 * wsclient, and, where the scenario broadcasts, that k6's receivers each get every message once.
 */
export async function verifyServer(baseUrl: string, broadcast: boolean, workDir: string): Promise<Verification> {
  const echo = await runVerify(`${baseUrl}/echo`, VERIFY_MAX_BINARY);
  const failures = echo.checks.filter((check) => !check.passed).map((check: VerifyCheck) => `${check.name}: ${check.difference}`);
  let counts: BroadcastCounts | undefined;
  if (broadcast) {
    const outcome = await runK6("broadcast-check.js", { URL: `${baseUrl}/broadcast`, RECEIVERS: BROADCAST_CHECK.receivers, MESSAGES: BROADCAST_CHECK.messages }, [], workDir, 60_000);
    const count = (name: string) => k6Count(outcome, `broadcast_${name}`);
    counts = {
      expected: count("expected"),
      delivered_once: count("delivered_once"),
      duplicated: count("duplicated"),
      missing: count("missing"),
      corrupted: count("corrupted"),
      to_sender: count("to_sender"),
      receivers_not_joined: count("receivers_not_joined"),
    };
    const problem = broadcastProblem(counts);
    if (problem) failures.push(problem);
  }
  return {
    status: failures.length === 0 ? "passed" : "failed",
    ...(failures.length === 0 ? {} : { error: `verification failed: ${failures.join("; ")}` }),
    seed: echo.seed,
    checks: echo.checks,
    ...(counts ? { broadcast: counts } : {}),
  };
}
