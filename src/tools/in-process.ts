import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { tail } from "../process/children.ts";
import { runWithUsage } from "./gnu-time.ts";
import { APPS_DIR } from "../core/paths.ts";
import { withInstructions, type Counted } from "./perf.ts";
import { difference, parseStraceSummary, perUnit, splitScheduling, straceArgv, straceReadiness, sumCalls, syscallProfile, type SplitCounts, type SyscallProfile } from "./strace.ts";
import { TrialFailure } from "../core/errors.ts";

/** The protocol's runtime side, which every in-process app imports. */
export const IN_PROCESS_PROTOCOL_DIR = join(APPS_DIR, "inprocess");

/**
 * The in-process measuring protocol, harness side (the runtime side is apps/inprocess/protocol.js):
 * one fresh runtime process per trial, under GNU time for its peak RSS and CPU seconds (and under
 * `perf stat` for the instructions it retired, where the machine can count them). The input
 * goes in RUNTIME_BENCH_INPUT; the report comes back in a file, so the app's console output cannot
 * corrupt it.
 */
export interface InProcessInput {
  readonly params: Readonly<Record<string, unknown>>;
  /** The folder the app works in (the data the harness generated for it). */
  readonly workDir: string;
  /** Warm-up iterations: exactly this many, or with `steady` at most this many. */
  readonly warmup: number;
  readonly iterations: number;
  /** The steadiness rule the warm-up runs until (apps/inprocess/steady.js). */
  readonly steady?: { readonly block: number; readonly tolerance: number };
}

export interface InProcessRequest {
  /** The runtime and its arguments that start the app's entry file. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The runtime's environment; the protocol's two variables are added to it. */
  readonly env: NodeJS.ProcessEnv;
  readonly input: InProcessInput;
  /** Where the report and GNU time's output are written (and removed again). */
  readonly scratchDir: string;
  readonly timeoutMs: number;
  /** The digest the harness computed itself; a different one is a failure. */
  readonly expectedDigest?: string;
}

export interface InProcessReport {
  readonly digest: string;
  /** `wall_ms` (one per measured iteration) and any extra samples the operation returned. */
  readonly samples: Readonly<Record<string, readonly number[]>>;
  /** The warm-up iterations that ran, and the measured ones. */
  readonly counts: { readonly warmup: number; readonly iterations: number };
  /** Whether the warm-up became steady by its rule; null without one. */
  readonly steady: boolean | null;
}

export type InProcessOutcome =
  | {
      readonly ok: true;
      readonly report: InProcessReport;
      /** User plus system CPU seconds of the whole process, its peak resident set in MB, and the instructions it retired. */
      readonly usage: { readonly cpuS: number; readonly peakRssMb: number; readonly instructions: Counted };
    }
  | {
      readonly ok: false;
      /** One line-ish reason, with the last lines of stderr when there are any. */
      readonly error: string;
      /** The last 20 lines of the process's stderr. */
      readonly stderr: string;
      /** Set when the process ran but reported a digest other than the expected one: the suite may know which file or row was wrong. */
      readonly wrongDigest?: true;
    };

const isNumberArray = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((v) => typeof v === "number" && Number.isFinite(v));

/** Checks a report's shape against the input it answers; returns what is wrong, or the report. */
export function parseReport(text: string, input: InProcessInput): InProcessReport | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: `the report is not JSON: ${JSON.stringify(text.slice(0, 120))}` };
  }
  if (parsed === null || typeof parsed !== "object") return { error: "the report is not a JSON object" };
  const report = parsed as Record<string, unknown>;
  if (typeof report.error === "string") return { error: `the app failed: ${report.error}` };
  if (typeof report.digest !== "string") return { error: "the report has no digest" };
  const samples = report.samples as Record<string, unknown> | undefined;
  if (samples === null || typeof samples !== "object") return { error: "the report has no samples" };
  for (const [name, values] of Object.entries(samples)) {
    if (!isNumberArray(values)) return { error: `the report's samples.${name} is not an array of finite numbers` };
  }
  const wall = samples.wall_ms as number[] | undefined;
  if (wall?.length !== input.iterations) {
    return { error: `the report has ${wall?.length ?? 0} wall_ms samples for ${input.iterations} iterations` };
  }
  const counts = report.counts as Record<string, unknown> | undefined;
  const warmup = counts?.warmup;
  const warmupFits = input.steady === undefined ? warmup === input.warmup : Number.isInteger(warmup) && (warmup as number) >= 0 && (warmup as number) <= input.warmup;
  if (!warmupFits || counts?.iterations !== input.iterations) {
    const asked = input.steady === undefined ? `${input.warmup}` : `at most ${input.warmup}`;
    return { error: `the report's counts ${JSON.stringify(counts)} differ from the ${asked} warm-up and ${input.iterations} measured iterations asked for` };
  }
  const steady = input.steady === undefined ? null : report.steady === true;
  return { digest: report.digest, samples: samples as Record<string, number[]>, counts: { warmup: warmup as number, iterations: input.iterations }, steady };
}

