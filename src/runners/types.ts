import type { IdentifiedRuntime } from "../runtimes/identify.ts";
import type { ProfileParams, Scenario, SuiteSchemas } from "../scenarios/manifest.ts";
import type { ParamValue, Profile, ResultDocument } from "../results/types.ts";

/**
 * One measured cell: a scenario on a runtime, with an app where the suite has apps and the load
 * parameters that tell its series apart. Each subject becomes one result document.
 */
export interface Subject {
  readonly scenario: Scenario;
  readonly runtime: IdentifiedRuntime;
  readonly app: string | null;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Flags the manifest gives for this runtime. */
  readonly flags: readonly string[];
}

export interface RunContext {
  readonly profile: Profile;
  readonly profileParams: ProfileParams;
  /** Scratch space for this run, removed at the end. */
  readonly workDir: string;
  /** Where a runner may print a line of its own (a plain log line, never a progress redraw). */
  readonly log: (line: string) => void;
  /** Apps to measure, for suites that have apps; all of them when empty or absent. */
  readonly apps?: readonly string[];
}

/** The outcome of checking a subject before (and after) it is measured. */
export type CheckOutcome =
  | { readonly status: "ok"; readonly verification?: ResultDocument["verification"]; readonly details?: Record<string, unknown> }
  | {
      readonly status: "failed" | "unsupported";
      readonly error: string;
      readonly verification?: ResultDocument["verification"];
      readonly details?: Record<string, unknown>;
    };

export interface TrialOutput {
  /** Raw samples of this trial, by metric name; the orchestrator appends them across trials. */
  readonly samples: Readonly<Record<string, readonly number[]>>;
  /** Facts to keep in the result, merged across trials (a later trial's value wins). */
  readonly details?: Record<string, unknown>;
}

/** A trial that failed: the subject is recorded as failed with this message and not measured again. */
export class TrialFailure extends Error {
  override readonly name = "TrialFailure";
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * A suite's runner. The orchestrator owns order, trials, statistics and writing; a runner only
 * knows how to check and measure one subject. Suites that time work inside the runtime process
 * (file I/O, database, install) implement the same interface and return samples the same way.
 */
export interface SuiteRunner {
  readonly suite: string;
  readonly schemas: SuiteSchemas;
  /** Versions of the external tools this suite drives; a missing tool is a UserError. */
  toolVersions(): Promise<Record<string, string>>;
  /** Readies what the suite needs beyond its scenarios (its apps' locked packages), once; run by setup. */
  prepare?(note: (line: string) => void): Promise<void>;
  /** The cells to measure for one scenario on one runtime (one per app and load point). */
  subjects(scenario: Scenario, runtime: IdentifiedRuntime, context: RunContext): Subject[];
  /** Verifies a subject before it is measured. */
  check(subject: Subject, context: RunContext): Promise<CheckOutcome>;
  /** Measures one trial. Throws TrialFailure when the subject breaks. */
  trial(subject: Subject, context: RunContext, trialIndex: number): Promise<TrialOutput>;
  /** Verifies again after measuring, where the suite asks for that. */
  recheck?(subject: Subject, context: RunContext): Promise<CheckOutcome>;
  /** Apps of this suite and the runtimes each supports, for `list`. */
  listApps?(): { name: string; runtimes: string[] }[];
}
