import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import { REPO_ROOT } from "../core/paths.ts";
import type { Arch } from "../runtimes/catalog.ts";
import { checkAgainst } from "../core/schema.ts";
import { displayPath, readJsonFile } from "../core/json-file.ts";

/** A dedicated self-hosted machine whose results are published. */
export interface BenchRunner {
  readonly name: string;
  readonly arch: Arch;
  /** The runs-on label set that reaches this machine and no other: it includes the machine's name. */
  readonly labels: readonly string[];
  /** The pool of identical machines it belongs to; without one, the machine runs every suite. */
  readonly pool?: string;
  /** Suites (`http`) or scenarios (`http/crud`) this pool member is declared to run (src/releases/pools.ts gives it the rest of its share). */
  readonly suites?: readonly string[];
  /** Its environment fingerprint (src/env/fingerprint.ts): collect publishes only results that carry it. */
  readonly fingerprint?: string;
}

/** `.github/bench-runners.json`: the machines, and how many release lines a backfill covers. */
export interface BenchConfig {
  readonly runners: BenchRunner[];
  /** A merged scenario is measured over the newest release of each of this many release lines. */
  readonly backfillLines: number;
}

/** One list of runners, read by benchmark.yml's plan job and by the release watch alike. */
export const BENCH_RUNNERS_FILE = join(REPO_ROOT, ".github", "bench-runners.json");

export function loadBenchConfig(file = BENCH_RUNNERS_FILE): BenchConfig {
  const config = readJsonFile(file);
  const problems = checkAgainst("bench-runners.schema.json", config);
  if (problems.length > 0) throw new UserError(`${displayPath(file)}: ${problems.join("; ")}`);
  const { runners, backfill_lines: backfillLines } = config as { runners: BenchRunner[]; backfill_lines: number };
  const fail = (problem: string): never => {
    throw new UserError(`${displayPath(file)}: ${problem}`);
  };
  const names = runners.map((r) => r.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) fail(`runner '${repeated}' is listed twice`);
  // A label of its own name, on no other machine: a second machine with the same generic labels
  // can then never take a job meant for this one.
  for (const runner of runners) {
    if (!runner.labels.includes(runner.name)) fail(`runner '${runner.name}' needs its own name among its labels`);
    const other = runners.find((r) => r !== runner && r.labels.includes(runner.name));
    if (other) fail(`runner '${other.name}' carries the label '${runner.name}', which selects that other machine`);
  }
  // A pool's members are interchangeable only if they are the same kind of machine.
  for (const runner of runners) {
    if (runner.pool === undefined) continue;
    if (names.includes(runner.pool)) fail(`pool '${runner.pool}' has the name of a runner`);
    const first = runners.find((r) => r.pool === runner.pool)!;
    if (first.arch !== runner.arch) fail(`pool '${runner.pool}' mixes ${first.arch} (${first.name}) and ${runner.arch} (${runner.name})`);
    const twice = runner.suites?.find((suite) => runners.some((r) => r !== runner && r.pool === runner.pool && r.suites?.includes(suite)));
    if (twice !== undefined) fail(`'${twice}' is listed by more than one member of pool '${runner.pool}'`);
  }
  return { runners, backfillLines };
}

export function loadBenchRunners(file = BENCH_RUNNERS_FILE): BenchRunner[] {
  return loadBenchConfig(file).runners;
}

/** The runners asked for by name, in the order given; all of them when none are named. */
export function chooseRunners(all: readonly BenchRunner[], names: readonly string[]): BenchRunner[] {
  if (names.length === 0) return [...all];
  return names.map((name) => {
    const runner = all.find((r) => r.name === name);
    if (!runner) throw new UserError(`unknown runner '${name}': runners are ${all.map((r) => r.name).join(", ")} (.github/bench-runners.json)`);
    return runner;
  });
}
