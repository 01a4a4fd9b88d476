import type { ParamValue } from "../core/params.ts";
import type { RuntimeIdentity } from "../runtimes/identify.ts";
import type { Environment } from "../env/fingerprint.ts";
import type { SampleSummary } from "../stats/summary.ts";

export const RESULT_SCHEMA_ID = "runtime-bench/result/v1";

export type Better = "lower" | "higher";
export type ResultStatus = "ok" | "failed" | "unsupported";
/** `reference`: a reference testbed of .github/bench-runners.json, shared and untuned (docs/history.md). */
export type RunnerKind = "local" | "hosted" | "dedicated" | "reference";
/** A suite's own profiles: each scenario defines both. */
export type SuiteProfile = "quick" | "full";
/** What a run measures with: a suite profile, or `smoke` (the quick profile, one trial: does it run at all, never a figure to publish). */
export type Profile = SuiteProfile | "smoke";

/** The suite profile a run's profile takes its parameters from. */
export function suiteProfileOf(profile: Profile): SuiteProfile {
  return profile === "smoke" ? "quick" : profile;
}

/** A metric as a suite or scenario defines it, and as a result records it beside its figures. */
export interface MetricDefinition {
  unit: string;
  better: Better;
  /**
   * The smallest step the measurement shows, in the metric's unit (k6's whole milliseconds, the
   * kernel's 10 ms CPU ticks): a median at or below it is recorded, never exported or judged.
   */
  resolution?: number;
  /**
   * A count the kernel keeps (system calls, page faults, threads): no clock and no sampling stand
   * between it and the figure, so its spread is the program's own, not the measurement's.
   */
  exact?: boolean;
  /**
   * The load generator that runs at full speed while this is measured (oha, wsclient): in a result
   * whose `details.client_bound_by` names it, the figure is that client's limit, and the server's
   * own is at least as good.
   */
  client_limited?: string;
}

/**
 * The load generator whose limit a result's figure is (it ran out of CPU in a trial while
 * measuring this metric), or null: where it is named, the server's own figure is at least as good.
 */
export function clientLimitOf(doc: Pick<ResultDocument, "details">, metric: MetricDefinition): string | null {
  const by = doc.details?.client_bound_by;
  return metric.client_limited !== undefined && Array.isArray(by) && by.includes(metric.client_limited) ? metric.client_limited : null;
}

/** A cell that Ctrl-C cut short: its result says neither what the cell measures nor that it cannot, and the cell is measured again. */
export function cutByInterrupt(doc: Pick<ResultDocument, "status" | "details">): boolean {
  return doc.status === "failed" && doc.details?.interrupted_after_trials !== undefined;
}

/** One metric of a result: its definition, its samples and their summary. */
export interface MetricSummary extends MetricDefinition, SampleSummary {
  samples: number[];
  /** Samples each trial added, in trial order, where trials add unequal numbers; absent: `samples` splits evenly into `run.trials`. */
  trial_samples?: number[];
}

export interface RunInfo {
  id: string;
  started_at: string;
  runner: string;
  runner_kind: RunnerKind;
  profile: Profile;
  harness_commit: string;
  trials: number;
  sentinel?: string | null;
}

/**
 * One JSON document in data/: the TypeScript twin of schemas/result.schema.json. Every string it
 * holds is one line with no control character (the schema's `$defs/line`), except `error` and the
 * strings inside `details` and `verification`, free text that keeps line breaks and tabs only
 * (`$defs/text`); src/results/limits.ts bounds its size, depth, numbers and samples.
 */
export interface ResultDocument {
  schema: typeof RESULT_SCHEMA_ID;
  run: RunInfo;
  environment: Environment;
  runtime: RuntimeIdentity;
  /** The subject's label in its run (`base`, `node-22.11.0`); absent in results written before labels. */
  label?: string;
  /** Adaptive trials: when the paired comparisons looked, their total false-alarm rate, why the trials stopped. */
  sequential?: { looks: number[]; alpha: number; first_share?: number; stopped: "decided" | "futile" | "small gap" | "max trials" | "budget" };
  suite: string;
  scenario: string;
  scenario_version: number;
  app: string | null;
  params: Record<string, ParamValue>;
  status: ResultStatus;
  error?: string;
  tools: Record<string, string>;
  metrics: Record<string, MetricSummary>;
  verification?: { status: "passed" | "failed"; [key: string]: unknown };
  details?: Record<string, unknown>;
  reproduce: string;
}
