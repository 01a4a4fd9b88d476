import type { ParamValue } from "../core/params.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../runtimes/identify.ts";
import type { MetricDefinition } from "../results/types.ts";
import type { ProfileParams, Scenario } from "../scenarios/manifest.ts";
import type { PrepareStep } from "../scenarios/prepare.ts";
import type { Profile, ResultDocument, SuiteProfile } from "../results/types.ts";

export type { ProfileParams } from "../scenarios/manifest.ts";
export { TrialFailure } from "../core/errors.ts";

/**
 * One measured cell: a scenario on a runtime, with an app where the suite has apps and the load
 * parameters that tell its series apart. Each subject becomes one result document.
 */
export interface Subject<Config = unknown, P extends ProfileParams = ProfileParams> {
  /** The scenario as this subject records it: a suite may narrow `metrics` for subjects that cannot measure some. */
  readonly scenario: SuiteScenario<Config, P>;
  readonly runtime: IdentifiedRuntime;
  readonly app: string | null;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Flags the manifest (and the app) give for this runtime. */
  readonly flags: readonly string[];
}

/**
 * A scenario as its suite sees it: the manifest's suite block typed by the suite's schema, the
 * chosen profile merged over the suite's defaults, and the metrics it records.
 */
export interface SuiteScenario<Config = unknown, P extends ProfileParams = ProfileParams> extends Scenario {
  readonly config: Config;
  /** The profile chosen: the counting pass counts every cell in `full`, one cell per suite and runtime otherwise (countedScenario). */
  readonly profile: Profile;
  /** The chosen profile: the suite's defaults with the manifest's overrides. */
  readonly profileParams: P;
  readonly metrics: Readonly<Record<string, MetricDefinition>>;
}

