/**
 * Synthetic paired runs: two releases of one runtime measured beside each other, trial by trial,
 * as a sweep's link or the release job writes them, with a true level per release. What the machine
 * does in a trial's minute falls on both releases alike (the shared factor); each side adds a little
 * noise of its own, so the paired verdicts are sharp and a planted step is plain.
 */
import type { Profile, ResultDocument } from "../../src/results/types.ts";
import { seededRandom } from "../../src/stats/random.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

export interface Machine {
  readonly runner: string;
  readonly kind: "reference" | "dedicated";
  readonly cpu: string;
  readonly fingerprint: string;
}

export const TESTBED_AMD: Machine = { runner: "reference-x64", kind: "reference", cpu: "AMD EPYC", fingerprint: "aaaaaaaaaaaaaaaa" };
export const TESTBED_INTEL: Machine = { runner: "reference-x64", kind: "reference", cpu: "Intel(R) Xeon(R) Processor", fingerprint: "bbbbbbbbbbbbbbbb" };

export interface LinkRun {
  readonly machine: Machine;
  /** Distinguishes runs: gives the run id and its start (a day apiece). */
  readonly index: number;
  readonly from: string;
  readonly to: string;
  /** The true level (ms) of a release on this machine. */
  readonly level: (version: string) => number;
  readonly scenario?: string;
  /** The app measured (default none: a scenario without apps). */
  readonly app?: string;
  /** The load point's parameters: another cell of the scenario (default none). */
  readonly params?: ResultDocument["params"];
  readonly trials?: number;
  /** The run's profile (default quick). */
  readonly profile?: Profile;
  /** Each side's own relative noise per trial. */
  readonly noise?: number;
  /** The scenario's version the run measured (default: this checkout's). */
  readonly scenarioVersion?: number;
}

const SAMPLES_PER_TRIAL = 3;

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** The two results of one paired run of `from` and `to`. */
export function linkRun(run: LinkRun): ResultDocument[] {
  const { machine, index, from, to } = run;
  const trials = run.trials ?? 10;
  const noise = run.noise ?? 0.002;
  const random = seededRandom(1000 + index);
  const minutes = Array.from({ length: trials }, () => Math.exp(0.05 * gaussian(random)));
  const startedAt = new Date(Date.UTC(2026, 0, 1) + index * 86_400_000).toISOString();
  const id = `${startedAt.slice(0, 10).replace(/-/g, "")}T000000Z-${index.toString(16).padStart(6, "0")}`;
  return [from, to].map((version) => {
    const samples = minutes.flatMap((minute) => {
      const trial = run.level(version) * minute * Math.exp(noise * gaussian(random));
      return Array.from({ length: SAMPLES_PER_TRIAL }, () => trial * Math.exp((noise / 2) * gaussian(random)));
    });
    return makeResult({
      run: { id, started_at: startedAt, runner: machine.runner, runner_kind: machine.kind, trials, profile: run.profile ?? "quick" },
      environment: { cpu_model: machine.cpu, fingerprint: machine.fingerprint },
      runtime: { version, spec: `node@${version}` },
      scenario: run.scenario ?? "hello",
      ...(run.app !== undefined ? { app: run.app } : {}),
      ...(run.params !== undefined ? { params: run.params } : {}),
      ...(run.scenarioVersion !== undefined ? { scenario_version: run.scenarioVersion } : {}),
      metrics: { wall_ms: { ...metricOf(samples), trial_samples: Array.from({ length: trials }, () => SAMPLES_PER_TRIAL) } },
      reproduce: `scripts/bench run --scenario startup/${run.scenario ?? "hello"} --runtime node@${from} --runtime node@${to}`,
    });
  });
}

/** A level with a step: `base` before `at`, `base × factor` from it on (semver order of node 22.x.0 minors). */
export function steppedLevel(base: number, at: string, factor: number): (version: string) => number {
  const minor = (version: string) => Number(version.split(".")[1]);
  return (version) => (minor(version) >= minor(at) ? base * factor : base);
}
