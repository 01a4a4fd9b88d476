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

/**
 * A reference testbed: a machine of the kind this project's developers and CI have (a shared cloud
 * VM), declared as what it is. No workflow job reaches it; `scripts/bench sweep` measures there, and
 * its results say `runner_kind: reference`.
 */
export interface ReferenceTestbed {
  readonly name: string;
  readonly kind: "reference";
  readonly arch: Arch;
  /** CPU families it may report (a VM's host changes, and its fingerprint with it): see `cpuModelMatches`. */
  readonly cpu_models: readonly string[];
  /** What it is and how to read its figures, shown wherever they appear. */
  readonly description: string;
}

/** A machine whose results collect may publish: a dedicated runner or a reference testbed. */
export type BenchMachine = BenchRunner | ReferenceTestbed;

export function isTestbed(machine: BenchMachine): machine is ReferenceTestbed {
  return "kind" in machine && machine.kind === "reference";
}

/** The (R) and (TM) marks and repeated spaces, which vendors and kernels write differently. */
const normalizedModel = (model: string) => model.replace(/\((R|TM)\)/gi, " ").replace(/\s+/g, " ").trim().toLowerCase();

/** Whether a CPU model is of one of the families: it starts with one, ignoring case and the (R) and (TM) marks. */
export function cpuModelMatches(model: string, families: readonly string[]): boolean {
  const normalized = normalizedModel(model);
  return families.some((family) => {
    const prefix = normalizedModel(family);
    return normalized === prefix || normalized.startsWith(`${prefix} `);
  });
}

/** `.github/bench-runners.json`: the machines, and how many release lines a backfill covers. */
export interface BenchConfig {
  /** The dedicated runners, which the workflows' jobs run on. */
  readonly runners: BenchRunner[];
  readonly testbeds: ReferenceTestbed[];
  /** A merged scenario is measured over the newest release of each of this many release lines. */
  readonly backfillLines: number;
}

/** One list of runners, read by benchmark.yml's plan job and by the release watch alike. */
export const BENCH_RUNNERS_FILE = join(REPO_ROOT, ".github", "bench-runners.json");

export function loadBenchConfig(file = BENCH_RUNNERS_FILE): BenchConfig {
  const config = readJsonFile(file);
  const problems = checkAgainst("bench-runners.schema.json", config);
  if (problems.length > 0) throw new UserError(`${displayPath(file)}: ${problems.join("; ")}`);
  const { runners, testbeds = [], backfill_lines: backfillLines } = config as { runners: BenchRunner[]; testbeds?: ReferenceTestbed[]; backfill_lines: number };
  const fail = (problem: string): never => {
    throw new UserError(`${displayPath(file)}: ${problem}`);
  };
  const names = runners.map((r) => r.name);
  const repeated = [...names, ...testbeds.map((t) => t.name)].find((name, i, all) => all.indexOf(name) !== i);
  if (repeated !== undefined) fail(`runner '${repeated}' is listed twice (runners and testbeds share one set of names: each is a folder of data/)`);
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
  return { runners, testbeds, backfillLines };
}

export function loadBenchRunners(file = BENCH_RUNNERS_FILE): BenchRunner[] {
  return loadBenchConfig(file).runners;
}

/** Every machine whose results collect may publish: the dedicated runners, then the reference testbeds. */
export function loadBenchMachines(file = BENCH_RUNNERS_FILE): BenchMachine[] {
  const { runners, testbeds } = loadBenchConfig(file);
  return [...runners, ...testbeds];
}

/** The reference testbed named, or the only one declared; a UserError naming the choices otherwise. */
export function chooseTestbed(testbeds: readonly ReferenceTestbed[], name: string | undefined): ReferenceTestbed {
  const names = testbeds.map((t) => t.name).join(", ") || "none";
  if (name === undefined) {
    if (testbeds.length === 1) return testbeds[0]!;
    throw new UserError(`name a reference testbed with --testbed: .github/bench-runners.json declares ${names}`);
  }
  const testbed = testbeds.find((t) => t.name === name);
  if (!testbed) throw new UserError(`unknown reference testbed '${name}': .github/bench-runners.json declares ${names}`);
  return testbed;
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
