import type { ParamValue } from "../../results/types.ts";
import { cpusOf, pinned, type CpuAssignment } from "../../tools/cpu-split.ts";
import type { HttpConfig, HttpProfile } from "./index.ts";
import type { LoadOutcome, LoadSpec } from "./oha.ts";
import { requestBody } from "./verify.ts";
import type { Subject } from "../suite.ts";

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

/** Requests answered with the expected status, and everything else oha saw (other statuses, errors). */
export function tally(outcome: LoadOutcome, status: number): { good: number; total: number; unexpected: Record<string, number> } {
  const { statusCodes, errors } = outcome.report;
  const unexpected: Record<string, number> = {};
  for (const [code, count] of Object.entries(statusCodes)) if (Number(code) !== status) unexpected[`status ${code}`] = count;
  for (const [error, count] of Object.entries(errors)) unexpected[error] = count;
  const good = statusCodes[String(status)] ?? 0;
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0) + Object.values(errors).reduce((a, b) => a + b, 0);
  return { good, total, unexpected };
}
