import assert from "node:assert/strict";
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compareResults } from "../../src/compare/compare.ts";
import { compareTable } from "../../src/compare/format.ts";
import { comparePaired, compareWithPairs } from "../../src/compare/paired.ts";
import { splitTrials } from "../../src/compare/ratio.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { FULL_PROFILE_SHAPES, STEP_AT, simulatePairedSeries } from "../../benchmarks/lib/detection.ts";
import { FUTILITY_CHANCE, PAIRED_ALPHA, PAIRED_MIN_EFFECT, SINGLE_LOOK_ALPHA, adaptivePlan, chanceDecidedAtLast, estimateOf, lookAlpha, oneOffPlan, pairedEstimate, settled } from "../../src/compare/sequential.ts";
import { tCritical } from "../../src/compare/student-t.ts";
import { UserError } from "../../src/core/errors.ts";
import { checkAgainst } from "../../src/core/schema.ts";
import { TrialSchedule, UNLIMITED, type ScheduledCell, type TrialBudget } from "../../src/orchestrate/adaptive.ts";
import { resultPath } from "../../src/results/store.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { prepareRuntimes } from "../../src/runtimes/prepare.ts";
import { seededRandom } from "../../src/stats/random.ts";
import type { Subject } from "../../src/suites/suite.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

/** A result of one subject of run `run`: its trials' samples, laid out as the harness writes them. */
function subjectResult(label: string, trials: readonly (readonly number[])[], extra: Partial<ResultDocument> = {}): ResultDocument {
  return makeResult({
    label,
    run: { trials: trials.length },
    metrics: { wall_ms: { ...metricOf(trials.flat()), trial_samples: trials.map((t) => t.length) } },
    ...extra,
  });
}

/** An unlabelled released version of node in that run: what a release job measures beside its predecessor. */
function releaseResult(version: string, trials: readonly (readonly number[])[], extra: Partial<ResultDocument> = {}): ResultDocument {
  return subjectResult(`node-${version}`, trials, { runtime: { ...makeResult().runtime, version }, ...extra });
}