function withStderr(reason: string, stderr: string): string {
  const last = tail(stderr, 5);
  return last === "" ? reason : `${reason}: ${last}`;
}

/** A profile's warm-up parameters, as the in-process suites' schemas name them. */
export interface InProcessWarmUp {
  /** Warm-up iterations at most (0: measured cold). */
  readonly warmup: number;
  readonly warmup_block: number;
  readonly warmup_tolerance: number;
}

/** The input's warm-up: until steady, at most the profile's `warmup` iterations. */
export function warmUpInput(profile: InProcessWarmUp): Pick<InProcessInput, "warmup" | "steady"> {
  return { warmup: profile.warmup, steady: { block: profile.warmup_block, tolerance: profile.warmup_tolerance } };
}

/**
 * What `plan` counts for a warm-up: the two blocks the rule needs at least and one more, within
 * the cap (the steady-state benchmark's note in docs/measurements.json says how many it took).
 */
export function expectedWarmUpIterations(profile: InProcessWarmUp): number {
  return Math.min(profile.warmup, 3 * profile.warmup_block);
}

/** The warm-up in words, for a result's details. */
export function warmUpText(profile: InProcessWarmUp): string {
  return profile.warmup === 0
    ? "none: measured cold"
    : `until the last ${profile.warmup_block} iterations agree within ${profile.warmup_tolerance * 100} % with one another and with the ${profile.warmup_block} before, at most ${profile.warmup}`;
}

/** The metric every in-process suite records beside its own: how many iterations a process took to become steady. */
export const WARM_UP_METRICS = { warmup_iterations: { unit: "iterations", better: "lower" } } as const;

/** What a trial records of its warm-up: the metric's sample, and in its details whether it became steady. */
export function warmUpRecord(report: InProcessReport, trialIndex: number): { samples: { warmup_iterations: number[] }; details: Record<string, unknown> } {
  return {
    samples: { warmup_iterations: [report.counts.warmup] },
    details: { [`trial_${trialIndex + 1}_warmup`]: { iterations: report.counts.warmup, steady: report.steady } },
  };
}

