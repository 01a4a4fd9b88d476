import type { ParamValue } from "../../core/params.ts";
import { cpusOf, pinned, type CpuAssignment } from "../../tools/cpu-split.ts";
import { ServerFailure, serverFailureDetails, type RunningServer } from "../../tools/server.ts";
import { warmUntilSteady, warmUpRule, type WarmUp } from "../../tools/warm-up.ts";
import { isSteady } from "../../../apps/inprocess/steady.js";
import type { HttpConfig, HttpProfile } from "./index.ts";
import { runOha, type LoadOutcome, type LoadSpec } from "./oha.ts";
import { requestBody } from "./verify.ts";
import { TrialFailure, type Subject } from "../suite.ts";

type Operation = HttpConfig["operations"][number];

/** The operation a load point puts under load: named in its params when the scenario has several. */
export function operationOf(config: HttpConfig, params: Readonly<Record<string, ParamValue>>): Operation {
  return config.operations.find((op) => op.name === params.operation) ?? config.operations[0]!;
}

/** Everything of a load point's oha spec but its duration and rate: the same for its trials and its counting pass. */
export function loadBase(subject: Subject<HttpConfig, HttpProfile>, url: string, split: CpuAssignment): Omit<LoadSpec, "durationS"> {
  const operation = operationOf(subject.scenario.config, subject.params);
  const body = requestBody(operation.request);
  return {
    request: { method: operation.request.method, url: url + operation.request.path, ...(body === undefined ? {} : { body }) },
    connections: Number(subject.params.connections),
    keepalive: subject.params.keepalive === true,
    threads: cpusOf(split, "client")?.length ?? 1,
    pin: pinned(cpusOf(split, "client")),
  };
}

/**
 * Requests answered with the expected status, everything else oha saw (other statuses, errors), and
 * the seconds oha measured the load to last: it waits for the requests in flight at the deadline, so
 * a short window runs longer than asked, and a rate over the asked duration would overstate it.
 */
export function tally(outcome: LoadOutcome, status: number): { seconds: number; good: number; total: number; unexpected: Record<string, number> } {
  const { statusCodes, errors } = outcome.report;
  const unexpected: Record<string, number> = {};
  for (const [code, count] of Object.entries(statusCodes)) if (Number(code) !== status) unexpected[`status ${code}`] = count;
  for (const [error, count] of Object.entries(errors)) unexpected[error] = count;
  const good = statusCodes[String(status)] ?? 0;
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0) + Object.values(errors).reduce((a, b) => a + b, 0);
  return { seconds: outcome.report.totalS, good, total, unexpected };
}

/**
 * A phase's load held to the operation: the server still up, some request and every one answered
 * with `status`, or the trial fails naming the phase. What the phase's requests came to.
 */
export function checkLoad(server: RunningServer, status: number, phase: string, outcome: LoadOutcome) {
  const counted = tally(outcome, status);
  if (server.exited) throw new ServerFailure(`server ${server.exited} during ${phase}`, server.output());
  if (counted.good === 0 || Object.keys(counted.unexpected).length > 0) {
    throw new TrialFailure(`${phase}: ${counted.good} of ${counted.total} requests answered ${status}`, { [`${phase}_unexpected`]: counted.unexpected, ...serverFailureDetails(undefined, server) });
  }
  return counted;
}

/**
 * Warms a started server up, the same for a load point's trials and its counting pass (whose counts
 * are of the steady state the trials measure): windows of the load point's load at full speed until
 * they agree (src/tools/warm-up.ts).
 */
export function warmServer(subject: Subject<HttpConfig, HttpProfile>, server: RunningServer, split: CpuAssignment, workDir: string): Promise<WarmUp> {
  const profile = subject.scenario.profileParams;
  const { status } = operationOf(subject.scenario.config, subject.params);
  const base = loadBase(subject, server.url, split);
  return warmUntilSteady(warmUpRule(profile), isSteady, async () => {
    const outcome = await runOha({ ...base, durationS: profile.warmup_window_s }, workDir);
    const { seconds, good } = checkLoad(server, status, "warmup", outcome);
    return { seconds, count: good };
  });
}
