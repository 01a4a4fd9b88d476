/**
 * Warming a server up until it is steady, shared by the server suites (http, websocket): load in
 * short windows, each its own run of the load generator, until successive windows agree (the
 * rule of apps/inprocess/steady.js, which the suite hands in), or until a cap, after which the
 * server is measured anyway and its result says it never became steady. A fresh server's first
 * seconds measure how fast its JIT tiers up (V8's takes seconds, JavaScriptCore's far less) as
 * much as how fast it serves; what the warm-up saw is kept as figures of their own.
 */

/** How a profile warms a server up (each suite's `warmup_*` profile parameters). */
export interface WarmUpRule {
  /** Seconds of load per window. */
  readonly windowS: number;
  /** Windows per block: steady when the last block agrees within itself and with the block before. */
  readonly block: number;
  /** How far the windows may differ and still be steady (0.05: 5 %). */
  readonly tolerance: number;
  /** Seconds of load after which the server is measured anyway, as never steady. */
  readonly maxS: number;
}

/** The rule of apps/inprocess/steady.js. */
export type SteadinessTest = (values: readonly number[], block: number, tolerance: number) => boolean;

/** One window of load: how long it ran and how much work came back right (requests, messages). */
export interface LoadWindow {
  readonly seconds: number;
  readonly count: number;
}

export interface WarmUp {
  readonly windows: readonly LoadWindow[];
  readonly steady: boolean;
  /** Seconds of load in all. */
  readonly seconds: number;
}

const rateOf = (window: LoadWindow) => window.count / window.seconds;

/** Runs windows of load until the rule calls their rates steady or the cap is reached. */
export async function warmUntilSteady(rule: WarmUpRule, isSteady: SteadinessTest, runWindow: () => Promise<LoadWindow>): Promise<WarmUp> {
  const windows: LoadWindow[] = [];
  let seconds = 0;
  while (seconds < rule.maxS) {
    const window = await runWindow();
    windows.push(window);
    seconds += window.seconds;
    if (isSteady(windows.map(rateOf), rule.block, rule.tolerance)) return { windows, steady: true, seconds };
  }
  return { windows, steady: false, seconds };
}

/** What a warm-up says of how fast the server reached its speed. */
export interface WarmUpFigures {
  /** The mean rate of the last block of windows: the level the server settled at (or had reached at the cap). */
  readonly level: number;
  /** Seconds of load until the end of the first window at 90 % of that level or above. */
  readonly reach90S: number;
  /** Work done (requests, messages) until then. */
  readonly reach90Count: number;
  /** The rate over the windows of the first second of load. */
  readonly firstSecondRate: number;
}

/**
 * The warm-up's figures. Some window always reaches 90 % of the last block's mean (the block's
 * largest is at least its mean), so each is defined for every warm-up, steady or not; their
 * resolution is the window's length.
 */
export function warmUpFigures(warm: WarmUp, block: number): WarmUpFigures {
  const rates = warm.windows.map(rateOf);
  const last = rates.slice(-block);
  const level = last.reduce((sum, rate) => sum + rate, 0) / last.length;
  const reached = rates.findIndex((rate) => rate >= 0.9 * level);
  const upTo = warm.windows.slice(0, reached + 1);
  const sum = (windows: readonly LoadWindow[], key: keyof LoadWindow) => windows.reduce((total, w) => total + w[key], 0);
  // The windows that began within the first second of load.
  const first: LoadWindow[] = [];
  for (const window of warm.windows) {
    if (sum(first, "seconds") >= 1) break;
    first.push(window);
  }
  return {
    level,
    reach90S: sum(upTo, "seconds"),
    reach90Count: sum(upTo, "count"),
    firstSecondRate: sum(first, "count") / sum(first, "seconds"),
  };
}

/** A profile's warm-up parameters, as the server suites' schemas name them. */
export interface WarmUpProfile {
  readonly warmup_window_s: number;
  readonly warmup_block: number;
  readonly warmup_tolerance: number;
  readonly warmup_max_s: number;
}

export function warmUpRule(profile: WarmUpProfile): WarmUpRule {
  return { windowS: profile.warmup_window_s, block: profile.warmup_block, tolerance: profile.warmup_tolerance, maxS: profile.warmup_max_s };
}

/**
 * The smoke profile's warm-up: one window, then the server is measured as never steady. Smoke asks
 * only whether a server serves (docs/arm64-smoke.md); under qemu-user none becomes steady, and
 * each would wait out the quick profile's cap.
 */
export function smokeWarmUp<P extends Readonly<Record<string, unknown>>>(params: P): P {
  return typeof params.warmup_window_s === "number" ? { ...params, warmup_max_s: params.warmup_window_s } : params;
}

/**
 * What `plan` counts for a warm-up: the two blocks the rule needs at least, and one window more,
 * within the cap (what it took on this project's 2-core machine: docs/measurements.json,
 * "steady-state"); the cap is what it can cost at most.
 */
export function expectedWarmUpS(profile: WarmUpProfile): number {
  return Math.min((2 * profile.warmup_block + 1) * profile.warmup_window_s, profile.warmup_max_s);
}

/** Trials whose server never became steady, per subject: each logged when it happens, and counted in the subject's result. */
export class UnsteadyTrials<S> {
  private readonly counts = new Map<S, number>();

  constructor(private readonly log: (line: string) => void) {}

  /** After a trial: `what` names the cell and trial for the log line. */
  note(subject: S, steady: boolean, what: string, maxS: number): void {
    if (steady) return;
    this.counts.set(subject, this.count(subject) + 1);
    this.log(`${what}: never steady within ${maxS} s of warm-up, measured anyway`);
  }

  count(subject: S): number {
    return this.counts.get(subject) ?? 0;
  }
}