/** What a suite's hooks know about the run they belong to. */
export interface SuiteContext<Options = unknown> {
  readonly profile: Profile;
  /** Scratch space for this run, removed at the end (and on Ctrl-C). */
  readonly workDir: string;
  /** Where a suite may print a line of its own (a plain log line, never a progress redraw). */
  readonly log: (line: string) => void;
  /** This suite's own command-line options, parsed by `parseOptions`. */
  readonly options: Options;
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

/** What a subject adds to its result once its trials and checks are over. */
export interface FinishOutput {
  readonly details?: Record<string, unknown>;
  /** Versions of tools known only once measured (a server the run was pointed at). */
  readonly tools?: Record<string, string>;
}

/**
 * What a subject's counting pass measured: counts the kernel keeps (system calls, page faults,
 * context switches, threads), taken apart from the timed trials because counting can slow what it
 * counts (strace stops a program at every call).
 */
export interface CountOutput {
  /** Samples by metric, one per counted run: each run is a trial of its own for a paired comparison. */
  readonly samples: Readonly<Record<string, readonly number[]>>;
  /** Where a trial of a count holds several runs (its median is what a pair compares): how many each trial added, by metric. */
  readonly trialSamples?: Readonly<Record<string, readonly number[]>>;
  /** Metrics this subject records that could not be counted, and why: recorded in the result, never as 0. */
  readonly unavailable?: Readonly<Record<string, string>>;
  /** Facts to keep in the result (calls by name, what a count is per). */
  readonly details?: Record<string, unknown>;
}

/**
 * An external program a suite drives. `name` is also the word `scripts/bench` installs it by
 * (`ensure_<name>` in scripts/lib/common.sh); `version` proves it runs, or throws a UserError.
 */
export interface Tool {
  readonly name: string;
  version(): Promise<string>;
}

/** A command-line option a suite adds to `run` (a filter such as http's --app); always a repeatable string. */
export interface SuiteOption {
  readonly help: string;
  /** The values it accepts, where it is a choice: a value no chosen suite accepts is bad input. */
  values?(): string[];
}

/**
 * A suite's hooks for one run. The orchestrator owns order, trials, statistics and writing; a
 * session only checks and measures. State shared between a subject's hooks (servers started
 * once, client-bound flags across trials) lives in the session, never in module scope.
 */
export interface SuiteSession<Config = unknown, P extends ProfileParams = ProfileParams> {
  /** The cells to measure for one scenario on one runtime (one per app and load point). */
  subjects(scenario: SuiteScenario<Config, P>, runtime: IdentifiedRuntime): Subject<Config, P>[];
  /**
   * Once per scenario, before its checks and outside any timeout: waits for what earlier work
   * left on the machine to stop weighing on a trial.
   */
  settle?(): Promise<void>;
  /** Verifies a subject before it is measured. */
  check(subject: Subject<Config, P>): Promise<CheckOutcome>;
  /** Measures one trial. Throws TrialFailure when the subject breaks. */
  trial(subject: Subject<Config, P>, trialIndex: number): Promise<TrialOutput>;
  /**
   * The counting pass: once per subject that was measured, after its last trial and before the
   * check after measuring, never during a trial. Its samples become metrics of the result like any
   * other (the suite declares them in `metrics`); a TrialFailure makes the subject's missing
   * metrics unavailable with its reason, and its timed figures stand.
   */
  count?(subject: Subject<Config, P>): Promise<CountOutput>;
  /** Verifies again after measuring, where the suite asks for that. */
  recheck?(subject: Subject<Config, P>): Promise<CheckOutcome>;
  /** Once per subject that was measured, after its last trial and recheck. */
  finish?(subject: Subject<Config, P>): Promise<FinishOutput>;
  /** After the suite's last scenario of the run, and on Ctrl-C: stop what the session started, remove what it generated. */
  close?(): Promise<void>;
}

/** What `plan` shows for one scenario on one runtime: the cells a run would measure and about how long that takes. */
export interface CostEstimate {
  readonly cells: number;
  /** Seconds for every trial of those cells, the checks around them and their counting pass; provisioning and installs not counted. */
  readonly seconds: number;
  /** The counting pass's share of `seconds`: it counts the profile's minimum trials, so adaptive trials add none of it. */
  readonly countingSeconds?: number;
}

/** The seconds of an estimate's trials alone: the counting pass runs once, whatever the number of trials. */
export function trialsSeconds(estimate: CostEstimate): number {
  return estimate.seconds - (estimate.countingSeconds ?? 0);
}

/**
 * How to measure one cell again without the harness, with the plain runtime binary: what
 * `scripts/bench repro` writes a folder for. Paths are absolute, inside this checkout.
 */
interface ReproductionBase {
  /** Folders the app needs (the app, code it shares with its siblings, the protocol it speaks); copied as they are. */
  readonly folders: readonly string[];
  /** The folder the runtime starts in, and the entry file in it. */
  readonly appDir: string;
  readonly entry: string;
  /** The runtime's flags for this scenario and app. */
  readonly flags: readonly string[];
  /** What readies `appDir` before the first run (generated files, packages from a lockfile); its output is made again, never copied. */
  readonly prepare?: PrepareStep;
}

/** A reproduction's data command's first word that stands for the runtime under test (InProcessReproduction's `data`). */
export const RUNTIME_PLACEHOLDER = "@RUNTIME@";

/** An app of the in-process protocol: its input, and how the headline figure follows from its report. */
export interface InProcessReproduction extends ReproductionBase {
  readonly kind: "in-process";
  readonly input: { readonly params: Readonly<Record<string, unknown>>; readonly warmup: number; readonly iterations: number };
  /**
   * What the harness makes for the app before it runs, made again by the script: `command`, where
   * `@WORK@` stands for the script's work folder (in the input's params too), `@HERE@` for the
   * reproduction's, and a first word `@RUNTIME@` for the runtime under test running a script (let
   * read and write); `stdin`, where given, is written beside the scripts and fed to it.
   */
  readonly data?: { readonly command: readonly string[]; readonly stdin?: { readonly file: string; readonly contents: string } };
  /** Per measured iteration: `rate` units over its wall time (a throughput), or the median of a sample the app reported. */
  readonly figure: { readonly metric: string; readonly unit: string } & ({ readonly rate: number } | { readonly sample: string });
  /** The digest the app must report, where the harness knows it beforehand: another one fails the script, as it fails a trial. */
  readonly digest?: string;
}

/** A server under load: its environment, and the load generator's arguments (`{url}` stands for the server's address). */
export interface ServerReproduction extends ReproductionBase {
  readonly kind: "server";
  readonly env: Readonly<Record<string, string>>;
  readonly load: { readonly tool: "oha"; readonly warmupArgs: readonly string[]; readonly args: readonly string[]; readonly metric: string; readonly unit: string };
}

/**
 * A program started again and again, each start timed from exec to exit by hyperfine with the
 * harness's own arguments (no shell, the profile's warm-up and runs); it must print `expectStdout`.
 */
export interface ProcessReproduction extends ReproductionBase {
  readonly kind: "process";
  readonly expectStdout: string;
  readonly timing: { readonly tool: "hyperfine"; readonly warmup: number; readonly runs: number; readonly metric: string; readonly unit: string };
}

export type Reproduction = InProcessReproduction | ServerReproduction | ProcessReproduction;

/** The cells of one scenario that `list` shows: an app and the runtimes it runs on. */
export interface AppListing {
  readonly name: string;
  readonly runtimes: readonly string[];
}

/**
 * A suite: everything the harness knows about one kind of measurement, declared once. Its
 * manifests' suite block and profiles are checked by `schemas/suites/<name>.schema.json`
 * (`$defs.config`, `$defs.profile`, and `$defs.app` where it has apps).
 */
export interface Suite<Config = unknown, P extends ProfileParams = ProfileParams, Options = Record<string, never>> {
  readonly name: string;
  /** Every metric the suite can record; a manifest may narrow or override them, never has to repeat them. */
  readonly metrics: Readonly<Record<string, MetricDefinition>>;
  /** Default profiles; a manifest's `profiles` override them key by key. */
  readonly profiles: Readonly<Record<SuiteProfile, P>>;
  /** The external programs it needs: `setup` installs or checks exactly these. */
  readonly tools: readonly Tool[];
  /** Its own options for `run` (and `list`), by long name without the dashes. */
  readonly options?: Readonly<Record<string, SuiteOption>>;
  /** Turns the raw option values (each a list of strings) into the suite's typed options; a bad value is a UserError. */
  parseOptions?(raw: Readonly<Record<string, readonly string[]>>): Options;
  /**
   * What `scripts/bench` with no arguments measures of this suite, where less than everything (so
   * that the default run stays within minutes): some of its scenarios, and options such as one
   * representative app. `run` and the profiles still cover everything.
   */
  readonly defaultRun?: { readonly scenarios?: readonly string[]; readonly options?: Readonly<Record<string, readonly string[]>> };
  /** Readies what the suite needs beyond its scenarios (its apps' locked packages), once; run by setup. */
  prepare?(note: (line: string) => void): Promise<void>;
  /** Apps of this suite and the runtimes each supports, for `list`. */
  listApps?(): AppListing[];
  /**
   * For `plan`: the cells one scenario has on a runtime, named only (nothing is provisioned), and
   * the time their trials and checks take, computed from the scenario's profile and the suite's own
   * cost of each step; it asks `keeps` of every cell and counts only those it takes (`run --param`,
   * `--load-point`), and `run` reads the cells it asked of to name a filter that keeps none. A
   * suite without it is listed by `plan` with no estimate.
   */
  estimate?(scenario: SuiteScenario<Config, P>, runtime: RuntimeName, options: Options, keeps: (params: Readonly<Record<string, ParamValue>>) => boolean): CostEstimate;
  /**
   * For `repro` and `profile`: how to measure a result's cell again without the harness. A suite
   * without it has no standalone reproduction; a cell it cannot reproduce alone is a UserError.
   */
  reproduction?(scenario: SuiteScenario<Config, P>, doc: ResultDocument): Reproduction;
  /** Starts the suite's part of a run. */
  start(context: SuiteContext<Options>): SuiteSession<Config, P>;
}

/** A suite with its types erased, as the registry and the orchestrator hold it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySuite = Suite<any, any, any>;

/**
 * A subject's view of its scenario as the counting pass treats it: every cell is counted in the
 * full profile; in the quick one (and smoke) only those `countedInQuick` picks, one representative
 * cell per suite and runtime, since counting under strace costs as much as a trial or more
 * (docs/methodology.md, "Counts"). An uncounted subject's view drops `countMetrics`, so its result
 * records none of them and nothing is counted for it.
 */
export function countedScenario<S extends SuiteScenario>(scenario: S, countMetrics: Readonly<Record<string, unknown>>, countedInQuick: boolean): S {
  if (scenario.profile === "full" || countedInQuick) return scenario;
  return { ...scenario, metrics: Object.fromEntries(Object.entries(scenario.metrics).filter(([name]) => !(name in countMetrics))) };
}

/** The count metrics a subject records: what its counting pass has to count (none: nothing to do). */
export function countedMetrics(subject: Subject, countMetrics: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(countMetrics).filter((name) => name in subject.scenario.metrics);
}

/** Declares a suite; only here to infer its type parameters. */
export function defineSuite<Config, P extends ProfileParams, Options = Record<string, never>>(suite: Suite<Config, P, Options>): Suite<Config, P, Options> {
  return suite;
}
