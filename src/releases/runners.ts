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
}

/** One list of runners, read by benchmark.yml's plan job and by the release watch alike. */
export const BENCH_RUNNERS_FILE = join(REPO_ROOT, ".github", "bench-runners.json");

export function loadBenchRunners(file = BENCH_RUNNERS_FILE): BenchRunner[] {
  const config = readJsonFile(file);
  const problems = checkAgainst("bench-runners.schema.json", config);
  if (problems.length > 0) throw new UserError(`${displayPath(file)}: ${problems.join("; ")}`);
  const runners = (config as { runners: BenchRunner[] }).runners;
  const names = runners.map((r) => r.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw new UserError(`${displayPath(file)}: runner '${repeated}' is listed twice`);
  // A label of its own name, on no other machine: a second machine with the same generic labels
  // can then never take a job meant for this one.
  for (const runner of runners) {
    if (!runner.labels.includes(runner.name)) throw new UserError(`${displayPath(file)}: runner '${runner.name}' needs its own name among its labels`);
    const other = runners.find((r) => r !== runner && r.labels.includes(runner.name));
    if (other) throw new UserError(`${displayPath(file)}: runner '${other.name}' carries the label '${runner.name}', which selects that other machine`);
  }
  return runners;
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
