import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SCHEMAS_DIR } from "../core/paths.ts";
import { runCommand, tail } from "../process/children.ts";
import { gnuTimeVersion, measurePeakRss } from "../tools/gnu-time.ts";
import { hyperfineVersion, runHyperfine } from "../tools/hyperfine.ts";
import { runtimeEnv, scriptArgv } from "./command.ts";
import { TrialFailure, type CheckOutcome, type RunContext, type Subject, type SuiteRunner } from "./types.ts";

interface StartupConfig {
  entry: string;
  expect_stdout: string;
}

interface StartupProfile {
  trials: number;
  warmup: number;
  runs: number;
  memory_runs: number;
}

const schemaFile = JSON.parse(readFileSync(join(SCHEMAS_DIR, "suites/startup.schema.json"), "utf8")) as {
  $defs: { config: object; profile: object };
};

function commandOf(subject: Subject, context: RunContext) {
  const config = subject.scenario.suiteConfig as StartupConfig;
  return {
    argv: scriptArgv(subject, config.entry),
    options: { cwd: subject.scenario.dir, env: runtimeEnv(subject, context.workDir), timeoutMs: 120_000 },
    expected: config.expect_stdout.trim(),
  };
}

/** Time from exec to exit of a whole program, by hyperfine; peak RSS from the kernel via GNU time. */
export const startupRunner: SuiteRunner = {
  suite: "startup",
  schemas: { config: schemaFile.$defs.config, profile: schemaFile.$defs.profile },

  async toolVersions() {
    return { hyperfine: await hyperfineVersion(), "gnu-time": await gnuTimeVersion() };
  },

  subjects(scenario, runtime) {
    const flags = scenario.manifest.runtimes[runtime.identity.name]?.flags ?? [];
    return [{ scenario, runtime, app: null, params: {}, flags }];
  },

  async check(subject, context): Promise<CheckOutcome> {
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
  },

  async trial(subject, context, trialIndex) {
    const profile = context.profileParams as unknown as StartupProfile;
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
    for (let i = 0; i < profile.memory_runs; i++) {
      const measured = await measurePeakRss(argv, options);
      if (measured.code !== 0) throw new TrialFailure(`memory run exited with ${measured.code}: ${measured.stderr}`);
      rss.push(measured.peakRssMb);
    }
    return { samples: { wall_ms: timed.wallMs, peak_rss_mb: rss } };
  },

  recheck(subject, context) {
    return this.check(subject, context);
  },
};