/** Runs one trial of an in-process app and reads its report. Never throws for what the app does. */
export async function runInProcessTrial(request: InProcessRequest): Promise<InProcessOutcome> {
  const dir = await mkdtemp(join(request.scratchDir, ".in-process-"));
  try {
    const reportFile = join(dir, "report.json");
    const env = { ...request.env, RUNTIME_BENCH_INPUT: JSON.stringify(request.input), RUNTIME_BENCH_REPORT: reportFile };
    const counted = await withInstructions(request.argv, dir, (argv) => runWithUsage(argv, { cwd: request.cwd, env, timeoutMs: request.timeoutMs }, dir));
    const { result, usage } = counted.result;
    const stderr = tail(result.stderr);
    const fail = (reason: string): Extract<InProcessOutcome, { ok: false }> => ({ ok: false, error: withStderr(reason, result.stderr), stderr });

    if (result.spawnError !== undefined) return fail(`could not start ${request.argv[0]}: ${result.spawnError}`);
    if (result.timedOut) return fail(`timed out after ${request.timeoutMs / 1000} s`);
    const text = await readFile(reportFile, "utf8").catch(() => undefined);
    const exit = result.signal ?? `code ${result.code}`;
    if (text === undefined) {
      return fail(result.code === 0 ? "exited without writing a report (does the entry call runInProcess?)" : `crashed (exit ${exit}) without a report`);
    }
    const report = parseReport(text, request.input);
    // An error report's message says what broke; its stack stays in `stderr`.
    if ("error" in report) return { ok: false, error: report.error, stderr };
    // GNU time exits with the command's code; a report of success from a process that then failed is not one.
    if (result.code !== 0 || usage === null) return fail(`wrote a report but exited with ${exit}`);
    if (request.expectedDigest !== undefined && report.digest !== request.expectedDigest) {
      return { ...fail(`reported digest ${report.digest}, expected ${request.expectedDigest}`), wrongDigest: true };
    }
    return { ok: true, report, usage: { cpuS: usage.userS + usage.systemS, peakRssMb: usage.peakRssMb, instructions: counted.instructions } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One app process of the protocol as a counted run would start it: `iterations` measured (no
 * warm-up), its argv behind `tracer` (strace's, which counts it).
 */
export type CountedInProcessRun = (iterations: number, tracer: readonly string[]) => Promise<InProcessOutcome>;

/** Per-unit call counts of an in-process app, one sample per counted run; null with the reason where strace cannot count. */
export interface InProcessCounts {
  readonly syscalls: number[] | null;
  readonly unavailable: string | null;
  readonly profile: SyscallProfile | null;
}

/** Units a counted run's extra iterations move at least, so that the few calls of a start that vary fall to hundredths of a call per unit. */
const MIN_COUNTED_UNITS = 100;

/** The measured iterations a counted run adds beyond the first: enough for MIN_COUNTED_UNITS units, at most `most` (an iteration that is long by itself needs no company). */
export const countedIterations = (unitsPerIteration: number, most = MIN_COUNTED_UNITS): number => Math.min(most, Math.max(1, Math.ceil(MIN_COUNTED_UNITS / unitsPerIteration)));

/**
 * Seconds of a counting pass: the baseline run and `runs` counted runs, each a process of `processS`
 * and its iterations, `slowdown` times as long as the suite's estimate gives them timed (strace
 * stops the app at every call: each suite measures its own factor).
 */
export function countingSeconds(processS: number, iterationS: number, unitsPerIteration: number, runs: number, slowdown: number, most?: number): number {
  // Each process also runs the verification once.
  const process = (iterations: number) => processS + (1 + iterations) * iterationS;
  return slowdown * (process(1) + runs * process(1 + countedIterations(unitsPerIteration, most)));
}

/**
 * System calls per unit of work (a file, a query, a message) of an in-process app: every process
 * also starts the runtime, sets up and runs the verification, so one run with a single measured
 * iteration is the baseline, and each of `runs` runs with `countedIterations` more gives one
 * sample: its calls beyond the baseline, per unit those iterations moved. Each run is checked as
 * a trial is (report, digest); the work the protocol does around each iteration (the app's
 * `reset`) counts with it.
 */
export async function countInProcess(run: CountedInProcessRun, unitsPerIteration: number, per: string, runs: number, scratchDir: string, most?: number): Promise<InProcessCounts> {
  const ready = await straceReadiness();
  if (!ready.ok) return { syscalls: null, unavailable: ready.unavailable, profile: null };
  const counted = async (iterations: number): Promise<SplitCounts> => {
    const dir = await mkdtemp(join(scratchDir, ".strace-"));
    try {
      const output = join(dir, "summary");
      const outcome = await run(iterations, straceArgv(output));
      if (!outcome.ok) throw new TrialFailure(`counted run: ${outcome.error}`, { stderr: outcome.stderr });
      const counts = parseStraceSummary(await readFile(output, "utf8").catch(() => ""));
      if (counts === null) throw new TrialFailure("counted run: strace wrote no summary");
      return splitScheduling(counts);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  const extra = countedIterations(unitsPerIteration, most);
  const baseline = await counted(1);
  const samples: SplitCounts[] = [];
  for (let r = 0; r < runs; r++) samples.push(perUnit(difference(await counted(1 + extra), baseline), extra * unitsPerIteration));
  return { syscalls: samples.map((split) => Math.round(sumCalls(split.work) * 1e4) / 1e4), unavailable: null, profile: syscallProfile(per, samples) };
}
