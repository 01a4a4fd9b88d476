/**
 * Simulated series for the detection-power benchmark and its test: one run per runtime version,
 * each with the full profile's trials, judged by the harness's own `detectRegressions`.
 *
 * Noise model, for a relative standard deviation s: a run's level moves by s from one run to the
 * next (the machine of that hour), each trial's level by s within its run (the machine of that
 * minute), each sample by s within its trial. All three are log-normal. A step multiplies the level
 * of every version from `stepAt` on.
 */
import type { ResultDocument, SuiteProfile } from "../../src/results/types.ts";
import { TrialSchedule, UNLIMITED, type ScheduledCell } from "../../src/orchestrate/adaptive.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import type { Subject } from "../../src/suites/suite.ts";
import { seededRandom } from "../../src/stats/random.ts";
import { mean, median, stddev } from "../../src/stats/summary.ts";
import { httpSuite } from "../../src/suites/http/index.ts";
import { startupSuite } from "../../src/suites/startup/index.ts";
import { makeResult } from "./documents.ts";

/** How a suite's full profile lays out one metric's samples: trials, and samples per trial. */
export interface SeriesShape {
  readonly suite: string;
  readonly metric: string;
  readonly unit: string;
  readonly profile: SuiteProfile;
  readonly trials: number;
  readonly perTrial: number;
}

/** The full profiles of the suites with a series each: startup's wall time, HTTP's requests per second (one sample per trial). */
export const FULL_PROFILE_SHAPES: readonly SeriesShape[] = [
  { suite: "startup", metric: "wall_ms", unit: "ms", profile: "full", trials: startupSuite.profiles.full.trials, perTrial: startupSuite.profiles.full.runs },
  { suite: "http", metric: "latency_p50_ms", unit: "ms", profile: "full", trials: httpSuite.profiles.full.trials, perTrial: 1 },
];

/** The same series in the quick profile, which a history sweep measures each link in (docs/history.md). */
export const QUICK_PROFILE_SHAPES: readonly SeriesShape[] = [
  { suite: "startup", metric: "wall_ms", unit: "ms", profile: "quick", trials: startupSuite.profiles.quick.trials, perTrial: startupSuite.profiles.quick.runs },
  { suite: "http", metric: "latency_p50_ms", unit: "ms", profile: "quick", trials: httpSuite.profiles.quick.trials, perTrial: 1 },
];

/** Versions in a simulated series, and the first version of a step: enough history for a noise floor, and versions after to confirm. */
export const VERSIONS = 12;
export const STEP_AT = 8;

/** The start of the run of version `v`: one a day. */
const dayOf = (v: number) => new Date(Date.UTC(2026, 0, 1) + v * 86_400_000).toISOString();

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A metric's summary. Detection reads samples and medians only, so the samples' range stands in for the run's own interval: bootstrapping it would take most of the benchmark's time. */
function summaryOf(samples: number[], unit: string) {
  const [min, max] = [Math.min(...samples), Math.max(...samples)];
  return { unit, better: "lower" as const, samples, median: median(samples), mean: mean(samples), stddev: stddev(samples), min, max, ci95: [min, max] as [number, number] };
}

/** One series: VERSIONS runs of one runtime on one runner, a relative step from STEP_AT on (0: none). */
export function simulateSeries(shape: SeriesShape, relativeSd: number, step: number, seed: number): ResultDocument[] {
  const random = seededRandom(seed);
  const shift = () => Math.exp(relativeSd * gaussian(random));
  return Array.from({ length: VERSIONS }, (_, v) => {
    const level = 100 * (v >= STEP_AT ? 1 + step : 1) * shift();
    const samples = Array.from({ length: shape.trials }, () => {
      const trialLevel = level * shift();
      return Array.from({ length: shape.perTrial }, () => trialLevel * shift());
    }).flat();
    const startedAt = dayOf(v);
    return makeResult({
      run: { id: `${startedAt.slice(0, 10).replace(/-/g, "")}T000000Z-${v.toString(16).padStart(6, "0")}`, started_at: startedAt, trials: shape.trials, profile: "full" },
      runtime: { version: `22.${v}.0`, spec: `node@22.${v}.0` },
      suite: shape.suite,
      metrics: { [shape.metric]: summaryOf(samples, shape.unit) },
    });
  });
}

/**
 * The release job's paired design: version 0 measured alone, then each version v in one run with
 * v − 1, trial by trial, with the orchestrator's own adaptive schedule (the profile's trials as the
 * minimum). In a run, both subjects share the run's level (the machine of that hour) and each
 * round's level (the machine of that minute: the two trials of a round run seconds apart); on top,
 * each subject's trial moves by s / 2 on its own (what differs between two processes started
 * seconds apart), and each sample by s.
 */
