import { statSync } from "node:fs";
import type { CommandOptions } from "../../process/children.ts";
import type { MetricDefinition } from "../../results/types.ts";
import { RUNTIMES } from "../../runtimes/catalog.ts";
import { cacheDirs } from "../../runtimes/command.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { countedLayout } from "../../tools/fixed-layout.ts";
import { runWithUsage } from "../../tools/gnu-time.ts";
import { folderSize } from "../../tools/sizes.ts";
import { countRuns, emulatedCounts, PATH_SYSCALLS, runCounted, splitScheduling, sumCalls, syscallProfile, tasksStarted, type SplitCounts } from "../../tools/strace.ts";
import { TrialFailure, type CountOutput, type SuiteScenario } from "../suite.ts";

const perStart = (unit: string): MetricDefinition => ({ unit: `${unit}/start`, better: "lower", resolution: 1, exact: true });

/**
 * What one start of the program costs the kernel, counted apart from the timed runs: system calls
 * (by strace; without the calls scheduling decides, src/tools/strace.ts, and those on the runtime's
 * own cache files: Deno's start reads and writes SQLite databases in DENO_DIR, and how much it
 * writes moved with timing: 892 to 914 calls over ten starts of deno 2.9.6's one-line
 * program against 618 to 621 without those on DENO_DIR, which `details.syscall_counts.cache`
 * keeps by call), the calls among them
 * that look up a path, page faults and context switches (wait4's rusage, through GNU time, in runs
 * without strace, which would add its own), and the threads it started. The runtime's binary and
 * package sizes are recorded once per version, with SIZE_SCENARIO.
 */
export const STARTUP_COUNT_METRICS: Readonly<Record<string, MetricDefinition>> = {
  syscalls: perStart("calls"),
  path_syscalls: perStart("calls"),
  minor_faults: perStart("faults"),
  major_faults: perStart("faults"),
  voluntary_switches: perStart("switches"),
  involuntary_switches: perStart("switches"),
  threads: { unit: "threads", better: "lower", exact: true },
  binary_mb: { unit: "MB", better: "lower", exact: true },
  package_mb: { unit: "MB", better: "lower", exact: true },
};

const SYSCALL_METRICS = ["syscalls", "path_syscalls", "threads"] as const;
const USAGE_METRICS = ["minor_faults", "major_faults", "voluntary_switches", "involuntary_switches"] as const;
const SIZE_METRICS = ["binary_mb", "package_mb"] as const;

/** The scenario whose results carry the runtime's sizes: its bare start, so a size is recorded once per version and run. */
export const SIZE_SCENARIO = "hello";

/** The scenario the quick profile counts, the runtime's bare start; the full profile counts every scenario. */
export const QUICK_COUNTED_SCENARIO = "hello";
export const countedIn = (scenario: SuiteScenario): boolean => scenario.profile === "full" || scenario.name === QUICK_COUNTED_SCENARIO;


/**
 * What a counted start costs, in executions like those of a trial: one under GNU time, and one
 * under strace, which stops the program at each of its calls. Measured in a quick run of the four
 * scenarios on node 26, deno 2.9 and bun 1.4 (three counted starts a cell) on the shared machine
 * under load: their counting took 24.8 s against 106 s for their trials' 50 executions a cell,
 * 3.9 executions a counted start.
 */
const COUNTED_START_EXECUTIONS = 3.9;
export function countExecutions(trials: number): number {
  return countRuns(trials) * COUNTED_STARTS * COUNTED_START_EXECUTIONS;
}

/** A subject's view of its scenario: the sizes only in SIZE_SCENARIO's. */
export function sizedScenario<S extends SuiteScenario>(scenario: S): S {
  if (scenario.name === SIZE_SCENARIO) return scenario;
  const metrics = Object.fromEntries(Object.entries(scenario.metrics).filter(([name]) => !(SIZE_METRICS as readonly string[]).includes(name)));
  return { ...scenario, metrics };
}

/** The command of one start, and what it must print. */
export interface StartCommand {
  readonly argv: readonly string[];
  readonly options: CommandOptions;
  readonly expected: string;
}

function checkPrinted(what: string, result: { code: number | null; stdout: string }, expected: string): void {
  if (result.code !== 0) throw new TrialFailure(`${what} exited with ${result.code}`);
  if (result.stdout.trim() !== expected) throw new TrialFailure(`${what} printed ${JSON.stringify(result.stdout.trim().slice(0, 200))}, expected ${JSON.stringify(expected)}`);
}

/**
 * The runtime's binary and unpacked package, in MB, read once per counted run like the other counts
 * (a size does not move, so its runs agree and a paired comparison judges it at once); a binary
 * given by path has no package.
 */
