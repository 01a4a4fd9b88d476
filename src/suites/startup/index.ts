import { runCommand, tail } from "../../process/children.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import { GNU_TIME_TOOL, measurePeakRss } from "../../tools/gnu-time.ts";
import { HYPERFINE_TOOL, runHyperfine } from "../../tools/hyperfine.ts";
import { instructionsDetails, withInstructions, type Counted } from "../../tools/perf.ts";
import { STRACE_TOOL } from "../../tools/strace.ts";
import { countedScenario, TrialFailure, defineSuite, type CheckOutcome, type Subject, type SuiteContext } from "../suite.ts";
import { countedIn, countExecutions, countStarts, sizedScenario, STARTUP_COUNT_METRICS } from "./counts.ts";

/** The `startup` block of a scenario manifest (schemas/suites/startup.schema.json#/$defs/config). */
interface StartupConfig {
  entry: string;
  expect_stdout: string;
}

/** A profile of a startup scenario (schemas/suites/startup.schema.json#/$defs/profile). */
interface StartupProfile {
  trials: number;
  warmup: number;
  runs: number;
  memory_runs: number;
  [key: string]: unknown;
}

type StartupSubject = Subject<StartupConfig, StartupProfile>;

function commandOf(subject: StartupSubject, context: SuiteContext) {
  const config = subject.scenario.config;
  return {
    argv: scriptArgv(subject.runtime, subject.flags, config.entry),
    options: { cwd: subject.scenario.dir, env: runtimeEnv(subject.runtime, context.workDir), timeoutMs: 120_000 },
    expected: config.expect_stdout.trim(),
  };
}

async function check(subject: StartupSubject, context: SuiteContext): Promise<CheckOutcome> {
  const { argv, options, expected } = commandOf(subject, context);
  const [binary, ...args] = argv;
  const result = await runCommand(binary!, args, options);
  const printed = result.stdout.trim();
  if (result.code === 0 && printed === expected) return { status: "ok" };
  const why = result.timedOut
    ? "timed out"
    : result.code !== 0
      ? `exit code ${result.code ?? result.signal}: ${tail(result.stderr, 5)}`
      : `printed ${JSON.stringify(printed.slice(0, 200))}, expected ${JSON.stringify(expected)}`;
  return { status: "failed", error: why, details: { stdout: tail(result.stdout), stderr: tail(result.stderr) } };
}

/**
 * What one execution of a scenario costs on average, with hyperfine's and GNU time's own work, the
 * checks and the scenarios' preparation: the default run of 2026-11-26 10:49 on the quiet machine
 * (docs/measurements.json "default-run", load 0.96 to 1.81) spent 32 s on startup, by its summary,
 * for 12 cells of 50 executions and `hello`'s counting (3 cells of 19.4): 658 executions, 0.049 s
 * each. The history's results in data/reference-x64-2vcpu record no suite's time, only each start's:
 * 2,640 timed starts of Bun 1.1.0 to 1.4.5 took 31 ms on average (`hello` 8 ms, `npm-package` 84 ms),
 * the floor under this figure. On a heavily loaded machine (load 12–25, docs/measurements.json
 * "plan-accuracy") an execution cost 0.6 s.
 */
const EXECUTION_S = 0.05;

/** Time from exec to exit of a whole program, by hyperfine; peak RSS from the kernel via GNU time. */
export const startupSuite = defineSuite<StartupConfig, StartupProfile>({
  name: "startup",
  metrics: {
    wall_ms: { unit: "ms", better: "lower" },
    peak_rss_mb: { unit: "MB", better: "lower" },
    /** User plus system CPU seconds of one start, the mean of a trial's runs. */
    cpu_s: { unit: "s", better: "lower" },
    ...STARTUP_COUNT_METRICS,
  },
  profiles: {
    quick: { trials: 3, warmup: 3, runs: 10, memory_runs: 3 },
    full: { trials: 10, warmup: 5, runs: 30, memory_runs: 10 },
  },
  tools: [HYPERFINE_TOOL, GNU_TIME_TOOL, STRACE_TOOL],
  // The starts every user pays; read-text sits on one documented change's path (docs/known-changes.md)
  // and is measured by `run` and the corpus's replay, keeping the release job within its 6 h.
  defaultRun: { scenarios: ["hello", "import-graph", "npm-package", "typescript"] },

  estimate(scenario, _runtime, _options, keeps) {
    // A scenario of one cell, at no load point: a filter of any parameter leaves it out.
    if (!keeps({})) return { cells: 0, seconds: 0 };
    const { trials, warmup, runs, memory_runs } = scenario.profileParams;
    // Checked once before and once after its trials; counted between.
    const countingSeconds = countedIn(scenario) ? countExecutions(trials) * EXECUTION_S : 0;
    return { cells: 1, seconds: (trials * (warmup + runs + memory_runs) + 2) * EXECUTION_S + countingSeconds, countingSeconds };
  },

  reproduction(scenario, doc) {
    const { warmup, runs } = scenario.profileParams;
    return {
      kind: "process",
      folders: [scenario.dir],
      appDir: scenario.dir,
      entry: scenario.config.entry,
      flags: scenario.manifest.runtimes[doc.runtime.name]?.flags ?? [],
      ...(scenario.manifest.prepare ? { prepare: scenario.manifest.prepare } : {}),
      expectStdout: scenario.config.expect_stdout.trim(),
      timing: { tool: "hyperfine", warmup, runs, metric: "wall_ms", unit: "ms" },
    };
  },

  start(context) {
    return {
      subjects(scenario, runtime) {
        const flags = scenario.manifest.runtimes[runtime.identity.name]?.flags ?? [];
        return [{ scenario: countedScenario(sizedScenario(scenario), STARTUP_COUNT_METRICS, countedIn(scenario)), runtime, app: null, params: {}, flags }];
      },

      check: (subject) => check(subject, context),

      async trial(subject, trialIndex) {
        const profile = subject.scenario.profileParams;
        const { argv, options } = commandOf(subject, context);
        const timed = await runHyperfine({
          argv,
          cwd: options.cwd,
          env: options.env,
          warmup: profile.warmup,
          runs: profile.runs,
          exportDir: context.workDir,
          name: `${subject.scenario.name}-${subject.runtime.identity.name}-${subject.runtime.identity.version}-${trialIndex}`,
        });
        if (!timed.ok) throw new TrialFailure(timed.error);
        const rss: number[] = [];
        // The untimed memory runs also count instructions, where perf can.
        const instructions: Counted[] = [];
        for (let i = 0; i < profile.memory_runs; i++) {
          const counted = await withInstructions(argv, context.workDir, (memoryArgv) => measurePeakRss(memoryArgv, options, context.workDir));
          const measured = counted.result;
          if (measured.code !== 0) throw new TrialFailure(`memory run exited with ${measured.code}: ${measured.stderr}`);
          rss.push(measured.peakRssMb);
          instructions.push(counted.instructions);
        }
        return { samples: { wall_ms: timed.wallMs, peak_rss_mb: rss, cpu_s: [timed.cpuS] }, details: instructionsDetails(instructions, trialIndex) };
      },

      count: (subject) => countStarts(subject.runtime, subject.scenario, commandOf(subject, context), context.workDir),

      recheck: (subject) => check(subject, context),
    };
  },
});