export function simulatePairedSeries(shape: SeriesShape, relativeSd: number, step: number, seed: number): ResultDocument[] {
  const random = seededRandom(seed);
  const shift = (sd = relativeSd) => Math.exp(sd * gaussian(random));
  const levelOf = (v: number) => 100 * (v >= STEP_AT ? 1 + step : 1);
  const subject = { runtime: { identity: { name: "node" } }, app: null, params: {} } as unknown as Subject;
  return Array.from({ length: VERSIONS }, (_, v) => {
    const versions = v === 0 ? [0] : [v - 1, v];
    const cells = versions.map((): ScheduledCell & { samples: { m: number[] }; trialSamples: { m: number[] } } => ({ subject, status: "pending", samples: { m: [] }, trialSamples: { m: [] } }));
    const schedule = new TrialSchedule(shape.trials, cells, { ...UNLIMITED }, { profile: shape.profile });
    const runLevel = shift();
    for (let t = 0; schedule.another(t); t++) {
      const minute = shift();
      cells.forEach((cell, i) => {
        const trialLevel = levelOf(versions[i]!) * runLevel * minute * shift(relativeSd / 2);
        cell.samples.m.push(...Array.from({ length: shape.perTrial }, () => trialLevel * shift()));
        cell.trialSamples.m.push(shape.perTrial);
      });
    }
    const startedAt = dayOf(v);
    return cells.map((cell, i) => {
      const sequential = schedule.record(cell);
      return makeResult({
        run: { id: `${startedAt.slice(0, 10).replace(/-/g, "")}T000000Z-${v.toString(16).padStart(6, "0")}`, started_at: startedAt, trials: cell.trialSamples.m.length, profile: "full" },
        runtime: { version: `22.${versions[i]}.0`, spec: `node@22.${versions[i]}.0` },
        label: `node-22.${versions[i]}.0`,
        ...(sequential ? { sequential } : {}),
        suite: shape.suite,
        metrics: { [shape.metric]: { ...summaryOf(cell.samples.m, shape.unit), trial_samples: cell.trialSamples.m } },
      });
    });
  }).flat();
}

/** How the versions of a series are measured: each in its own run (`separate`), or each with its predecessor in one run (`paired`). */
export type Design = "separate" | "paired";

/** What the detector made of one series: a confirmed change at the step (in its direction), and how many other changes it confirmed. */
export function judgeSeries(docs: readonly ResultDocument[], step: number): { detected: boolean; falseAlarms: number } {
  const { changes } = detectRegressions(docs);
  const atStep = (c: (typeof changes)[number]) => step !== 0 && c.to_version === `22.${STEP_AT}.0` && c.kind === (step > 0 ? "regression" : "improvement");
  const confirmed = changes.filter((c) => c.status === "confirmed");
  return { detected: confirmed.some(atStep), falseAlarms: confirmed.filter((c) => !atStep(c)).length };
}

export interface Rates {
  series: number;
  /** Versions judged against the level before them: every version but the first of each series. */
  judgements: number;
  /** Series whose step was confirmed. */
  detected: number;
  /** Confirmed changes where there was none, and the series that had at least one. */
  falseAlarms: number;
  seriesWithFalseAlarm: number;
}

/** Judges `count` series of one shape, noise and step, seeded `seed`, `seed + 1`, … (the same seeds for every step). */
export function rates(shape: SeriesShape, relativeSd: number, step: number, count: number, seed: number, design: Design = "separate"): Rates {
  const totals: Rates = { series: count, judgements: count * (VERSIONS - 1), detected: 0, falseAlarms: 0, seriesWithFalseAlarm: 0 };
  for (let i = 0; i < count; i++) {
    const docs = design === "paired" ? simulatePairedSeries(shape, relativeSd, step, seed + i) : simulateSeries(shape, relativeSd, step, seed + i);
    const judged = judgeSeries(docs, step);
    // The paired design must confirm a step at the release itself: judged on the series as it stood that day.
    if (design === "paired" && step !== 0) judged.detected = judgeSeries(docs.filter((d) => d.run.started_at <= dayOf(STEP_AT)), step).detected;
    totals.detected += Number(judged.detected);
    totals.falseAlarms += judged.falseAlarms;
    totals.seriesWithFalseAlarm += Number(judged.falseAlarms > 0);
  }
  return totals;
}

/** Relative steps tried, smallest first. */
export const STEPS = [0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.5, 2];

/**
 * The smallest step of STEPS confirmed in at least `power` of `count` series, by bisection (more
 * often detected as the step grows), or null when even the largest is not.
 */
export function smallestDetected(shape: SeriesShape, relativeSd: number, count: number, seed: number, design: Design = "separate", power = 0.95): { step: number; rates: Rates } | null {
  const judged = new Map<number, Rates>();
  const at = (i: number) => {
    if (!judged.has(i)) judged.set(i, rates(shape, relativeSd, STEPS[i]!, count, seed, design));
    return judged.get(i)!;
  };
  const enough = (i: number) => at(i).detected >= power * count;
  if (!enough(STEPS.length - 1)) return null;
  let lo = -1;
  let hi = STEPS.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (enough(mid)) hi = mid;
    else lo = mid;
  }
  return { step: STEPS[hi]!, rates: at(hi) };
}
