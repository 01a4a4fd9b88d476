import { resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { leavesNoCell, type LoadPointFilter } from "../../core/params.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { readEnvironment } from "../../env/fingerprint.ts";
import { checkMachine, describeMachine, loadAverages } from "../../env/machine-check.ts";
import { executeRun, type RunOutcome } from "../../orchestrate/execute.ts";
import { planRun, scenarioLeftNoCell, timeLeft } from "../../orchestrate/estimate.ts";
import { newRunInfo, type RunnerIdentity } from "../../orchestrate/run-info.ts";
import type { Profile } from "../../results/types.ts";
import { runFolder, writeRunTable } from "../../results/store.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { DEFAULT_RUNTIMES, prepareRuntimes, splitLabel } from "../../runtimes/prepare.ts";
import { parseSpec } from "../../runtimes/spec.ts";
import { strayFolders } from "../../scenarios/manifest.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { resolveScenarios, type ResolvedScenario } from "../../suites/resolve.ts";
import { commandLineSelection, DEFAULT_SELECTION_HELP, suiteOptionArgs, suiteOptionList } from "../../suites/selection.ts";
import type { AnySuite } from "../../suites/suite.ts";
import { Progress } from "../../ui/progress.ts";
import { formatDuration, parseDuration } from "../../ui/duration.ts";
import { failureLines, fullTable, summaryTable } from "../../ui/summary.ts";
import { DEFAULT_THRESHOLDS, findFindings } from "../../findings/detect.ts";
import { findingsTable } from "../../findings/format.ts";
import { defineCommand } from "../command.ts";
import { count } from "../../ui/words.ts";
import { sentinelDriftWarning } from "./regressions.ts";

export interface RunRequest {
  suites: string[];
  scenarios: string[];
  runtimes: string[];
  sentinel: string | null;
  profile: Profile;
  /** Each scenario's minimum trials, instead of its profile's. */
  trials?: number;
  outDir: string;
  /** Each suite's own options (suite → option → values), such as http's --app. */
  suiteOptions?: Record<string, Record<string, string[]>>;
  /** Print the full table (every metric of every cell) as well as the summary. */
  fullTable?: boolean;
  /** Extra trials the adaptive rule may add over the whole run (docs/paired-verdicts.md). */
  trialBudget?: number;
  /** Seconds the whole run should take: adaptive trials get what the plan's estimate leaves of it. */
  timeLimit?: number;
  /** False: undecided cells take every look up to their cap (a sweep's narrowing runs); default true. */
  futility?: boolean;
  /** The machine its results name, instead of the one the environment gives (`sweep` names its reference testbed). */
  identity?: RunnerIdentity;
  /** Only the cells at these load points (`--param`, `--load-point`); default every cell. */
  params?: LoadPointFilter;
}

export function parseProfile(value: string | undefined): Profile {
  if (value === undefined || value === "quick" || value === "full" || value === "smoke") return value ?? "quick";
  throw new UserError(`unknown profile '${value}': use quick, full or smoke`);
}

/** The most `--trials` takes: adaptive trials go to three times it, and a scenario of 300 trials is a typo, not a plan. */
const MAX_TRIALS_OPTION = 100;

/** `--trials`: a whole number from 1 to MAX_TRIALS_OPTION; the smoke profile is one trial by definition. */
export function parseTrials(value: string | undefined, profile: Profile): number | undefined {
  if (value === undefined) return undefined;
  const trials = Number(value);
  if (!Number.isInteger(trials) || trials < 1 || trials > MAX_TRIALS_OPTION) throw new UserError(`--trials must be a whole number of trials from 1 to ${MAX_TRIALS_OPTION}, not '${value}'`);
  if (profile === "smoke") throw new UserError("--trials: the smoke profile runs one trial; use --profile quick or full");
  return trials;
}

/**
 * Suites' options are checked before anything is provisioned: one given for suites none of which
 * runs, or a value (an app) no chosen suite has, is bad input rather than a run that measures nothing.
 */
export function checkSuiteOptions(given: Record<string, Record<string, string[]>>, suites: readonly AnySuite[]): void {
  for (const option of suiteOptionList()) {
    const values = [...new Set(suites.flatMap((suite) => given[suite.name]?.[option.name] ?? []))];
    if (values.length === 0) continue;
    const taking = suites.filter((suite) => suite.options?.[option.name]);
    if (taking.length === 0) throw new UserError(`--${option.name} applies to the ${option.suites.join(", ")} suite(s), and none of them is chosen`);
    const accepted = [...new Set(taking.flatMap((suite) => suite.options![option.name]!.values?.() ?? values))];
    const unknown = values.find((value) => !accepted.includes(value));
    if (unknown !== undefined) throw new UserError(`unknown ${option.name} '${unknown}': the chosen suites have ${option.name}s ${accepted.join(", ")}`);
  }
}

/** A load-point filter that leaves a scenario no cell is bad input before anything is provisioned. */
function checkLoadPoints(scenarios: readonly ResolvedScenario[], runtimes: readonly string[], suiteOptions: Record<string, Record<string, string[]>>, params: LoadPointFilter): void {
  if (params.values === undefined && params.points === undefined) return;
  const left = scenarioLeftNoCell(scenarios, runtimes.map((text) => parseSpec(splitLabel(text).spec)), suiteOptions, params);
  if (left !== null) throw new UserError(leavesNoCell(params, `${left.selected.suite.name}/${left.selected.scenario.name}`, left.points));
}

/** Warns, on stderr, about folders in suites/ that no command takes for a scenario. */
export function warnStrayFolders(): void {
  for (const warning of strayFolders()) process.stderr.write(`runtime-bench: warning: ${warning}\n`);
}

/** Provision, measure, write, summarise: shared by `run` and the default command. */
export async function runBenchmarks(request: RunRequest): Promise<RunOutcome> {
  // Read before the run's own work (unpacking and probing runtimes) adds to it: the check asks
  // whether anything else is running, and a quiet runner must not be refused for the run's setup.
  const loadAtStart = loadAverages();
  const progress = new Progress();
  warnStrayFolders();
  const scenarios = resolveScenarios(selectScenarios({ suites: request.suites, scenarios: request.scenarios }), request.profile, request.trials);
  const suiteOptions = request.suiteOptions ?? {};
  checkSuiteOptions(suiteOptions, [...new Set(scenarios.map((s) => s.suite))]);
  const params = request.params ?? {};
  checkLoadPoints(scenarios, request.runtimes, suiteOptions, params);
  const runtimes = await prepareRuntimes(request.runtimes, (line) => progress.log(line), request.sentinel);
  const environment = readEnvironment();
  const machine = await checkMachine(environment, loadAtStart);
  const runInfo = await newRunInfo(request.profile, request.sentinel, request.identity);
  progress.log(describeMachine(environment, machine));
  if (runInfo.runner_kind === "dedicated" && machine.unmet.length > 0) progress.log("machine: collect will refuse to publish this run's results until the settings above are fixed (scripts/tune-machine)");
  const extraSeconds = request.timeLimit === undefined ? undefined : adaptiveTime(request.timeLimit, scenarios, runtimes, suiteOptions, params, (line) => progress.log(line));
  const outcome = await executeRun(
    {
      scenarios,
      runtimes,
      profile: request.profile,
      ...(request.trials !== undefined ? { trials: request.trials } : {}),
      outDir: request.outDir,
      run: runInfo,
      environment: { ...environment, machine },
      suiteOptions,
      ...(request.trialBudget !== undefined ? { trialBudget: request.trialBudget } : {}),
      ...(extraSeconds !== undefined ? { extraSeconds } : {}),
      ...(request.futility !== undefined ? { futility: request.futility } : {}),
      params,
    },
    progress,
  );
  const docs = outcome.results.map((r) => r.doc);
  const run = docs[0]?.run;
  if (run) {
    const table = fullTable(docs);
    const tablePath = await writeRunTable(request.outDir, run, `${table}\n`);
    process.stdout.write(`\n${summaryTable(docs)}\n\n`);
    const findings = findFindings(docs);
    if (findings.length > 0) process.stdout.write(`findings (a runtime ${DEFAULT_THRESHOLDS.outlierFactor}× or more off the others; scripts/bench repro makes a reproduction):\n${findingsTable(findings)}\n\n`);
    if (request.fullTable) process.stdout.write(`${table}\n\n`);
    process.stdout.write(`${count(outcome.results.length, "result")} written below ${runFolder(request.outDir, run)}; every metric of every cell: ${tablePath}\n`);
  } else if (outcome.interrupted) {
    process.stdout.write(`\ninterrupted before any cell was measured: no result written to ${request.outDir}\n`);
  }
  if (outcome.suiteSeconds.size > 0) {
    process.stdout.write(`time per suite: ${[...outcome.suiteSeconds].map(([suite, seconds]) => `${suite} ${formatDuration(seconds)}`).join(", ")}\n`);
  }
  const drift = request.sentinel ? sentinelDriftWarning(request.outDir, docs) : null;
  if (drift) process.stderr.write(`${drift}\n`);
  return outcome;
}

export function exitCodeOf(outcome: RunOutcome): number {
  const failed = failureLines(outcome.results.map((r) => r.doc));
  if (failed.length > 0) process.stderr.write(`runtime-bench: ${count(failed.length, "result")} failed (each file holds the whole reason):\n${failed.map((line) => `  ${line}\n`).join("")}`);
  return failed.length > 0 ? 1 : 0;
}

const SUITE_OPTIONS = suiteOptionArgs();

/** What a time limit leaves for adaptive trials, said on the progress log. */
function adaptiveTime(
  limit: number,
  scenarios: readonly ResolvedScenario[],
  runtimes: readonly IdentifiedRuntime[],
  suiteOptions: Record<string, Record<string, string[]>>,
  params: LoadPointFilter,
  log: (line: string) => void,
): number {
  const { estimate, extra } = timeLeft(limit, planRun(scenarios, runtimes.map((r) => parseSpec(r.identity.spec)), suiteOptions, { params }));
  log(
    extra > 0
      ? `time limit ${formatDuration(limit)}: the plan's estimate at each profile's minimum trials is ${formatDuration(estimate)}, so adaptive trials may add ${formatDuration(extra)}`
      : `time limit ${formatDuration(limit)}: the plan's estimate at each profile's minimum trials is already ${formatDuration(estimate)}, so no cell gets more than its minimum`,
  );
  return extra;
}

const PARAM = /^([a-z_][a-z0-9_]*)=([^\s,=]+)$/;

/**
 * `--param` and `--load-point` values as a filter: a parameter given twice takes either value; a
 * load point is NAME=VALUE pairs joined by commas, each name once. Anything else is bad input.
 */
export function parseLoadPointFilter(params: readonly string[], loadPoints: readonly string[] = []): LoadPointFilter {
  const values: Record<string, string[]> = {};
  for (const text of params) {
    const match = PARAM.exec(text);
    if (match === null) throw new UserError(`--param '${text}': write it as NAME=VALUE, one parameter each, such as --param batch=100`);
    (values[match[1]!] ??= []).push(match[2]!);
  }
  const points = loadPoints.map((text) => {
    const point: Record<string, string> = {};
    for (const pair of text.split(",")) {
      const match = PARAM.exec(pair);
      if (match === null || match[1]! in point) throw new UserError(`--load-point '${text}': write it as NAME=VALUE pairs joined by commas, each name once, such as --load-point batch=1,payload=string`);
      point[match[1]!] = match[2]!;
    }
    return point;
  });
  return { ...(params.length > 0 ? { values } : {}), ...(points.length > 0 ? { points } : {}) };
}

/** `--trial-budget`: a whole number of extra trials, 0 for none. */
export function parseTrialBudget(text: string): number {
  const budget = Number(text);
  if (!Number.isInteger(budget) || budget < 0) throw new UserError(`--trial-budget must be a whole number of trials, not '${text}'`);
  return budget;
}

export const runSubcommand = defineCommand({
  name: "run",
  summary: "Measure scenarios on runtimes (provisioning them first) and write one result file per cell.",
  usage: `run [--suite S]... [--scenario X]... [--default-selection] [--runtime SPEC]... [--profile quick|full|smoke] [--trials N] [--out DIR] [--sentinel SPEC] [--trial-budget N] [--time-limit T] [--param NAME=VALUE]... [--load-point NAME=VALUE,…]... [--full]${SUITE_OPTIONS.usage}`,
  help: [
    "  --suite S         a suite to run (repeatable); default: every suite",
    "  --scenario X      a scenario, as NAME or SUITE/NAME (repeatable); default: every scenario of the suites",
    ...DEFAULT_SELECTION_HELP,
    `  --runtime SPEC    node@22.11.0, deno@2.1, bun@latest or NAME@path:/abs/bin (repeatable); default: ${DEFAULT_RUNTIMES.join(" ")}`,
    "                    LABEL=SPEC names the subject (base=node@22.11.0); two builds of one version run side by side",
    "  --profile P       quick (default) or full: trials, runs and load levels come from each suite and scenario manifest; smoke: quick with one trial and one window of server warm-up, to check that a runtime runs (docs/arm64-smoke.md)",
    "  --trials N        each scenario's minimum trials, instead of its profile's; two builds of one runtime side",
    "                    by side may add up to 3× as many (at least 10; 30 in full) while their verdict is undecided",
    "  --out DIR         where results go (default: data/)",
    "  --sentinel SPEC   a pinned reference runtime measured alongside, to detect drift of the machine",
    "  --trial-budget N  extra trials adaptive runs (two builds of one runtime side by side) may add in all; default: each cell's cap",
    "  --time-limit T    the time the run should take (6h, 1h20m, 90m): adaptive trials may add what plan's estimate leaves of it,",
    "                    each scenario its share by what its looks would add at their cap (docs/paired-verdicts.md)",
    "  --param NAME=VALUE  only the cells whose load point has this value (repeatable; a name given twice takes either",
    "                    value, such as --param batch=10 --param batch=100 --param payload=bytes); a scenario left with",
    "                    no cell is bad input; plan and --time-limit price the cells kept",
    "  --load-point NAME=VALUE,NAME=VALUE  only the cells at exactly these values (repeatable: a cell at any one of",
    "                    them), such as --load-point batch=1,payload=string --load-point batch=100,payload=bytes",
    "  --full            print every metric of every cell after the summary (always written to summary.txt beside the results)",
    ...SUITE_OPTIONS.help,
    "",
    "Exit status: 0 when every result is ok or unsupported, 1 when one failed, 2 on bad input, 130 on Ctrl-C.",
  ],
  options: {
    suite: { type: "string", multiple: true },
    scenario: { type: "string", multiple: true },
    "default-selection": { type: "boolean" },
    runtime: { type: "string", multiple: true },
    profile: { type: "string" },
    trials: { type: "string" },
    out: { type: "string" },
    sentinel: { type: "string" },
    full: { type: "boolean" },
    "trial-budget": { type: "string" },
    "time-limit": { type: "string" },
    param: { type: "string", multiple: true },
    "load-point": { type: "string", multiple: true },
    ...SUITE_OPTIONS.options,
  },
  async run(values) {
    const profile = parseProfile(values.profile);
    const trials = parseTrials(values.trials, profile);
    const outcome = await runBenchmarks({
      ...commandLineSelection(values),
      runtimes: values.runtime ?? [...DEFAULT_RUNTIMES],
      sentinel: values.sentinel ?? null,
      profile,
      ...(trials !== undefined ? { trials } : {}),
      outDir: resolve(values.out ?? DEFAULT_DATA_DIR),
      fullTable: values.full ?? false,
      ...(values["trial-budget"] !== undefined ? { trialBudget: parseTrialBudget(values["trial-budget"]) } : {}),
      ...(values["time-limit"] !== undefined ? { timeLimit: parseDuration(values["time-limit"], "--time-limit") } : {}),
      params: parseLoadPointFilter(values.param ?? [], values["load-point"] ?? []),
    });
    return exitCodeOf(outcome);
  },
});
