import { resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { readEnvironment } from "../../env/fingerprint.ts";
import { executeRun, type RunOutcome } from "../../orchestrate/execute.ts";
import { newRunInfo } from "../../orchestrate/run-info.ts";
import type { Profile } from "../../results/types.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { Progress } from "../../ui/progress.ts";
import { summaryTable } from "../../ui/summary.ts";
import { defineCommand } from "../command.ts";
import { DEFAULT_RUNTIMES, prepareRuntimes } from "../runtimes.ts";
import { sentinelDriftWarning } from "./regressions.ts";

export interface RunRequest {
  suites: string[];
  scenarios: string[];
  runtimes: string[];
  sentinel: string | null;
  profile: Profile;
  outDir: string;
  /** Apps to measure in suites that have apps (HTTP); all when empty or absent. */
  apps?: string[];
}

export function parseProfile(value: string | undefined): Profile {
  if (value === undefined || value === "quick" || value === "full") return value ?? "quick";
  throw new UserError(`unknown profile '${value}': use quick or full`);
}

/** Provision, measure, write, summarise: shared by `run` and the default command. */
export async function runBenchmarks(request: RunRequest): Promise<RunOutcome> {
  const progress = new Progress();
  const scenarios = selectScenarios({ suites: request.suites, scenarios: request.scenarios });
  const apps = request.apps ?? [];
  const known = [...new Set(scenarios.flatMap((s) => s.runner.listApps?.().map((app) => app.name) ?? []))];
  const unknown = apps.find((app) => !known.includes(app));
  if (unknown !== undefined) throw new UserError(`unknown app '${unknown}': the chosen suites have apps ${known.join(", ") || "(none)"}`);
  const specs = [...request.runtimes, ...(request.sentinel ? [request.sentinel] : [])];
  const runtimes = await prepareRuntimes(specs, (line) => progress.log(line));
  const outcome = await executeRun(
    {
      scenarios,
      runtimes,
      profile: request.profile,
      outDir: request.outDir,
      run: await newRunInfo(request.profile, request.sentinel),
      environment: readEnvironment(),
      apps,
    },
    progress,
  );
  const docs = outcome.results.map((r) => r.doc);
  process.stdout.write(`\n${summaryTable(docs)}\n\n`);
  const first = outcome.results[0]?.path;
  if (first) process.stdout.write(`${outcome.results.length} results written below ${resolve(request.outDir, docs[0]!.run.runner, docs[0]!.run.id)}\n`);
  const drift = request.sentinel ? sentinelDriftWarning(request.outDir, docs) : null;
  if (drift) process.stderr.write(`${drift}\n`);
  return outcome;
}

export function exitCodeOf(outcome: RunOutcome): number {
  const failed = outcome.results.filter((r) => r.doc.status === "failed");
  if (failed.length > 0) process.stderr.write(`runtime-bench: ${failed.length} result(s) failed; their reasons are in the table above and in the files\n`);
  return failed.length > 0 ? 1 : 0;
}

export const runCommand = defineCommand({
  name: "run",
  summary: "Measure scenarios on runtimes (provisioning them first) and write one result file per cell.",
  usage: "run [--suite S]... [--scenario X]... [--app A]... [--runtime SPEC]... [--profile quick|full] [--out DIR] [--sentinel SPEC]",
  help: [
    "  --suite S         a suite to run (repeatable); default: every suite",
    "  --scenario X      a scenario, as NAME or SUITE/NAME (repeatable); default: every scenario of the suites",
    "  --app A           an app of a suite that has apps, e.g. http's native (repeatable); default: every app",
    `  --runtime SPEC    node@22.11.0, deno@2.1, bun@latest or NAME@path:/abs/bin (repeatable); default: ${DEFAULT_RUNTIMES.join(" ")}`,
    "  --profile P       quick (default) or full: trials, runs and load levels come from each scenario's manifest",
    "  --out DIR         where results go (default: data/)",
    "  --sentinel SPEC   a pinned reference runtime measured alongside, to detect drift of the machine",
    "",
    "Exit status: 0 when every result is ok or unsupported, 1 when one failed, 2 on bad input, 130 on Ctrl-C.",
  ],
  options: {
    suite: { type: "string", multiple: true },
    scenario: { type: "string", multiple: true },
    app: { type: "string", multiple: true },
    runtime: { type: "string", multiple: true },
    profile: { type: "string" },
    out: { type: "string" },
    sentinel: { type: "string" },
  },
  async run(values) {
    const outcome = await runBenchmarks({
      suites: values.suite ?? [],
      scenarios: values.scenario ?? [],
      apps: values.app ?? [],
      runtimes: values.runtime ?? [...DEFAULT_RUNTIMES],
      sentinel: values.sentinel ?? null,
      profile: parseProfile(values.profile),
      outDir: resolve(values.out ?? DEFAULT_DATA_DIR),
    });
    return exitCodeOf(outcome);
  },
});
