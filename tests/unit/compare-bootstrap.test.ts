import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ratioOfMedians, trialClusters, pooledMedian } from "../../src/compare/ratio.ts";
import type { Measurement } from "../../src/compare/series-key.ts";
import { Z975, t975 } from "../../src/compare/student-t.ts";
import { seedFrom, seededRandom } from "../../src/stats/random.ts";
import { BOOTSTRAP_RESAMPLES, quantileSorted } from "../../src/stats/summary.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

/** The bootstrap written plainly: copy each resample, sort it, take the middle (or the mean of the two middle values). */
function plainRatioOfMedians(base: readonly Measurement[], head: readonly Measurement[]): { ratio: number; ci95: [number, number] } {
  const baseClusters = base.flatMap(trialClusters);
  const headClusters = head.flatMap(trialClusters);
  const random = seededRandom(seedFrom([...baseClusters.flat(), ...headClusters.flat()]));
  const resampleMedian = (clusters: number[][]) => {
    const drawn: number[] = [];
    for (let c = 0; c < clusters.length; c++) {
      const cluster = clusters[Math.floor(random() * clusters.length)]!;
      for (let i = 0; i < cluster.length; i++) drawn.push(cluster[Math.floor(random() * cluster.length)]!);
    }
    drawn.sort((a, b) => a - b);
    const k = (drawn.length - 1) >> 1;
    return drawn.length % 2 === 1 ? drawn[k]! : (drawn[k]! + drawn[k + 1]!) / 2;
  };
  const ratios: number[] = [];
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    const headMedian = resampleMedian(headClusters);
    ratios.push(headMedian / resampleMedian(baseClusters));
  }
  ratios.sort((a, b) => a - b);
  const ratio = pooledMedian(head) / pooledMedian(base);
  const widen = t975(baseClusters.length + headClusters.length - 2) / Z975;
  const expand = (bound: number) => ratio * (bound / ratio) ** widen;
  return { ratio, ci95: [expand(quantileSorted(ratios, 0.025)), expand(quantileSorted(ratios, 0.975))] };
}

function measurement(samples: number[], trials: number): Measurement {
  const doc = makeResult({ run: { trials }, metrics: { wall_ms: metricOf(samples) } });
  return { doc, metric: "wall_ms", summary: doc.metrics.wall_ms! };
}

describe("compare: the bootstrap of the ratio of medians", () => {
  it("gives exactly the interval of the plain sort-based bootstrap, ties, odd and even counts and uneven trials included", () => {
    const random = seededRandom(7);
    for (let c = 0; c < 25; c++) {
      const side = () =>
        Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
          const trials = 1 + Math.floor(random() * 4);
          const perTrial = 1 + Math.floor(random() * 9);
          // Now and then one sample too many, so the trials do not split evenly and every sample is its own cluster.
          const count = trials * perTrial + (random() < 0.2 ? 1 : 0);
          const ties = random() < 0.4;
          return measurement(Array.from({ length: count }, () => (ties ? 1 + Math.round(random() * 4) : 10 + random())), trials);
        });
      const base = side();
      const head = side();
      assert.deepEqual(ratioOfMedians(base, head), plainRatioOfMedians(base, head), `case ${c}`);
    }
  });
});
