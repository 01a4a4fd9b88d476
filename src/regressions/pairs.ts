/**
 * Pairs of a series' versions measured beside each other in one run (a release job's release and
 * its predecessor, a sweep's link or half), and how the feed judges them: the release job's
 * question, whatever the labels. Also what a change's halves said, where a sweep split its releases.
 */
import semver from "semver";
import { formatChange } from "../compare/format.ts";
import { pairedRow } from "../compare/paired.ts";
import { formatInterval } from "../compare/verdict.ts";
import { paramsSlug } from "../core/params.ts";
import { groupBy, type Measurement } from "../compare/series-key.ts";
import type { CompareRow } from "../compare/types.ts";
import { logHalfWidth } from "../stats/paired.ts";
import { runRef, type Series, type VersionPoint } from "./series.ts";
import type { MeasuredHalf, SeriesChange, SeriesIdentity } from "./types.ts";

/** A pair of the series' versions measured in one run: the newest such run (indexes of its points). */
export interface MeasuredPair {
  readonly from: number;
  readonly to: number;
  readonly base: Measurement;
  readonly head: Measurement;
}

/** The sequential rule, as for a release beside its predecessor. */
export const judgePaired = (paired: { base: Measurement; head: Measurement }): CompareRow => pairedRow(paired.base, paired.head, { rule: "sequential" });

/** Every pair of the series' versions measured in one run, by `from to` (indexes of its points), the newest run of each. */
export function measuredPairs(points: readonly VersionPoint[]): Map<string, MeasuredPair> {
  const newest = new Map<string, MeasuredPair>();
  const sidesOfRuns = points.flatMap((point, index) => point.runs.map((measurement) => ({ index, measurement })));
  for (const sides of groupBy(sidesOfRuns, (side) => runRef(side.measurement)).values()) {
    if (sides.length !== 2) continue;
    const [base, head] = sides[0]!.index < sides[1]!.index ? [sides[0]!, sides[1]!] : [sides[1]!, sides[0]!];
    const key = `${base.index} ${head.index}`;
    const known = newest.get(key);
    if (known === undefined || known.head.doc.run.started_at < head.measurement.doc.run.started_at) newest.set(key, { from: base.index, to: head.index, base: base.measurement, head: head.measurement });
  }
  return newest;
}

/** A cell on one runner, whatever its machine: where a sweep's halves may lie when its host changed between the link and its narrowing. */
const cellOnRunner = (s: SeriesIdentity) => [s.runner, s.runtime, s.suite, s.scenario, s.scenario_version, s.app ?? "-", paramsSlug(s.params), s.metric].join(" ");

/**
 * Each paired change whose two versions have a version between measured beside both ends (on its
 * runner, on any of its machines) with the two halves, split at the middle such version, and what
 * each said. A half that showed the change the same way would have replaced it (narrowed.ts), so
 * the halves say why it stands on its wider pair: neither shows it alone. Where the halves together
 * contradict it, it is no longer confirmed (`didNotRepeat`).
 */
export function withHalves(changes: readonly SeriesChange[], series: readonly Series[]): SeriesChange[] {
  const pairsOfCell = new Map<string, Map<string, { from: string; to: string; base: Measurement; head: Measurement }>>();
  for (const one of series) {
    const pairs = pairsOfCell.get(cellOnRunner(one.identity)) ?? new Map();
    pairsOfCell.set(cellOnRunner(one.identity), pairs);
    for (const pair of measuredPairs(one.points).values()) {
      const [from, to] = [one.points[pair.from]!.version, one.points[pair.to]!.version];
      const known = pairs.get(`${from} ${to}`);
      if (known === undefined || known.head.doc.run.started_at < pair.head.doc.run.started_at) pairs.set(`${from} ${to}`, { from, to, base: pair.base, head: pair.head });
    }
  }
  return changes.map((change) => {
    const pairs = pairsOfCell.get(cellOnRunner(change));
    if (change.compare_command === undefined || change.channel === "canary" || pairs === undefined) return change;
    const { from_version: from, to_version: to } = change;
    if (semver.valid(from) === null || semver.valid(to) === null) return change;
    const splits = [...new Set([...pairs.values()].map((pair) => pair.to))]
      .filter((version) => semver.valid(version) !== null && semver.gt(version, from) && semver.lt(version, to) && pairs.has(`${from} ${version}`) && pairs.has(`${version} ${to}`))
      .sort(semver.compare);
    if (splits.length === 0) return change;
    const middle = splits[Math.floor((splits.length - 1) / 2)]!;
    const half = (measured: { from: string; to: string; base: Measurement; head: Measurement }): MeasuredHalf => {
      const row = judgePaired(measured);
      return { from_version: measured.from, to_version: measured.to, ratio: row.ratio, ci95: row.ci95, verdict: row.verdict };
    };
    const halves: [MeasuredHalf, MeasuredHalf] = [half(pairs.get(`${from} ${middle}`)!), half(pairs.get(`${middle} ${to}`)!)];
    const contradiction = change.status === "confirmed" ? didNotRepeat(change, halves) : null;
    return contradiction === null ? { ...change, halves } : { ...change, halves, status: "unconfirmed", reason: contradiction };
  });
}

/**
 * Why a change's own run is contradicted by its halves' runs, or null where they agree: the halves
 * multiplied, their interval compounded as a chain's links are, lie apart from the change's
 * interval. One run's paired ratio that the next runs over the same releases do not repeat is no
 * confirmed step.
 */
function didNotRepeat(change: SeriesChange, [first, second]: readonly [MeasuredHalf, MeasuredHalf]): string | null {
  if (first.ratio === null || second.ratio === null || first.ci95 === null || second.ci95 === null) return null;
  const log = Math.log(first.ratio) + Math.log(second.ratio);
  const half = Math.hypot(logHalfWidth(first.ci95), logHalfWidth(second.ci95));
  const compounded: [number, number] = [Math.exp(log - half), Math.exp(log + half)];
  if (!Number.isFinite(log) || !Number.isFinite(half) || (compounded[0] <= change.ci95[1] && change.ci95[0] <= compounded[1])) return null;
  return `did not repeat: ${formatChange(change.ratio)} ${formatInterval(change.ci95)} in its run, but its halves (${first.from_version} → ${first.to_version}, ${second.from_version} → ${second.to_version}), each paired in a run of its own, compound to ${formatChange(Math.exp(log))} ${formatInterval(compounded)}`;
}
