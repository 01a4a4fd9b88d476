import semver from "semver";
import { UserError } from "../core/errors.ts";
import type { Arch, RuntimeName } from "../runtimes/catalog.ts";
import type { RunnerWork } from "./pools.ts";
import type { PlannedBenchmark } from "./select.ts";

/** GitHub Actions refuses a matrix of more jobs than this. */
export const MAX_MATRIX_JOBS = 256;

/** Everything one benchmark job needs, so benchmark.yml reads nothing else to run it. */
export interface MatrixEntry {
  readonly runtime: RuntimeName;
  readonly version: string;
  /** Name of the dedicated machine: RUNTIME_BENCH_RUNNER, and its folder in data/. */
  readonly runner: string;
  readonly arch: Arch;
  /** runs-on labels that reach that machine. */
  readonly labels: readonly string[];
  /** What the job runs, space separated: the runner's suites (its share, for a pool member) narrowed to the request. */
  readonly suites: string;
  /** The requested scenarios (`suite/name`) of those suites; empty: every scenario of them. */
  readonly scenarios: string;
  /** Apps to narrow to (`--app`); empty: every app. */
  readonly apps: string;
  /**
   * `release`: `version` is a published release. `canary`: `version` is what the runtime's setup
   * action takes for its newest nightly or canary build (`canaryBuild`), and `predecessor` is the
   * newest release it is measured against.
   */
  readonly channel: Channel;
  /** The release measured beside `version` in the same run, on the same machine, as its baseline; empty: none. */
  readonly predecessor: string;
}

export type Channel = "release" | "canary";

/**
 * The setup action's input for a runtime's newest pre-release build: setup-deno and setup-bun take
 * `canary`; setup-node takes `<major>-nightly`, and Node's nightlies are built from its main
 * branch, which carries the major after the newest release's.
 */
export function canaryBuild(runtime: RuntimeName, newestRelease: string): string {
  return runtime === "node" ? `${semver.major(newestRelease) + 1}-nightly` : "canary";
}

/** The object `strategy.matrix` takes through `fromJSON`. */
export interface GithubMatrix {
  readonly include: readonly MatrixEntry[];
}

function checkMatrixLimit(planned: readonly PlannedBenchmark[]): void {
  if (planned.length > MAX_MATRIX_JOBS) {
    throw new UserError(
      `${planned.length} benchmark jobs exceed GitHub's matrix limit of ${MAX_MATRIX_JOBS}: narrow the window (--lines, --since) or the runtimes`,
    );
  }
}

/** What one job runs: its runner's work, or only the scenarios it was narrowed to (src/releases/cells.ts). */
function jobWork(p: PlannedBenchmark, work: ReadonlyMap<string, RunnerWork>): RunnerWork {
  const whole = work.get(p.runner.name)!;
  if (!p.scenarios) return whole;
  return { ...whole, suites: [...new Set(p.scenarios.map((scenario) => scenario.split("/")[0]!))], scenarios: p.scenarios, covers: p.scenarios };
}

/**
 * `work` holds each planned runner's work (src/releases/pools.ts planWork). On the canary channel
 * each planned release becomes the baseline of its runtime's canary build.
 */
export function toMatrix(planned: readonly PlannedBenchmark[], work: ReadonlyMap<string, RunnerWork>, channel: Channel = "release"): GithubMatrix {
  checkMatrixLimit(planned);
  return {
    include: planned.map((p) => {
      const { suites, scenarios, apps } = jobWork(p, work);
      const canary = channel === "canary";
      return {
        runtime: p.runtime,
        version: canary ? canaryBuild(p.runtime, p.version) : p.version,
        runner: p.runner.name,
        arch: p.runner.arch,
        labels: p.runner.labels,
        suites: suites.join(" "),
        scenarios: scenarios.join(" "),
        apps: apps.join(" "),
        channel,
        predecessor: canary ? p.version : (p.predecessor ?? ""),
      };
    }),
  };
}

/** The inputs of one benchmark.yml call: its name, space-separated runner names and runtime specs. */
export interface BenchmarkCall {
  /** Unique among the calls of one watch: names the call's artifacts and cache keys. */
  readonly call: string;
  readonly runners: string;
  readonly runtimes: string;
}

/**
 * The benchmark.yml calls that run exactly the planned jobs, with its `missing-only` input: one
 * call per set of runners, holding the versions that exactly those runners lack. (One call for all
 * versions and runners would also run a version on a runner that already has it, or whose
 * architecture got it later.)
 */
export function toBenchmarkCalls(planned: readonly PlannedBenchmark[]): { readonly include: readonly BenchmarkCall[] } {
  checkMatrixLimit(planned);
  const runnersOfSpec = new Map<string, string[]>();
  for (const p of planned) {
    const spec = `${p.runtime}@${p.version}`;
    runnersOfSpec.set(spec, [...(runnersOfSpec.get(spec) ?? []), p.runner.name]);
  }
  const specsOfRunners = new Map<string, string[]>();
  for (const [spec, runners] of runnersOfSpec) {
    const key = runners.join(" ");
    specsOfRunners.set(key, [...(specsOfRunners.get(key) ?? []), spec]);
  }
  return { include: [...specsOfRunners].map(([runners, specs], index) => ({ call: `call-${index}`, runners, runtimes: specs.join(" ") })) };
}

/** `published` as a day, the predecessor measured beside it, and what the job runs (its scenarios, else its suites), for the table a person reads. */
export function plannedRows(planned: readonly PlannedBenchmark[], work: ReadonlyMap<string, RunnerWork>): string[][] {
  return planned.map((p) => {
    const { suites, scenarios } = jobWork(p, work);
    return [p.runtime, p.version, p.published.toISOString().slice(0, 10), p.predecessor ?? "", p.runner.name, p.runner.labels.join(","), (scenarios.length > 0 ? scenarios : suites).join(" ")];
  });
}