describe("paired comparison", () => {
  // Four trials; in each, HEAD's samples are BASE's times 1.05, 1.07, 1.06, 1.06.
  const baseTrials = [[100, 101, 99], [120, 118, 122], [90, 91, 89], [110, 111, 109]];
  const headTrials = baseTrials.map((trial, k) => trial.map((v) => v * [1.05, 1.07, 1.06, 1.06][k]!));

  it("gives the geometric mean of the per-trial ratios and Student's t interval over the pairs", () => {
    // Worked by hand: mean of the log ratios 0.058247, SD 0.007703; t(0.995, 3) = 5.8409, t(0.9996, 3) = 13.936.
    const estimate = pairedEstimate(baseTrials, headTrials, 0.01)!;
    assert.ok(Math.abs(estimate.ratio - 1.059976) < 1e-5, `ratio ${estimate.ratio}`);
    assert.ok(Math.abs(estimate.ci[0] - 1.036397) < 1e-4 && Math.abs(estimate.ci[1] - 1.084092) < 1e-4, `interval ${estimate.ci}`);
    const at95 = pairedEstimate(baseTrials, headTrials, 0.05)!;
    assert.ok(Math.abs(at95.ci[0] - 1.047063) < 1e-4 && Math.abs(at95.ci[1] - 1.073049) < 1e-4, `interval ${at95.ci}`);
    const atPairedAlpha = pairedEstimate(baseTrials, headTrials, PAIRED_ALPHA)!;
    assert.ok(Math.abs(atPairedAlpha.ci[0] - 1.004583) < 1e-4 && Math.abs(atPairedAlpha.ci[1] - 1.118424) < 1e-4, `interval ${atPairedAlpha.ci}`);
    assert.ok(Math.abs(tCritical(0.01, 3) - 5.8409) < 1e-3 && Math.abs(tCritical(0.05, 10) - 2.2281) < 1e-3 && Math.abs(tCritical(0.001, 3) - 12.924) < 1e-3);
    assert.equal(pairedEstimate([[1, 2]], [[2, 3]], 0.01), null, "one pair has no spread to judge by");
  });

  it("judges two labelled builds of one run trial by trial, as a one-off question: a single look at 95 %", () => {
    const [row, ...rest] = comparePaired([subjectResult("base", baseTrials)], [subjectResult("head", headTrials)]);
    assert.equal(rest.length, 0);
    assert.equal(row!.verdict, "slower");
    assert.deepEqual([row!.base_label, row!.head_label, row!.pairs, row!.alpha, row!.rule, row!.min_effect_source], ["base", "head", 4, SINGLE_LOOK_ALPHA, "single look", "paired"]);
    assert.ok(Math.abs(row!.ci95![0] - 1.047063) < 1e-4 && Math.abs(row!.ci95![1] - 1.073049) < 1e-4, `interval ${row!.ci95}`);
    // The same samples with the trials shuffled on one side pair differently: the spread between pairs is then wide.
    const shuffled = [headTrials[2]!, headTrials[0]!, headTrials[3]!, headTrials[1]!];
    const [wide] = comparePaired([subjectResult("base", baseTrials)], [subjectResult("head", shuffled)]);
    assert.equal(wide!.verdict, "inconclusive", "an interval reaching beyond ±1 % rules out no change");
    assert.match(wide!.reason!, /^the 95 % interval \[0\.\d{3}, 1\.\d{3}\] reaches beyond ±1\.0 %/);
    // Beside pooled medians, the table says which ratio HEAD/BASE is.
    assert.match(compareTable([row!]), /HEAD\/BASE is the geometric mean of its pairs' ratios/);
    assert.doesNotMatch(compareTable(compareResults([subjectResult("base", baseTrials)], [subjectResult("head", headTrials)])), /geometric mean of its pairs/, "no pairs, no such note");
  });

  it("judges two released versions of one runtime by the release job's sequential rule", () => {
    const [row] = comparePaired([releaseResult("22.11.0", baseTrials)], [releaseResult("22.12.0", headTrials)]);
    assert.deepEqual([row!.rule, row!.alpha, row!.verdict], ["sequential", PAIRED_ALPHA, "slower"]);
    assert.ok(Math.abs(row!.ci95![0] - 1.004583) < 1e-4 && Math.abs(row!.ci95![1] - 1.118424) < 1e-4, `interval ${row!.ci95}`);
  });

  it("holds a metric read in ticks to one tick: CPU time of 40 against 50 ms in 10 ms ticks, every pair alike, is no change it can see", () => {
    const ticks = (trials: readonly (readonly number[])[]) => ({ ...metricOf(trials.flat(), "s"), resolution: 0.01, trial_samples: trials.map((t) => t.length) });
    const before = releaseResult("22.11.0", [[0.05], [0.05], [0.05]], { metrics: { cpu_s: ticks([[0.05], [0.05], [0.05]]) } });
    const after = releaseResult("22.12.0", [[0.04], [0.04], [0.04]], { metrics: { cpu_s: ticks([[0.04], [0.04], [0.04]]) } });
    const [row] = comparePaired([before], [after]);
    assert.deepEqual([row!.min_effect_source, row!.verdict], ["resolution", "no significant change"]);
    assert.ok(Math.abs(row!.ci95![0] - 0.8) < 1e-9 && Math.abs(row!.ci95![1] - 0.8) < 1e-9 && Math.abs(row!.min_effect - 0.25) < 1e-6, `${row!.ci95} ${row!.min_effect}`);
    // Far beyond a tick, the same pairs are a change.
    const fast = releaseResult("22.12.0", [[0.01], [0.01], [0.01]], { metrics: { cpu_s: ticks([[0.01], [0.01], [0.01]]) } });
    assert.equal(comparePaired([before], [fast])[0]!.verdict, "faster");
  });

  it("judges two runtimes of one run by a single look, and says 'no significant change' only when the interval rules out a change", () => {
    const bun = (trials: readonly (readonly number[])[]) => subjectResult("bun-1.2.0", trials, { runtime: { ...makeResult().runtime, name: "bun", version: "1.2.0" } });
    const node = releaseResult("22.11.0", baseTrials);
    const [gap] = comparePaired([node], [bun(baseTrials.map((t) => t.map((v) => v * 3.7)))]);
    assert.deepEqual([gap!.rule, gap!.verdict], ["single look", "slower"]);
    assert.ok(Math.abs(gap!.ratio! - 3.7) < 1e-9);
    // Within 0.3 % in every pair: the 95 % interval lies within ±1 %.
    const [same] = comparePaired([node], [bun(baseTrials.map((t, k) => t.map((v) => v * [1.003, 0.998, 1.001, 1][k]!)))]);
    assert.deepEqual([same!.verdict, same!.reason], ["no significant change", undefined]);
    // Two pairs far apart: the interval reaches from 0.1 to 10 and more, which decides nothing either way.
    const [wide] = comparePaired([releaseResult("22.11.0", baseTrials.slice(0, 2))], [bun([baseTrials[0]!.map((v) => v * 3), baseTrials[1]!.map((v) => v * 0.9)])]);
    assert.equal(wide!.verdict, "inconclusive");
    assert.ok(wide!.ci95![0] < 0.5 && wide!.ci95![1] > 1.5, `interval ${wide!.ci95}`);
    // One trial each: no spread between pairs at all.
    const [one] = comparePaired([releaseResult("22.11.0", baseTrials.slice(0, 1))], [bun([baseTrials[0]!.map((v) => v * 5)])]);
    assert.deepEqual([one!.verdict, one!.reason], ["inconclusive", "too few pairs: 1 pair of trials, a paired verdict needs 2"]);
  });

  it("pairs only results of the same run, and is inconclusive when the trials do not pair", () => {
    const otherRun = subjectResult("head", headTrials, { run: { ...makeResult().run, id: "20261102T000000Z-abcdef", trials: 4 } });
    assert.deepEqual(comparePaired([subjectResult("base", baseTrials)], [otherRun]), []);
    const [row] = comparePaired([subjectResult("base", baseTrials)], [subjectResult("head", headTrials.slice(0, 3))]);
    assert.equal(row!.verdict, "inconclusive");
    assert.match(row!.reason!, /BASE has 4 trials and HEAD 3/);
  });

  it("judges at the look an adaptive run stopped at: the share of alpha that look may spend", () => {
    const plan = { looks: [2, 4, 6], alpha: PAIRED_ALPHA };
    const sequential = { looks: [...plan.looks], alpha: plan.alpha, stopped: "decided" as const };
    const [row] = comparePaired([releaseResult("22.11.0", baseTrials, { sequential })], [releaseResult("22.12.0", headTrials, { sequential })]);
    assert.deepEqual(adaptivePlan(2, "quick").looks, [2, 6, 10], "three looks, from the minimum to at least 10 trials");
    assert.deepEqual(adaptivePlan(1, "quick").looks, [2, 6, 10], "a one-trial profile's first look has the two pairs an interval needs");
    assert.deepEqual(adaptivePlan(10, "quick").looks, [10, 20, 30], "or to three times the minimum");
    assert.deepEqual(adaptivePlan(10, "full").looks, [10, 20, 30], "the release job's profile goes to at least 30");
    assert.deepEqual(adaptivePlan(3, "full").looks, [3, 12, 21, 30], "with a look at least every 10 trials on the way");
    assert.ok(Math.abs(row!.alpha! - lookAlpha(plan, 1)) < 1e-12);
    assert.ok(Math.abs(lookAlpha(plan, 0) + lookAlpha(plan, 1) + lookAlpha(plan, 2) - plan.alpha) < 1e-12, "the looks spend exactly alpha");
  });

  it("judges a run its budget stopped early at all the alpha its later looks would have spent", () => {
    // A release beside its predecessor, 2.4× faster in each of three trials, as a sweep's link of Bun 1.3.14 to 1.4.0 measured startup.
    const slow = [[12.8, 12.7], [14.0, 14.1], [12.6, 12.5]];
    const fast = [[5.8, 5.7], [5.2, 5.2], [4.6, 4.5]];
    const plan = { looks: [3, 7, 10], alpha: PAIRED_ALPHA };
    const judged = (stopped: "decided" | "budget") => {
      const sequential = { ...plan, looks: [...plan.looks], stopped };
      return comparePaired([releaseResult("1.3.14", slow, { sequential })], [releaseResult("1.4.0", fast, { sequential })])[0]!;
    };
    const byBudget = judged("budget");
    assert.ok(Math.abs(byBudget.alpha! - PAIRED_ALPHA) < 1e-15, `the first look spends all of alpha: ${byBudget.alpha}`);
    assert.ok(Math.abs(judged("decided").alpha! - lookAlpha(plan, 0)) < 1e-15, "a run its data stopped spends its look's share");
    assert.ok(lookAlpha(plan, 0) < PAIRED_ALPHA / 10);
    const atSecond = { ...plan, looks: [...plan.looks], stopped: "budget" as const };
    const seven = (trials: number[][]) => [...trials, ...trials, [trials[0]![0]!, trials[0]![1]!]];
    const [second] = comparePaired([releaseResult("1.3.14", seven(slow), { sequential: atSecond })], [releaseResult("1.4.0", seven(fast), { sequential: atSecond })]);
    assert.ok(Math.abs(second!.alpha! - (PAIRED_ALPHA - lookAlpha(plan, 0))) < 1e-15, "at the second look: alpha less the first look's share");
  });
});

/**
 * HEAD's level in trial t beside a BASE of 10: a step of about 6 % whose trials scatter by ±4 %,
 * too wide to be decided at the looks at 5 and 10 trials, likely to be decided by the cap at 15
 * (never futile), then five trials that swing by a factor of 2 each way and leave it undecided there.
 */
const closeCall = (t: number) => 10 * Math.exp(t >= 10 ? (t % 2 === 0 ? 0.7 : -0.7) : t % 2 === 0 ? 0.02 : 0.1);

describe("sequential rule: false alarms on simulated A/A, and a step it must catch", () => {
  const subject = { runtime: { identity: { name: "node" } }, app: null, params: {} } as unknown as Subject;
  const cheapSummary = (samples: number[]) => ({ unit: "ms", better: "lower" as const, samples, median: 0, mean: 0, stddev: 0, min: 0, max: 0, ci95: [0, 0] as [number, number] });
  const gaussian = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

  /**
   * One simulated scenario through the orchestrator's schedule: two subjects, each trial 10
   * samples at a level that moves 2 % from trial to trial on its own, and 1 % within the trial;
   * HEAD's level is `step` higher. Returns the paired verdict at the look the schedule stopped at.
   */
  function simulate(step: number, seed: number): string {
    const random = seededRandom(seed);
    const cell = (): ScheduledCell & { samples: Record<string, number[]>; trialSamples: Record<string, number[]> } => ({ subject, status: "pending", samples: { wall_ms: [] }, trialSamples: { wall_ms: [] } });
    const cells = [cell(), cell()];
    const schedule = new TrialSchedule(5, cells, { ...UNLIMITED }, { profile: "quick" });
    for (let t = 0; schedule.another(t); t++) {
      cells.forEach((c, side) => {
        const level = 50 * (side === 1 ? 1 + step : 1) * Math.exp(0.02 * gaussian(random));
        c.samples.wall_ms!.push(...Array.from({ length: 10 }, () => level * Math.exp(0.01 * gaussian(random))));
        c.trialSamples.wall_ms!.push(10);
      });
    }
    const doc = (c: (typeof cells)[number], version: string) =>
      makeResult({
        label: `node-${version}`,
        runtime: { ...makeResult().runtime, version },
        run: { trials: c.trialSamples.wall_ms!.length },
        sequential: schedule.record(c),
        // The paired rule reads samples and trials only: a summary without its bootstrap keeps 3,000 scenarios quick.
        metrics: { wall_ms: { ...cheapSummary(c.samples.wall_ms!), trial_samples: c.trialSamples.wall_ms! } },
      });
    return comparePaired([doc(cells[0]!, "22.11.0")], [doc(cells[1]!, "22.12.0")], { defaultMinEffect: 0 })[0]!.verdict;
  }

  /** The fewest false alarms in `runs` that a rule holding `alpha` reaches with a chance under 1 % (binomial tail). */
  function implausibleAlarms(runs: number, alpha: number): number {
    let term = (1 - alpha) ** runs;
    let below = 0;
    for (let k = 0; ; k++) {
      below += term;
      if (1 - below < 0.01) return k + 1;
      term *= ((runs - k) / (k + 1)) * (alpha / (1 - alpha));
    }
  }

  it("keeps the false-alarm rate of A/A within alpha over its three looks (seeded, 3,000 scenarios)", () => {
    const runs = 3000;
    const alarms = Array.from({ length: runs }, (_, i) => simulate(0, 1 + i)).filter((v) => v === "faster" || v === "slower").length;
    // At most 2.4 alarms expected; a rule spending the whole alpha at each of its three looks (7.2 expected) reaches 8 in about 4 seeds of 10.
    assert.ok(alarms < implausibleAlarms(runs, PAIRED_ALPHA), `${alarms} false alarms in ${runs}, ${implausibleAlarms(runs, PAIRED_ALPHA)} or more would be implausible at ${PAIRED_ALPHA}`);
    assert.ok(lookAlpha(adaptivePlan(5, "quick"), 0) < PAIRED_ALPHA / 5, "the first look spends little");
  });

  it("catches a 6 % step in at least 95 % of scenarios with the same noise", () => {
    const runs = 400;
    const caught = Array.from({ length: runs }, (_, i) => simulate(0.06, 100_000 + i)).filter((v) => v === "slower").length;
    assert.ok(caught / runs >= 0.95, `${caught} of ${runs}`);
  });
});

describe("the run's budget of extra trials", () => {
  const subject = { runtime: { identity: { name: "node" } }, app: null, params: {} } as unknown as Subject;
  /** Trials the schedule runs on a close call (never decided, never futile: only the cap or the budget stops it), each round taking `roundSeconds`. */
  function trialsRun(budget: TrialBudget, roundSeconds: number): { trials: number; stopped: string | undefined } {
    const cells = [() => 10, closeCall].map((level) => ({ level, cell: { subject, status: "pending", samples: { wall_ms: [] as number[] }, trialSamples: { wall_ms: [] as number[] } } }));
    const schedule = new TrialSchedule(5, cells.map(({ cell }) => cell), budget, { profile: "quick" });
    let t = 0;
    for (; schedule.another(t, roundSeconds / 2); t++) {
      for (const { level, cell } of cells) {
        cell.samples.wall_ms.push(level(t));
        cell.trialSamples.wall_ms.push(1);
      }
    }
    return { trials: t, stopped: schedule.record(cells[0]!.cell)?.stopped };
  }

  it("runs an undecided pair to its cap without a budget, and stops at a look when trials or seconds run out", () => {
    assert.deepEqual(trialsRun({ ...UNLIMITED }, 10), { trials: 15, stopped: "max trials" });
    // Looks at 5, 10 and 15: going on to 10 costs 5 rounds of 2 trials.
    assert.deepEqual(trialsRun({ trials: 9, seconds: Infinity }, 10), { trials: 5, stopped: "budget" });
    assert.deepEqual(trialsRun({ trials: 10, seconds: Infinity }, 10), { trials: 10, stopped: "budget" });
    // Five rounds of 10 s each: 49 s is not enough, 50 s buys exactly the next look.
    assert.deepEqual(trialsRun({ trials: Infinity, seconds: 49 }, 10), { trials: 5, stopped: "budget" });
    assert.deepEqual(trialsRun({ trials: Infinity, seconds: 50 }, 10), { trials: 10, stopped: "budget" });
    const shared = { trials: Infinity, seconds: 120 };
    trialsRun(shared, 10);
    assert.equal(shared.seconds, 20, "the budget is shared: what one scenario spent is gone for the next");
  });
});

describe("the points of a scenario, stopped one by one", () => {
  type Cell = ScheduledCell & { status: string; samples: { wall_ms: number[] }; trialSamples: { wall_ms: number[] } };
  const at = (name: string, params: Record<string, number>): Cell => ({
    subject: { runtime: { identity: { name } }, app: null, params } as unknown as Subject,
    status: "pending",
    samples: { wall_ms: [] },
    trialSamples: { wall_ms: [] },
  });
  /**
   * A scenario of five load points and a sentinel, through the schedule as the orchestrator drives
   * it: a 3× step (decided at the first look), a pair whose trials alternate wildly (futile there),
   * a close call (undecided to its cap), a pair whose HEAD fails at its third trial, and Bun alone.
   */
  function scenario(budget: TrialBudget, futility = true) {
    const cells = {
      stepBase: at("node", { n: 1 }),
      stepHead: at("node", { n: 1 }),
      wildBase: at("node", { n: 2 }),
      wildHead: at("node", { n: 2 }),
      closeBase: at("node", { n: 5 }),
      closeHead: at("node", { n: 5 }),
      failBase: at("node", { n: 3 }),
      failHead: at("node", { n: 3 }),
      alone: at("bun", { n: 4 }),
    };
    const sentinel = at("node", { n: 1 });
    const level: Record<keyof typeof cells, (t: number) => number> = {
      stepBase: (t) => (t % 2 === 0 ? 9.9 : 10.1),
      stepHead: (t) => (t % 2 === 0 ? 30.1 : 29.9),
      wildBase: (t) => (t % 2 === 0 ? 10 : 20),
      wildHead: (t) => (t % 2 === 0 ? 20 : 10),
      closeBase: () => 10,
      closeHead: closeCall,
      failBase: () => 10,
      failHead: () => 10,
      alone: () => 10,
    };
    const schedule = new TrialSchedule(5, Object.values(cells), budget, { profile: "quick", alongside: [sentinel], futility });
    const trials = new Map<Cell, number>();
    for (let t = 0; schedule.another(t, 1); t++) {
      if (t === 2) cells.failHead.status = "failed";
      const measure = (cell: Cell, value: number) => {
        if (!schedule.measures(cell, t) || cell.status !== "pending") return;
        cell.samples.wall_ms.push(value, value);
        cell.trialSamples.wall_ms.push(2);
        trials.set(cell, (trials.get(cell) ?? 0) + 1);
      };
      for (const [name, cell] of Object.entries(cells)) measure(cell, level[name as keyof typeof cells](t));
      measure(sentinel, 10);
    }
    const outcome = (cell: Cell) => ({ trials: trials.get(cell), stopped: schedule.record(cell)?.stopped });
    return { ...(Object.fromEntries(Object.entries(cells).map(([name, cell]) => [name, outcome(cell)])) as Record<keyof typeof cells, ReturnType<typeof outcome>>), sentinel: outcome(sentinel) };
  }

  it("stops a decided or futile point at its look and a point with nothing to judge after its first trials, while an undecided one goes on with the sentinel", () => {
    assert.deepEqual(scenario({ ...UNLIMITED }), {
      stepBase: { trials: 5, stopped: "decided" },
      stepHead: { trials: 5, stopped: "decided" },
      wildBase: { trials: 5, stopped: "futile" },
      wildHead: { trials: 5, stopped: "futile" },
      closeBase: { trials: 15, stopped: "max trials" },
      closeHead: { trials: 15, stopped: "max trials" },
      failBase: { trials: 5, stopped: undefined },
      failHead: { trials: 2, stopped: undefined },
      alone: { trials: 5, stopped: undefined },
      sentinel: { trials: 15, stopped: undefined },
    });
  });

  it("takes a futile point to its cap when futility is off, as a narrowing run asks, and stops the others as before", () => {
    const outcome = scenario({ ...UNLIMITED }, false);
    assert.deepEqual([outcome.wildBase, outcome.wildHead, outcome.stepBase, outcome.closeBase], [
      { trials: 15, stopped: "max trials" },
      { trials: 15, stopped: "max trials" },
      { trials: 5, stopped: "decided" },
      { trials: 15, stopped: "max trials" },
    ]);
  });

  it("charges the budget for the cells that go on only: five rounds of the undecided pair and the sentinel, 15 trials", () => {
    const outcome = scenario({ trials: 15, seconds: Infinity });
    assert.deepEqual([outcome.closeBase, outcome.stepBase, outcome.wildBase], [
      { trials: 10, stopped: "budget" },
      { trials: 5, stopped: "decided" },
      { trials: 5, stopped: "futile" },
    ]);
  });
});

describe("futility: a pair the cap would not decide stops early", () => {
  const plan = adaptivePlan(5, "quick");
  const gaussian = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

  it("gives the chance of a verdict at the last look that simulated pairs bear out", () => {
    // Steps drawn from ±5 %, pairs with 3 % noise: the chance after 5 pairs against how often the 15th pair decides.
    const random = seededRandom(11);
    const bins = [
      { below: FUTILITY_CHANCE, pairs: 0, decided: 0 },
      { below: 0.9, pairs: 0, decided: 0 },
      { below: Infinity, pairs: 0, decided: 0 },
    ];
    for (let i = 0; i < 4000; i++) {
      const step = 0.1 * (random() - 0.5);
      const logRatios = Array.from({ length: 15 }, () => step + 0.03 * gaussian(random));
      const first = logRatios.slice(0, 5);
      if (settled(estimateOf(first, lookAlpha(plan, 0)), PAIRED_MIN_EFFECT) !== "undecided") continue;
      const bin = bins.find((b) => chanceDecidedAtLast(first, plan, PAIRED_MIN_EFFECT) < b.below)!;
      bin.pairs++;
      if (settled(estimateOf(logRatios, lookAlpha(plan, 2)), PAIRED_MIN_EFFECT) !== "undecided") bin.decided++;
    }
    const [futile, middle, likely] = bins.map((b) => b.decided / b.pairs);
    assert.ok(bins.every((b) => b.pairs >= 200), JSON.stringify(bins));
    // A pair called futile is decided at the cap less often than the chance it was given; a likely one more often than not.
    assert.ok(futile! < FUTILITY_CHANCE && futile! < middle! && middle! < likely! && likely! > 0.5, JSON.stringify(bins));
  });

  it("records a futile stop, and compare says why the pair is inconclusive", () => {
    const wild = (t: number, side: number) => [t % 2 === side ? 10 : 20];
    const trials = (side: number) => Array.from({ length: 5 }, (_, t) => wild(t, side));
    const sequential = { looks: [...plan.looks], alpha: PAIRED_ALPHA, stopped: "futile" as const };
    const [row] = comparePaired([releaseResult("22.11.0", trials(0), { sequential })], [releaseResult("22.12.0", trials(1), { sequential })]);
    assert.equal(row!.verdict, "inconclusive");
    assert.match(row!.reason!, /reaches beyond ±1\.0 %.*stopped at 5 of 15, since the last look was unlikely to decide it \(futility\)/);
    assert.deepEqual(checkAgainst("result.schema.json", releaseResult("22.12.0", trials(1), { sequential })), []);
  });
});

describe("a one-trial profile", () => {
  it("gives two builds with a 5× step a verdict: too few pairs counts as undecided, so the schedule adds trials", () => {
    const subject = { runtime: { identity: { name: "node" } }, app: null, params: {} } as unknown as Subject;
    const cells = [0, 1].map((): ScheduledCell & { samples: Record<string, number[]>; trialSamples: Record<string, number[]> } => ({ subject, status: "pending", samples: { wall_ms: [] }, trialSamples: { wall_ms: [] } }));
    const schedule = new TrialSchedule(1, cells, { ...UNLIMITED }, { profile: "quick" });
    const random = seededRandom(7);
    let trials = 0;
    for (; schedule.another(trials); trials++) {
      cells.forEach((c, side) => {
        const level = 40 * (side === 1 ? 5 : 1) * (1 + 0.1 * (random() - 0.5));
        c.samples.wall_ms!.push(...[level, level * 1.01, level * 0.99]);
        c.trialSamples.wall_ms!.push(3);
      });
    }
    assert.ok(trials >= 2, `${trials} trials`);
    const results = cells.map((c, side) => subjectResult(side === 0 ? "base" : "head", splitTrials(c.samples.wall_ms!, c.trialSamples.wall_ms!), { sequential: schedule.record(c) }));
    const [row] = comparePaired([results[0]!], [results[1]!]);
    assert.equal(row!.verdict, "slower", JSON.stringify(row));
    assert.ok(Math.abs(row!.ratio! - 5) < 0.5);
    // The same step on a one-trial profile without the rule (one pair) would be inconclusive.
    const [onePair] = comparePaired([subjectResult("base", [[40, 41, 39]])], [subjectResult("head", [[200, 202, 198]])]);
    assert.equal(onePair!.verdict, "inconclusive");
  });

  it("stays at one trial in the smoke profile, which no verdict reads", () => {
    const subject = { runtime: { identity: { name: "node" } }, app: null, params: {} } as unknown as Subject;
    const cells = [0, 1].map((): ScheduledCell => ({ subject, status: "pending", samples: {}, trialSamples: {} }));
    const schedule = new TrialSchedule(1, cells, { ...UNLIMITED }, { profile: "quick", judged: false });
    assert.deepEqual([schedule.another(0), schedule.another(1)], [true, false]);
  });

  it("gives two runtimes at one app and load point the two trials a single look needs, and a runtime alone its profile's one", () => {
    const at = (name: string, app: string) => ({ subject: { runtime: { identity: { name } }, app, params: {} } as unknown as Subject, status: "pending", samples: {}, trialSamples: {} });
    assert.deepEqual(new TrialSchedule(1, [at("node", "native"), at("bun", "native")], { ...UNLIMITED }, { profile: "quick" }).looks, [2, 6, 10]);
    assert.equal(new TrialSchedule(1, [at("node", "native"), at("bun", "elysia")], { ...UNLIMITED }, { profile: "quick" }).looks, null, "different apps: no row pairs them");
    assert.equal(new TrialSchedule(1, [at("node", "native")], { ...UNLIMITED }, { profile: "quick" }).looks, null);
  });

  it("takes a release beside its predecessor to 30 trials in the release job's profile, and to 10 in quick", () => {
    const at = (version: string) => ({ subject: { runtime: { identity: { name: "node", version } }, app: "native", params: {} } as unknown as Subject, status: "pending", samples: {}, trialSamples: {} });
    const release = () => [at("22.11.0"), at("22.12.0")];
    assert.deepEqual(new TrialSchedule(3, release(), { ...UNLIMITED }, { profile: "full" }).looks, [3, 12, 21, 30]);
    assert.deepEqual(new TrialSchedule(3, release(), { ...UNLIMITED }, { profile: "quick" }).looks, [3, 7, 10]);
  });
});

describe("two runtimes side by side: a one-off question over the same looks", () => {
  type Cell = ScheduledCell & { samples: Record<string, number[]>; trialSamples: Record<string, number[]> };
  const metrics = { wall_ms: {}, peak_rss_mb: {} };
  const at = (name: string): Cell => ({
    subject: { runtime: { identity: { name } }, app: "native", params: {}, scenario: { metrics } } as unknown as Subject,
    status: "pending",
    samples: { wall_ms: [], peak_rss_mb: [] },
    trialSamples: { wall_ms: [], peak_rss_mb: [] },
  });
  /** Node and Bun at one point through the schedule, each trial's wall time and memory from `wall` and `rss` (side 0: node, 1: bun). */
  function sideBySide(wall: (side: number, t: number) => number, rss: (side: number, t: number) => number) {
    const cells = [at("node"), at("bun")];
    const schedule = new TrialSchedule(2, cells, { ...UNLIMITED }, { profile: "quick" });
    let trials = 0;
    for (; schedule.another(trials); trials++) {
      cells.forEach((cell, side) => {
        cell.samples.wall_ms!.push(wall(side, trials));
        cell.samples.peak_rss_mb!.push(rss(side, trials));
        cell.trialSamples.wall_ms!.push(1);
        cell.trialSamples.peak_rss_mb!.push(1);
      });
    }
    const results = cells.map((cell, side) => {
      const runtime = { ...makeResult().runtime, ...(side === 0 ? { name: "node" as const, version: "26.12.1" } : { name: "bun" as const, version: "1.4.5" }) };
      const metric = (name: string) => ({ ...metricOf(cell.samples[name]!), trial_samples: cell.trialSamples[name]! });
      return makeResult({ runtime, run: { trials }, metrics: { wall_ms: metric("wall_ms"), peak_rss_mb: metric("peak_rss_mb") }, sequential: schedule.record(cell) });
    });
    const rows = comparePaired([results[0]!], [results[1]!]);
    return { trials, record: schedule.record(cells[0]!), wall: rows.find((r) => r.metric === "wall_ms")!, rss: rows.find((r) => r.metric === "peak_rss_mb")! };
  }

  it("spends 4 % of the one-off 5 % at the first look and the rest at one more", () => {
    const plan = oneOffPlan(2, "quick");
    assert.deepEqual([plan.looks, plan.alpha], [[2, 6], SINGLE_LOOK_ALPHA]);
    assert.deepEqual(oneOffPlan(3, "full").looks, [3, 12], "the release job's profile: the first two of its looks");
    const spent = plan.looks.map((_, k) => lookAlpha(plan, k));
    assert.ok(Math.abs(spent[0]! - 0.04) < 1e-12 && Math.abs(spent[1]! - 0.01) < 1e-12, `${spent}`);
  });

  it("calls a 1.5× gap that two noisy pairs leave undecided, judging each row at the share of the look it stopped at", () => {
    // Bun 1.6× faster, each trial's ratio moved ±25 % (as file I/O moved on the 2-CPU testbed): at two pairs its interval reaches 1.
    const wobble = [1.25, 0.8, 1.2, 0.85, 1.1, 0.9, 1.15, 0.95, 1.05, 1];
    const { trials, record, wall, rss } = sideBySide((side, t) => (side === 0 ? 100 : 62.5 * wobble[t]!), (side) => (side === 0 ? 60 : 40));
    assert.equal(trials, 6, "the first look did not decide it, so the point went on to the second");
    assert.deepEqual([record?.first_share, record?.stopped], [0.8, "decided"]);
    assert.deepEqual([wall.rule, wall.verdict], ["single look", "faster"], JSON.stringify(wall));
    assert.ok(Math.abs(wall.alpha! - 0.01) < 1e-12, `judged at the second look's 1 %, not at 5 %: ${wall.alpha}`);
    assert.equal(rss.alpha, wall.alpha, "every metric of the point is judged at the look its trials stopped at");
    // Without the later looks, its two pairs alone are inconclusive at 5 %.
    const twoPairs = (side: number) => [0, 1].map((t) => [side === 0 ? 100 : 62.5 * wobble[t]!]);
    const [first] = comparePaired([subjectResult("node", twoPairs(0), { runtime: { ...makeResult().runtime, name: "node" } })], [subjectResult("bun", twoPairs(1), { runtime: { ...makeResult().runtime, name: "bun" } })]);
    assert.equal(first!.verdict, "inconclusive", JSON.stringify(first));
  });

  it("stops at the first look on a plain gap, and judges it at that look's 4 %", () => {
    const { trials, record, wall } = sideBySide((side, t) => (side === 0 ? 100 + t : 30 + t / 3), (side) => (side === 0 ? 60 : 40));
    assert.equal(trials, 2);
    assert.equal(record?.stopped, "decided");
    assert.equal(wall.verdict, "faster");
    assert.ok(Math.abs(wall.alpha! - 0.04) < 1e-12, `${wall.alpha}`);
  });

  it("takes no more trials for runtimes less than 1.5× apart, and says so", () => {
    const { trials, record, wall } = sideBySide((side, t) => (side === 0 ? 100 : 125 * [1.6, 0.6][t % 2]!), (side) => (side === 0 ? 60 : 40));
    assert.deepEqual([trials, record?.stopped], [2, "small gap"]);
    assert.equal(wall.verdict, "inconclusive");
    assert.match(wall.reason!, /stopped at 2 of 6, since runtimes side by side less than 1\.5× apart on the headline take no more/);
    // The same spread 1.6× apart goes on.
    assert.equal(sideBySide((side, t) => (side === 0 ? 100 : 160 * [1.6, 0.6][t % 2]!), (side) => (side === 0 ? 60 : 40)).trials, 6);
    // So do medians 1.6× apart whose two pairs' mean ratio is 1.06× (trials of ×2.8 and ×0.4): compare prints both medians side by side.
    const apart = sideBySide((side, t) => (side === 0 ? 100 : [280, 40][t % 2]!), (side) => (side === 0 ? 60 : 40));
    assert.equal(apart.trials, 6);
    assert.equal(apart.wall.head_median / apart.wall.base_median, 1.6);
  });

  it("goes on for the headline metric only: a memory figure left undecided does not keep the point running", () => {
    const { trials, wall, rss } = sideBySide((side, t) => (side === 0 ? 100 + t : 30 + t / 3), (side, t) => (side === 0 ? 60 : t % 2 === 0 ? 40 : 80));
    assert.equal(trials, 2);
    assert.equal(wall.verdict, "faster");
    assert.equal(rss.verdict, "inconclusive");
  });
});

describe("builds side by side", () => {
  it("refuses the same binary twice in one line, and labels two builds of one version apart", async () => {
    const dir = tempDir("same-binary");
    try {
      const copy = join(dir, "node-copy");
      copyFileSync(process.execPath, copy);
      await assert.rejects(prepareRuntimes([`node@path:${process.execPath}`, `node@path:${copy}`], () => {}), (error: Error) => {
        assert.ok(error instanceof UserError);
        assert.match(error.message, /are the same binary/);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
      const wrappers = ["a", "b"].map((name) => {
        const path = join(dir, name);
        writeFileSync(path, `#!/bin/sh\n# build ${name}\nexec "${process.execPath}" "$@"\n`, { mode: 0o755 });
        return path;
      });
      const runtimes = await prepareRuntimes([`base=node@path:${wrappers[0]}`, `node@path:${wrappers[1]}`], () => {});
      const version = process.versions.node;
      assert.equal(runtimes[0]!.label, "base");
      assert.match(runtimes[1]!.label, new RegExp(`^node-${version.replace(/\./g, "\\.")}-[0-9a-f]{8}$`));
      await assert.rejects(prepareRuntimes([`x=node@path:${wrappers[0]}`, `x=node@path:${wrappers[1]}`], () => {}), /two runtimes are labelled 'x'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives two subjects of one version in one run their own result file, and keeps the old name without a label", () => {
    const base = subjectResult("base", [[1, 2]]);
    const head = subjectResult("head", [[1, 2]]);
    assert.notEqual(resultPath("/data", base), resultPath("/data", head));
    assert.match(resultPath("/data", base), /\/node-22\.11\.0@base\.json$/);
    assert.match(resultPath("/data", makeResult()), /\/node-22\.11\.0\.json$/);
    assert.match(resultPath("/data", subjectResult("node-22.11.0", [[1, 2]])), /\/node-22\.11\.0\.json$/);
    // A canary's version with build metadata makes a valid label; a label with a space does not.
    assert.deepEqual(checkAgainst("result.schema.json", subjectResult("deno-2.1.4+abc123", [[1, 2]])), []);
    assert.notDeepEqual(checkAgainst("result.schema.json", subjectResult("two words", [[1, 2]])), []);
  });
});

describe("regressions feed: a release measured beside its predecessor", () => {
  const startup = FULL_PROFILE_SHAPES.find((shape) => shape.suite === "startup")!;

  it("is judged from the paired comparison at once, with no later release to confirm it", () => {
    // The series as it stands the day the stepped release is measured: nothing after it.
    const docs = simulatePairedSeries(startup, 0.01, 0.05, 3).filter((d) => Number(d.runtime.version.split(".")[1]) <= STEP_AT);
    const { changes } = detectRegressions(docs);
    const atRelease = changes.filter((c) => c.to_version === `22.${STEP_AT}.0`);
    assert.equal(atRelease.length, 1, JSON.stringify(changes.map((c) => [c.to_version, c.status, c.reason])));
    assert.equal(atRelease[0]!.status, "confirmed");
    assert.equal(atRelease[0]!.kind, "regression");
    assert.equal(atRelease[0]!.min_effect_source, "paired");
    assert.match(atRelease[0]!.reason, new RegExp(`paired with 22\\.${STEP_AT - 1}\\.0 in run`));
    assert.equal(changes.length, 1, "no other version is flagged");
  });

  it("the site's comparison of two versions measured in one run is the paired one", () => {
    const docs = simulatePairedSeries(startup, 0.01, 0.05, 3);
    const side = (version: string) => docs.filter((d) => d.runtime.version === version);
    const rows = compareWithPairs(side(`22.${STEP_AT - 1}.0`), side(`22.${STEP_AT}.0`));
    const paired = rows.filter((r) => r.pairs !== undefined);
    assert.equal(paired.length, 1);
    assert.equal(paired[0]!.verdict, "slower");
    assert.equal(rows.length, 1, "the cell's separate-runs row gives way to the paired one");
  });

  it("a canary build against its release in one run is a canary change; its version never joins a series", () => {
    const trials = [[100, 101, 99], [120, 118, 122], [90, 91, 89], [110, 111, 109]];
    const run = { id: "20261125T010000Z-cccccc", trials: 4 };
    const release = subjectResult("release", trials, { run: { ...makeResult().run, ...run } });
    const canary = subjectResult("canary", trials.map((t, k) => t.map((v) => v * [1.3, 1.31, 1.29, 1.3][k]!)), {
      run: { ...makeResult().run, ...run },
      runtime: { ...makeResult().runtime, version: "22.12.0-nightly20261124abcdef", spec: "node@path:/opt/node-nightly/bin/node", sha256: "b".repeat(64) },
    });
    const report = detectRegressions([release, canary]);
    const { changes, series } = report;
    assert.deepEqual(checkAgainst("regressions.schema.json", report), [], "the feed's schema allows a canary change");
    assert.deepEqual(
      changes.map((c) => [c.channel, c.kind, c.from_version, c.to_version, c.status]),
      [["canary", "regression", "22.11.0", "22.12.0-nightly20261124abcdef", "confirmed"]],
    );
    assert.match(changes[0]!.reason, /^canary build paired with release 22\.11\.0 in one run \(4 pairs of trials\)$/);
    assert.ok(series.every((s) => !s.versions.some((v) => v.includes("nightly"))), "the canary's version is in no series");
  });
});

describe("a figure set by the load generator, not the server", () => {
  /** An http/json-like result: rps per trial, measured with oha at full speed, oha out of CPU where `bound`. */
  function rpsResult(label: string, trials: readonly number[], bound: boolean): ResultDocument {
    const samples = [...trials];
    return makeResult({
      label,
      run: { trials: samples.length },
      metrics: { rps: { ...metricOf(samples, "req/s", "higher"), client_limited: "oha", trial_samples: samples.map(() => 1) } },
      details: { client_bound: bound, client_bound_by: bound ? ["oha"] : [] },
    });
  }
  const verdictOf = (base: ResultDocument, head: ResultDocument) => comparePaired([base], [head])[0]!;
  const node = [70_000, 71_000, 69_500, 70_500];
  const bun = [100_000, 101_000, 99_000, 100_500];

  it("two servers at one client's ceiling are not called equal", () => {
    const row = verdictOf(rpsResult("a", bun, true), rpsResult("b", bun.map((v) => v * 1.001), true));
    assert.equal(row.verdict, "inconclusive");
    assert.match(row.reason!, /both sides were client-bound \(oha/);
    // Unbound, the same figures are no change: the rule, not the figures, made it inconclusive.
    assert.equal(verdictOf(rpsResult("a", bun, false), rpsResult("b", bun.map((v) => v * 1.001), false)).verdict, "no significant change");
  });

  it("a bound side found better stays better: its server is at least that fast", () => {
    assert.equal(verdictOf(rpsResult("node", node, false), rpsResult("bun", bun, true)).verdict, "faster");
    assert.equal(verdictOf(rpsResult("bun", bun, true), rpsResult("node", node, false)).verdict, "slower");
  });

  it("a bound side found worse, or equal, decides nothing: its server may be faster than its figure", () => {
    const row = verdictOf(rpsResult("bun", bun, false), rpsResult("deno", node, true));
    assert.equal(row.verdict, "inconclusive");
    assert.match(row.reason!, /^HEAD was client-bound \(oha used all its CPU\)/);
    const even = verdictOf(rpsResult("a", bun, true), rpsResult("b", bun, false));
    assert.equal(even.verdict, "inconclusive");
    assert.match(even.reason!, /^BASE was client-bound/);
  });

  it("so are results of separate runs", () => {
    const inRun = (id: string, trials: readonly number[]) => {
      const doc = rpsResult("bun-1.4.5", trials, true);
      return { ...doc, label: undefined, run: { ...doc.run, id } } as ResultDocument;
    };
    const [row] = compareResults([inRun("20261101T000000Z-aaaaaa", bun)], [inRun("20261102T000000Z-bbbbbb", bun.map((v) => v * 1.3))]);
    assert.equal(row!.verdict, "inconclusive", JSON.stringify(row));
    assert.match(row!.reason!, /both sides were client-bound/);
  });

  it("a metric the client does not limit, or a client not named by the metric, is judged as usual", () => {
    const other = (label: string, trials: readonly number[]) => {
      const doc = rpsResult(label, trials, true);
      return { ...doc, details: { client_bound: true, client_bound_by: ["k6"] } };
    };
    assert.equal(verdictOf(other("a", bun), other("b", bun.map((v) => v * 1.001))).verdict, "no significant change");
  });
});
