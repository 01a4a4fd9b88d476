/**
 * What stopping for futility would have done to the history already measured: each load point of
 * `data/` that paired two releases of one runtime with adaptive trials (before the rule existed) is
 * judged again at each of its looks before the one it stopped at, with the trials it had then; the
 * first look at which all its undecided pairs are futile is where the rule stops it. Counted per
 * suite: the points it stops, the trials they would have run instead of those they ran, and the
 * verdicts lost: metrics the trials to the cap decided (a change, or no change) that the stop
 * leaves undecided, a headline metric's among them, and points the cap decided whole.
 *
 *   scripts/benchmark futility-replay [DATA_DIR] [--no-record]
 *
 * Writes the entry "futility-replay" of docs/measurements.json (a replay of recorded trials: the
 * load does not enter) and regenerates the documents made from it; --no-record only prints the table.
 */
import { parseArgs } from "node:util";
import { splitTrials } from "../src/compare/ratio.ts";
import { PAIRED_MIN_EFFECT, pairLogRatios, recordedPlan, standingAtLook } from "../src/compare/sequential.ts";
import { groupBy } from "../src/compare/series-key.ts";
import { paramsSlug } from "../src/core/params.ts";
import { REPO_ROOT } from "../src/core/paths.ts";
import { layoutResultFiles, readDocuments } from "../src/results/store.ts";
import type { ResultDocument } from "../src/results/types.ts";
import { formatTable } from "../src/ui/table.ts";
import { recordMeasurement, thisMachine } from "./lib/measurements.ts";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { "no-record": { type: "boolean" } } });
const dataDir = positionals[0] ?? `${REPO_ROOT}/data`;

interface Tally {
  points: number;
  futile: number;
  futileFirst: number;
  trials: number;
  trialsWithFutility: number;
  verdictsLost: number;
  headlineLost: number;
  pointsLost: number;
}

/** Each metric of a pair at `trials` trials, where it stands at look `k` as the schedule judges it (a metric with no ratio decides nothing: decided). */
function judgedAt(base: ResultDocument, head: ResultDocument, trials: number, k: number) {
  return Object.keys(base.metrics).map((metric) => {
    const side = (doc: ResultDocument) => splitTrials(doc.metrics[metric]!.samples, doc.metrics[metric]!.trial_samples ?? []).slice(0, trials);
    const logRatios = pairLogRatios(side(base), side(head));
    return { metric, standing: logRatios === null ? "decided" : standingAtLook(logRatios, recordedPlan(base.sequential!), k, PAIRED_MIN_EFFECT) };
  });
}

/** A point of one run: its two releases of one runtime, or null where it is not such a pair. */
const pairOf = (docs: readonly ResultDocument[]) => (docs.length === 2 && docs.every((doc) => doc.status === "ok" && doc.sequential !== undefined) ? docs : null);

const docs = readDocuments(layoutResultFiles(dataDir), dataDir);
const points = groupBy(docs, (doc) => [doc.run.runner, doc.run.id, doc.suite, doc.scenario, doc.app ?? "-", paramsSlug(doc.params), doc.runtime.name].join(" "));
const tallies = new Map<string, Tally>();
for (const group of points.values()) {
  const pair = pairOf(group);
  if (pair === null) continue;
  const [base, head] = pair as [ResultDocument, ResultDocument];
  const plan = recordedPlan(base.sequential!);
  const trials = Math.min(base.run.trials, head.run.trials);
  const stoppedAt = plan.looks.filter((look) => look <= trials).length - 1;
  const final = judgedAt(base, head, trials, stoppedAt);
  const tally = tallies.get(base.suite) ?? { points: 0, futile: 0, futileFirst: 0, trials: 0, trialsWithFutility: 0, verdictsLost: 0, headlineLost: 0, pointsLost: 0 };
  tallies.set(base.suite, tally);
  tally.points++;
  tally.trials += 2 * trials;
  const futileAt = plan.looks.slice(0, stoppedAt).findIndex((look, k) => {
    const undecided = judgedAt(base, head, look, k).filter((m) => m.standing !== "decided");
    return undecided.length > 0 && undecided.every((m) => m.standing === "futile");
  });
  if (futileAt < 0) {
    tally.trialsWithFutility += 2 * trials;
    continue;
  }
  const look = plan.looks[futileAt]!;
  tally.futile++;
  if (futileAt === 0) tally.futileFirst++;
  tally.trialsWithFutility += 2 * look;
  const lost = judgedAt(base, head, look, futileAt)
    .filter((m) => m.standing === "futile")
    .filter((m) => final.find((f) => f.metric === m.metric)!.standing === "decided");
  tally.verdictsLost += lost.length;
  tally.headlineLost += lost.filter((m) => m.metric === Object.keys(base.metrics)[0]).length;
  if (final.every((m) => m.standing === "decided")) tally.pointsLost++;
}

const total = [...tallies.values()].reduce((sum, t) => Object.fromEntries(Object.entries(sum).map(([key, value]) => [key, value + t[key as keyof Tally]])) as unknown as Tally);
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`;
const rowOf = (suite: string, t: Tally) => ({
  suite,
  points: t.points,
  futile: `${t.futile} (${percent(t.futile, t.points)}), ${t.futileFirst} at the first look`,
  trials: `${t.trials} → ${t.trialsWithFutility} (${percent(t.trialsWithFutility, t.trials)})`,
  verdicts_lost: t.verdictsLost,
  headline_lost: t.headlineLost,
  points_lost: t.pointsLost,
});
const rows = [...[...tallies].sort(([a], [b]) => a.localeCompare(b)).map(([suite, t]) => rowOf(suite, t)), rowOf("all", total)];
const columns = {
  suite: "suite",
  points: "load points paired by adaptive trials",
  futile: "stopped for futility",
  trials: "trials run → with futility",
  verdicts_lost: "metric verdicts lost",
  headline_lost: "of them a headline metric's",
  points_lost: "points the cap decided whole, stopped",
};
process.stdout.write(`${formatTable(Object.values(columns), rows.map((row) => Object.keys(columns).map((key) => String(row[key as keyof typeof row]))))}\n`);

if (!values["no-record"]) {
  const { when, where } = thisMachine(0);
  recordMeasurement("futility-replay", () => ({
    title: "Stopping for futility, replayed on the history",
    benchmark: "scripts/benchmark futility-replay",
    when: when.slice(0, 10),
    where,
    load: "not relevant: a replay of recorded trials",
    summary: [{ measure: "trials of data/'s paired load points that stopping for futility (chance of a verdict at the cap under 10 %) would have run, and the metric verdicts it would have lost", row: rows.length - 1, figure: "{trials}; {verdicts_lost} lost, {headline_lost} of a headline metric" }],
    notes: [
      `Every load point of data/ that paired two releases of one runtime with adaptive trials, measured before the rule existed, judged again at each look before the one it stopped at with the trials it had then (${docs.length} results). A lost verdict is a metric the trials to the cap decided (a change, or no change) that the futile stop leaves undecided. Trials count both sides.`,
    ],
    columns,
    rows,
  }));
}
