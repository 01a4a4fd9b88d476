import type { ChildProcess } from "node:child_process";
import { wholeSecondsSetting } from "../core/settings.ts";
import { paramsSlug, type ParamValue } from "../core/params.ts";
import { collectChildren, killGroup } from "../process/children.ts";
import type { IdentifiedRuntime } from "../runtimes/identify.ts";
import type { ResolvedScenario } from "../suites/resolve.ts";
import { TrialFailure, trialsSeconds } from "../suites/suite.ts";
import { groupStates, type ProcessState } from "../tools/proc-stats.ts";

/**
 * How long one trial may run before it counts as hung: a generous multiple of what the cell's own
 * check took on this machine (which carries the machine's load), or of the suite's estimate of a
 * trial where the check runs less than a trial does, and never under a floor (a check that only
 * installs the app takes next to nothing).
 */
export const TRIAL_TIMEOUT_FACTOR = 20;
export const TRIAL_TIMEOUT_FLOOR_S = 60;

/**
 * The floor a user set in RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR (whole seconds), else 60 s: a lower one
 * finds a hang sooner where trials are known to be short (the tests' fixtures), at the risk of
 * calling a slow trial hung.
 */
export function trialTimeoutFloor(env: NodeJS.ProcessEnv = process.env): number {
  return wholeSecondsSetting(env, "RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR", TRIAL_TIMEOUT_FLOOR_S, 1, "use e.g. 60");
}

export interface TrialTimeout {
  readonly seconds: number;
  /** How it was derived, for the failure that reports a hang. */
  readonly basis: string;
}

export function trialTimeout(checkS: number, estimatedTrialS: number | null, floorS = TRIAL_TIMEOUT_FLOOR_S): TrialTimeout {
  const fromCheck = TRIAL_TIMEOUT_FACTOR * checkS;
  const fromEstimate = TRIAL_TIMEOUT_FACTOR * (estimatedTrialS ?? 0);
  const seconds = Math.ceil(Math.max(floorS, fromCheck, fromEstimate));
  const basis =
    seconds === Math.ceil(fromCheck)
      ? `${TRIAL_TIMEOUT_FACTOR} × the check's ${checkS.toFixed(1)} s`
      : seconds === Math.ceil(fromEstimate)
        ? `${TRIAL_TIMEOUT_FACTOR} × the estimated ${estimatedTrialS!.toFixed(1)} s of a trial`
        : `the floor: its check took ${checkS.toFixed(1)} s`;
  return { seconds, basis };
}

/**
 * A cell's trial timeout from its check's duration and its suite's estimate of one trial at the
 * cell's load point (averaged over the apps there): a 1 MiB message's trial may take many times a
 * small one's, and the scenario's average would call it hung.
 */
export interface TimedCell {
  readonly selected: ResolvedScenario;
  readonly runtime: IdentifiedRuntime;
  /** The suite's parsed options, as its estimate takes them. */
  readonly options: unknown;
  readonly params: Readonly<Record<string, ParamValue>>;
}

export function cellTrialTimeout({ selected, runtime, options, params }: TimedCell, checkS: number, floorS: number): TrialTimeout {
  const slug = paramsSlug(params);
  const estimate = selected.suite.estimate?.(selected.scenario, runtime.identity.name, options as never, (other) => paramsSlug(other) === slug);
  const perTrial = estimate && estimate.cells > 0 ? trialsSeconds(estimate) / estimate.cells / selected.scenario.profileParams.trials : null;
  return trialTimeout(checkS, perTrial, floorS);
}

function describe(process: ProcessState): string {
  // The busiest threads say where a process spins: its main thread, a worker, the garbage collector.
  const busiest = [...process.threads].sort((a, b) => b.cpuS - a.cpuS).slice(0, 3);
  const threads = busiest.length > 0 ? ` (threads: ${busiest.map((t) => `${t.name} ${t.state} ${t.cpuS.toFixed(2)} s`).join(", ")})` : "";
  // A command's end names what runs (GNU time's own options come first).
  const command = process.command.length > 80 ? `…${process.command.slice(-79)}` : process.command;
  return `${command} (pid ${process.pid}) in state ${process.state}, ${process.cpuS.toFixed(2)} s CPU${threads}`;
}

/** How long a trial whose processes were killed may take to give up by itself. */
const SETTLE_MS = 10_000;

/**
 * Runs a trial under its timeout. Past it, what each process the trial started is doing (its state
 * and the CPU it used: a busy loop or a wait) is recorded, the processes are killed, and the trial
 * fails as hung whatever the suite makes of its killed processes.
 */
export async function withinTimeout<T>(timeout: TrialTimeout, trial: () => Promise<T>): Promise<T> {
  const children = new Set<ChildProcess>();
  const started = performance.now();
  const hang: { failure?: TrialFailure } = {};
  let giveUp: NodeJS.Timeout | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => {
      const running = [...children].filter((child) => child.pid !== undefined && child.exitCode === null && child.signalCode === null);
      const processes = running.flatMap((child) => groupStates(child.pid!));
      for (const child of running) killGroup(child);
      const failure = hangFailure(timeout, (performance.now() - started) / 1000, processes);
      hang.failure = failure;
      // The trial usually ends as soon as its processes die; one stuck elsewhere is left behind.
      giveUp = setTimeout(() => reject(failure), SETTLE_MS);
    }, timeout.seconds * 1000);
    giveUp = timer;
  });
  const settled = collectChildren(children, trial).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  try {
    const outcome = await Promise.race([settled, abandoned]);
    // Whatever the suite made of its killed processes, the trial hung.
    if (hang.failure) throw hang.failure;
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  } finally {
    clearTimeout(giveUp);
  }
}

function hangFailure(timeout: TrialTimeout, ranS: number, processes: readonly ProcessState[]): TrialFailure {
  const what = processes.length > 0 ? processes.map(describe).join("; ") : "no process of its own running";
  return new TrialFailure(`hung: ran ${ranS.toFixed(1)} s, past its ${timeout.seconds} s timeout (${timeout.basis}); ${what}`, {
    hung: {
      ran_s: Number(ranS.toFixed(1)),
      timeout_s: timeout.seconds,
      timeout_basis: timeout.basis,
      processes: processes.map((p) => ({ pid: p.pid, command: p.command, state: p.state, cpu_s: p.cpuS, threads: p.threads.map((t) => ({ name: t.name, state: t.state, cpu_s: t.cpuS })) })),
    },
  });
}