function sizes(runtime: IdentifiedRuntime, runs: number): { samples: Record<string, number[]>; unavailable: Record<string, string> } {
  const binary = runtime.provisioned.binary;
  const repeat = (read: () => number) => Array.from({ length: runs }, read);
  const binaryMb = repeat(() => Math.round(statSync(binary).size / 1e4) / 100);
  if (runtime.provisioned.source !== "registry") return { samples: { binary_mb: binaryMb }, unavailable: { package_mb: "a binary given by path has no package" } };
  const packageDir = binary.slice(0, binary.length - RUNTIMES[runtime.identity.name].binaryInPackage.length);
  return { samples: { binary_mb: binaryMb, package_mb: repeat(() => folderSize(packageDir).mb) }, unavailable: {} };
}

/**
 * Starts under strace, and as many under GNU time, in one trial of the counts: a pair compares the
 * trials' medians. Now and then a start's background thread loses the race to the process's exit
 * and leaves a few lookups undone (node 22 here: an `openat` and a `newfstatat` of /proc/self/maps
 * and one more `openat`, in about one counted start in 15 in runs under load), and the page faults
 * of a start move with how far its threads got (deno's and bun's by up to 0.7 % between A/A
 * pairs of one start a trial): the median of three keeps one such start from deciding its pair.
 */
const COUNTED_STARTS = 3;

/**
 * The counting pass of one subject: `countRuns` trials, each COUNTED_STARTS starts under GNU time
 * (faults and context switches) and as many under strace (calls and threads), each checked like a timed one.
 */
export async function countStarts(runtime: IdentifiedRuntime, scenario: SuiteScenario, command: StartCommand, workDir: string): Promise<CountOutput> {
  // A manifest may leave the counts out: then there is nothing to count.
  if (!Object.keys(STARTUP_COUNT_METRICS).some((name) => name in scenario.metrics)) return { samples: {} };
  const emulated = emulatedCounts(runtime);
  const runs = countRuns(scenario.profileParams.trials);
  const size = scenario.name === SIZE_SCENARIO ? sizes(runtime, runs) : { samples: {}, unavailable: {} };
  if (emulated) {
    const unavailable = Object.fromEntries([...SYSCALL_METRICS, ...USAGE_METRICS].map((metric) => [metric, emulated]));
    return { samples: size.samples, unavailable: { ...unavailable, ...size.unavailable } };
  }
  const layout = await countedLayout();
  const usage: Record<(typeof USAGE_METRICS)[number], number[]> = { minor_faults: [], major_faults: [], voluntary_switches: [], involuntary_switches: [] };
  const traced: { split: SplitCounts; tasks: number }[] = [];
  let straceMissing: string | null = null;
  for (let run = 0; run < runs; run++) {
    for (let start = 0; start < COUNTED_STARTS; start++) {
      const timed = await runWithUsage(command.argv, command.options, workDir, layout.prefix);
      checkPrinted(`counted start ${run + 1} under GNU time`, timed.result, command.expected);
      if (timed.usage === null) throw new TrialFailure(`counted start ${run + 1}: GNU time wrote no report`);
      usage.minor_faults.push(timed.usage.minorFaults);
      usage.major_faults.push(timed.usage.majorFaults);
      usage.voluntary_switches.push(timed.usage.voluntarySwitches);
      usage.involuntary_switches.push(timed.usage.involuntarySwitches);
    }
    for (let start = 0; start < COUNTED_STARTS; start++) {
      const counted = await runCounted(command.argv, command.options, workDir, cacheDirs(runtime, command.options.env), layout.prefix);
      checkPrinted(`counted start ${run + 1} under strace`, counted.result, command.expected);
      if (counted.counts === null) straceMissing = counted.unavailable;
      else traced.push({ split: splitScheduling(counted.counts, counted.cacheCalls), tasks: tasksStarted(counted.counts) });
    }
  }
  const samples: Record<string, number[]> = { ...usage, ...size.samples };
  const counted_layout = layout.detail;
  if (straceMissing !== null) {
    return { samples, unavailable: { ...Object.fromEntries(SYSCALL_METRICS.map((metric) => [metric, straceMissing])), ...size.unavailable }, details: { counted_layout } };
  }
  samples.syscalls = traced.map(({ split }) => sumCalls(split.work));
  samples.path_syscalls = traced.map(({ split }) => sumCalls(split.work, PATH_SYSCALLS));
  samples.threads = traced.map(({ tasks }) => tasks);
  const perTrial = Array.from({ length: runs }, () => COUNTED_STARTS);
  const trialSamples = Object.fromEntries([...SYSCALL_METRICS, ...USAGE_METRICS].map((metric) => [metric, perTrial]));
  return { samples, trialSamples, unavailable: size.unavailable, details: { counted_layout, syscall_counts: syscallProfile("start", traced.map(({ split }) => split)) } };
}

