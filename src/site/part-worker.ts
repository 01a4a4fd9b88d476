/**
 * A part of a site build in a worker thread (src/site/part.ts): loads its runners' results and
 * posts their facts, then waits for the build's plan, writes its files and posts its summary.
 */
import { parentPort, workerData } from "node:worker_threads";
import { UserError } from "../core/errors.ts";
import { BuildPart, type PartInput, type PartPlan } from "./part.ts";

/** What the worker posts: facts, then a summary, or the error that stopped it. */
export type PartMessage = { facts: ReturnType<BuildPart["facts"]> } | { summary: ReturnType<BuildPart["build"]> } | { error: string; user: boolean };

const port = parentPort!;
/** A bad input's one line as it is; anything else with its stack, as a bug. */
const failed = (error: unknown): PartMessage =>
  error instanceof UserError ? { error: error.message, user: true } : { error: error instanceof Error ? (error.stack ?? error.message) : String(error), user: false };

try {
  const part = BuildPart.load(workerData as PartInput);
  port.postMessage({ facts: part.facts() } satisfies PartMessage);
  port.once("message", (plan: PartPlan) => {
    try {
      port.postMessage({ summary: part.build(plan) } satisfies PartMessage);
    } catch (error) {
      port.postMessage(failed(error));
    }
  });
} catch (error) {
  port.postMessage(failed(error));
}
