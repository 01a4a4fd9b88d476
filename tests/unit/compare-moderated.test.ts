import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { digamma, fitSpreadPrior, MAX_PRIOR_DF, MIN_PRIOR_CELLS, moderate, trigamma, trigammaInverse, type CellSpread } from "../../src/compare/moderated.ts";
import { ruleLabel } from "../../src/compare/format.ts";
import { comparePaired } from "../../src/compare/paired.ts";
import { pairedEstimate, pairLogRatios, pairSpread, settled, SINGLE_LOOK_ALPHA } from "../../src/compare/sequential.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { seededRandom } from "../../src/stats/random.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

/** Standard normal draws from a seeded uniform (Box–Muller). */
function normals(seed: number): () => number {
  const uniform = seededRandom(seed);
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** A χ² draw with integer `df`: the sum of df squared normals. */
const chiSquare = (normal: () => number, df: number) => Array.from({ length: df }, () => normal() ** 2).reduce((a, b) => a + b, 0);

/**
 * One simulated cell of a quick run: `pairs` pairs of trials whose log ratios scatter with a true
 * variance drawn from a scaled inverse χ² (`priorDf` degrees of freedom, s0 = 8 %), around log(ratio).
 */
function simulatedCell(normal: () => number, ratio: number, pairs: number, priorDf: number): { base: number[][]; head: number[][] } {
  const sigma = Math.sqrt((0.08 ** 2 * priorDf) / chiSquare(normal, priorDf));
  const base = Array.from({ length: pairs }, () => [100 * Math.exp(0.2 * normal())]);
  const head = base.map(([b]) => [b! * ratio * Math.exp(sigma * normal())]);
  return { base, head };
}

describe("moderated spreads (Smyth's empirical Bayes)", () => {
  it("computes digamma, trigamma and its inverse to many places", () => {
    assert.ok(Math.abs(digamma(1) + 0.5772156649) < 1e-9, `ψ(1) ${digamma(1)}`);
    assert.ok(Math.abs(digamma(0.5) + 1.9635100260) < 1e-9, `ψ(0.5) ${digamma(0.5)}`);
    assert.ok(Math.abs(trigamma(1) - Math.PI ** 2 / 6) < 1e-9, `ψ'(1) ${trigamma(1)}`);
    assert.ok(Math.abs(trigamma(0.5) - Math.PI ** 2 / 2) < 1e-9, `ψ'(0.5) ${trigamma(0.5)}`);
    for (const x of [0.05, 0.5, 1.7, 3, 12, 250]) assert.ok(Math.abs(trigammaInverse(trigamma(x)) / x - 1) < 1e-6, `inverse at ${x}`);
  });

  it("recovers the prior its cells' spreads were drawn from, and pools spreads that agree up to its cap", () => {
    const normal = normals(7);
    // 2,000 cells of one degree of freedom each (two pairs), true variances from d0 = 6, s0² = 0.0064.
    const spreads: CellSpread[] = Array.from({ length: 2000 }, () => {
      const variance = (0.0064 * 6) / chiSquare(normal, 6);
      return { variance: (variance * chiSquare(normal, 1)) / 1, df: 1 };
    });
    const prior = fitSpreadPrior(spreads)!;
    // One standard error to the cautious side: d0 below the true 6, never above it.
    assert.ok(prior.df > 2.5 && prior.df <= 6, `d0 ${prior.df}`);
    assert.ok(Math.abs(prior.variance / 0.0064 - 1) < 0.3, `s0² ${prior.variance}`);
    assert.equal(prior.cells, 2000);
    // Every cell with the same true variance: nothing scatters beyond sampling, so d0 is what the cells hold together.
    const same = Array.from({ length: 40 }, () => ({ variance: 0.01 * chiSquare(normal, 3) / 3, df: 3 }));
    assert.equal(fitSpreadPrior(same)!.df, MAX_PRIOR_DF);
    assert.equal(fitSpreadPrior(same.slice(0, MIN_PRIOR_CELLS - 1)), null, "too few cells to say anything of the others");
    assert.equal(fitSpreadPrior([...same.slice(0, MIN_PRIOR_CELLS - 1), { variance: 0, df: 1 }]), null, "a cell with no spread says nothing of the scale");
    const moderated = moderate({ variance: 0.04, df: 1 }, { df: 3, variance: 0.01, cells: 9 });
    assert.deepEqual(moderated, { variance: (3 * 0.01 + 0.04) / 4, df: 4 });
  });

  for (const priorDf of [2, 4, 20]) {
    it(`keeps a single look's false alarms near 5 % on A/A cells of two pairs whose spreads differ (d0 = ${priorDf}), and calls a 1.5× gap the plain t cannot`, () => {
      const normal = normals(11 + priorDf);
      const runs = 300;
      const cellsPerRun = 20;
      let alarms = 0;
      let plainCalls = 0;
      let moderatedCalls = 0;
      for (let run = 0; run < runs; run++) {
        const cells = Array.from({ length: cellsPerRun }, (_, i) => simulatedCell(normal, i === 0 ? 1.5 : 1, 2, priorDf));
        const prior = fitSpreadPrior(cells.map(({ base, head }) => pairSpread(pairLogRatios(base, head)!)));
        assert.ok(prior !== null);
        cells.forEach(({ base, head }, i) => {
          const moderated = settled(pairedEstimate(base, head, SINGLE_LOOK_ALPHA, prior)!, 0.01);
          if (i > 0 && moderated === "change") alarms++;
          if (i === 0 && moderated === "change") moderatedCalls++;
          if (i === 0 && settled(pairedEstimate(base, head, SINGLE_LOOK_ALPHA)!, 0.01) === "change") plainCalls++;
        });
      }
      const rate = alarms / (runs * (cellsPerRun - 1));
      assert.ok(rate > 0.03 && rate < 0.065, `false alarms ${(rate * 100).toFixed(2)} %`);
      assert.ok(moderatedCalls / runs > 0.8, `moderated calls the 1.5× gap in ${moderatedCalls} of ${runs}`);
      assert.ok(plainCalls / runs < 0.5, `two pairs alone call it in ${plainCalls} of ${runs}`);
    });
  }
});

/** One cell (scenario `name`) of subject `label` in one run: its trials' samples of one metric. */
function cellResult(label: string, name: string, trials: readonly (readonly number[])[], exact = false): ResultDocument {
  return makeResult({
    label,
    scenario: name,
    run: { trials: trials.length },
    metrics: { wall_ms: { ...metricOf(trials.flat()), trial_samples: trials.map((t) => t.length), ...(exact ? { exact: true } : {}) } },
  });
}

describe("comparePaired with moderated spreads", () => {
  // Ten cells of one suite, two trials each; HEAD 1.6× slower in cell 0, the same elsewhere, every pair off by a few %.
  const wobble = [1.04, 0.97, 1.02, 0.95, 1.05, 0.98, 1.01, 0.96, 1.03, 0.99];
  const base = wobble.map((_, i) => cellResult("node", `cell-${i}`, [[100], [110]]));
  const head = wobble.map((w, i) => cellResult("bun", `cell-${i}`, [[100 * (i === 0 ? 1.6 : 1) * w], [110 * (i === 0 ? 1.6 : 1) / w]]));

  it("calls a 1.6× gap of two pairs a change once its suite's other cells lend their spread, and says so", () => {
    const rows = comparePaired(base, head);
    const gap = rows.find((row) => row.scenario === "cell-0")!;
    assert.equal(gap.verdict, "slower");
    assert.equal(gap.moderated_over, 10);
    assert.ok(gap.df! > 1, `df ${gap.df}`);
    assert.match(ruleLabel(gap), /^95 % single look, 2 pairs, \d+\.\d df moderated over 10 cells$/);
    const [alone] = comparePaired(base.slice(0, 1), head.slice(0, 1));
    assert.deepEqual([alone!.verdict, alone!.df, alone!.moderated_over], ["inconclusive", undefined, undefined], "one cell alone has 1 degree of freedom: t = 12.7");
  });

  it("fits a metric's own cells where there are enough of them, else the suite's", () => {
    // Five cells of wall_ms and five of cpu_s: neither metric has 8 cells with a spread, the suite has 10.
    const twoMetrics = (label: string, factor: (i: number) => number) =>
      wobble.slice(0, 5).map((_, i) =>
        makeResult({
          label,
          scenario: `cell-${i}`,
          run: { trials: 2 },
          metrics: {
            wall_ms: { ...metricOf([100 * factor(i), 110 / factor(i)]), trial_samples: [1, 1] },
            cpu_s: { ...metricOf([50 * factor(i + 5), 55 / factor(i + 5)], "s"), trial_samples: [1, 1] },
          },
        }),
      );
    const rows = comparePaired(twoMetrics("node", () => 1), twoMetrics("bun", (i) => wobble[i]!));
    assert.deepEqual([...new Set(rows.map((row) => row.moderated_over))], [10], "the suite's ten cells");
    assert.ok(comparePaired(base, head).every((row) => row.moderated_over === 10), "wall_ms alone has ten");
  });

  it("leaves exact counts and the release job's sequential rule to their own spread", () => {
    const exactBase = wobble.map((_, i) => cellResult("node", `cell-${i}`, [[100], [110]], true));
    const exactHead = wobble.map((w, i) => cellResult("bun", `cell-${i}`, [[100 * w], [110 / w]], true));
    assert.ok(comparePaired(exactBase, exactHead).every((row) => row.moderated_over === undefined));
    assert.ok(comparePaired(base, head, { pairedRule: "sequential" }).every((row) => row.moderated_over === undefined && row.rule === "sequential"));
  });
});
