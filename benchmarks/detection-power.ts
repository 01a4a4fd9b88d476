/**
 * How small a change the full profile can detect, and how often it raises a false alarm: series
 * simulated with each suite's full-profile trials at 1 %, 3 % and 10 % relative noise (see
 * benchmarks/lib/detection.ts for the model), judged by `detectRegressions` as the feed is.
 *
 *   scripts/benchmark detection-power [SERIES_PER_STEP] [SERIES_WITHOUT_STEP] [paired|separate] [quick] [SUITE[@TRIALS]...]
 *
 * `paired` (the default) is the release job's design: each version measured in one run with its
 * predecessor, with adaptive trials, and a step counts as detected only when it is confirmed at the
 * release itself (from the series as it stood that day). `separate` is the older design: each
 * version in its own run, a step confirmed by the next release.
 *
 * For each suite and noise level: the smallest step confirmed in at least 95 % of series (from a
 * ladder of steps, by bisection), and over the series without a step, the share of judged versions
 * with a confirmed change (a false alarm) and the share of series with at least one. Writes them
 * into the entry "detection-power" of docs/measurements.json (replacing the rows of the suites it
 * ran), with when, where and the load, and regenerates the documents made from it.
 *
 * `SUITE@TRIALS` asks what if that suite's full profile started at TRIALS trials (its cap moving
 * with it): printed, never recorded, since no profile measures it.
 *
 * `quick` simulates the quick profile's trials and samples instead, as a history sweep measures
 * each link (docs/history.md), and records into the entry "detection-power-quick".
 */
import type { DetectionPowerEntry, DetectionPowerRow } from "../src/core/measurements.ts";
import { adaptivePlan } from "../src/compare/sequential.ts";
import { formatTable } from "../src/ui/table.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import { FULL_PROFILE_SHAPES, QUICK_PROFILE_SHAPES, STEP_AT, VERSIONS, rates, smallestDetected, type Design } from "./lib/detection.ts";

const perStep = Number(process.argv[2] ?? 200);
const withoutStep = Number(process.argv[3] ?? 1000);
const design: Design = process.argv.slice(4).includes("separate") ? "separate" : "paired";
const profile = process.argv.slice(4).includes("quick") ? "quick" : "full";
const selected = process.argv.slice(4).filter((arg) => arg !== "separate" && arg !== "paired" && arg !== "quick");
const suites = selected.map((arg) => arg.split("@")[0]!);
const whatIf = new Map(selected.filter((arg) => arg.includes("@")).map((arg) => [arg.split("@")[0]!, Number(arg.split("@")[1])] as const));
const NOISE = [0.01, 0.03, 0.1];
const SEED = 1;

/** The quick profile's entry, the first time it is recorded: as the full profile's, titled for the sweep that uses it. */
const QUICK_ENTRY = {
  title: "Detection power of the quick profile (a history sweep's links)",
  benchmark: "scripts/benchmark detection-power [SERIES_PER_STEP] [SERIES_WITHOUT_STEP] paired quick [SUITE...]",
  notes: ["The simulation of the entry detection-power with the quick profile's trials and samples per trial: what a history sweep's paired link can confirm (docs/history.md)."],
  columns: { suite: "suite (quick profile)", design: "design", trials: "trials", noise: "noise (relative SD)", smallest_step: "smallest step confirmed in ≥ 95 % of series", false_alarms_per_version: "false alarms per judged version", series_with_false_alarm: "series with a false alarm" },
};

const percent = (fraction: number, digits = 1) => `${(fraction * 100).toFixed(digits)} %`;
const startLoad = loadNow();
const measured: DetectionPowerRow[] = [];
const shapes = (profile === "quick" ? QUICK_PROFILE_SHAPES : FULL_PROFILE_SHAPES).filter((s) => suites.length === 0 || suites.includes(s.suite)).map((s) => ({ ...s, trials: whatIf.get(s.suite) ?? s.trials }));
for (const shape of shapes) {
  for (const sd of NOISE) {
    const started = Date.now();
    const smallest = smallestDetected(shape, sd, perStep, SEED, design);
    const quiet = rates(shape, sd, 0, withoutStep, SEED + 1_000_000, design);
    measured.push({
      suite: shape.suite,
      design,
      trials: `${design === "paired" ? `${shape.trials} to ${adaptivePlan(shape.trials, shape.profile).looks.at(-1)}` : shape.trials} trials × ${shape.perTrial}`,
      noise: percent(sd, 0),
      smallest_step: smallest === null ? "none up to 200 %" : `${percent(smallest.step, 1)} (${smallest.rates.detected} of ${perStep})`,
      false_alarms_per_version: `${percent(quiet.falseAlarms / quiet.judgements, 2)} (${quiet.falseAlarms} of ${quiet.judgements})`,
      series_with_false_alarm: `${percent(quiet.seriesWithFalseAlarm / quiet.series, 1)} (${quiet.seriesWithFalseAlarm} of ${quiet.series})`,
    });
    process.stderr.write(`${shape.suite} at ${percent(sd, 0)}: ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
}
const rows = measured.map((r) => [`${r.suite} (${r.trials})`, r.noise, r.smallest_step, r.false_alarms_per_version, r.series_with_false_alarm]);
process.stdout.write(
  `${formatTable([`suite (${profile} profile)`, "noise (relative SD)", "smallest step confirmed in ≥ 95 %", "false alarms per judged version", "series with a false alarm"], rows)}\n\n` +
    `${VERSIONS} versions per series, ${design === "paired" ? "each in one run with its predecessor (adaptive trials), a step detected only if confirmed at the release itself" : "one run each"}, ` +
    `step from version ${STEP_AT + 1}; ${perStep} series per step tried, ${withoutStep} without a step.\n`,
);
if (whatIf.size > 0) {
  process.stdout.write(`What if ${[...whatIf].map(([suite, trials]) => `${suite} started at ${trials} trials`).join(", ")}: not recorded.\n`);
  process.exit(0);
}
const ran = new Set(measured.map((r) => r.suite));
const entryId = profile === "quick" ? "detection-power-quick" : "detection-power";
recordMeasurement(entryId, (entry) => {
  const old = (entry ?? { ...QUICK_ENTRY, rows: [] }) as DetectionPowerEntry;
  return { ...old, ...thisMachine(startLoad), rows: [...old.rows.filter((r) => !ran.has(r.suite) || r.design !== design), ...measured] };
});
