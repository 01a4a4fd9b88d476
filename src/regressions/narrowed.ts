/**
 * A step a history sweep narrowed to its release (docs/history.md) was first seen on a wider pair
 * of releases, the sweep's link. On one machine the feed only pairs neighbouring versions, so the
 * link is no pair of its own; but where the narrowing ran on another machine than the link (a
 * testbed whose host changed), each machine's series shows one of them. The narrower one names the
 * release and is the entry; the wider one is named in it.
 */
import semver from "semver";
import { paramsSlug } from "../core/params.ts";
import { groupBy } from "../compare/series-key.ts";
import type { ReleasesBetween, SeriesChange } from "./types.ts";

/** Runner, runtime, cell and direction: what a change and its narrowing have in common, whatever the machine's fingerprint. */
const sameStep = (c: SeriesChange) => [c.runner, c.runtime, c.suite, c.scenario, c.scenario_version, c.app ?? "-", paramsSlug(c.params), c.metric, c.kind].join(" ");

/** Whether `inner`'s two releases lie within `outer`'s, and are not the same two. */
function within(inner: SeriesChange, outer: SeriesChange): boolean {
  const valid = [inner.from_version, inner.to_version, outer.from_version, outer.to_version].every((v) => semver.valid(v) !== null);
  if (!valid || (inner.from_version === outer.from_version && inner.to_version === outer.to_version)) return false;
  return semver.gte(inner.from_version, outer.from_version) && semver.lte(inner.to_version, outer.to_version);
}

/** Confirmed paired changes of a release, without the wider ones a narrower change of the same step lies within. */
export function withoutNarrowed(changes: readonly SeriesChange[]): SeriesChange[] {
  const paired = (c: SeriesChange) => c.status === "confirmed" && c.compare_command !== undefined;
  // Grouped once: the feed of a two-year history holds thousands of confirmed changes, and matching each against all the others took most of its time.
  const byStep = groupBy(changes.filter(paired), sameStep);
  return changes.flatMap((change) => {
    if (!paired(change)) return [change];
    const sameSteps = byStep.get(sameStep(change))!;
    if (sameSteps.some((other) => within(other, change))) return [];
    const wider = sameSteps.filter((other) => within(change, other)).map((other) => `${other.from_version} → ${other.to_version}`);
    return [wider.length === 0 ? change : { ...change, narrowed_from: wider }];
  });
}

/**
 * The published releases strictly between a change's two versions. A sweep measures a chain of
 * sampled releases and narrows a step down to adjacent ones; a link or half it could not narrow
 * shows here as the releases the change may have come with. Null where the runtime's releases are
 * not known or a version is no release (a canary).
 */
export function releasesBetween(change: Pick<SeriesChange, "runtime" | "runner" | "from_version" | "to_version">, published: ReadonlyMap<string, readonly string[]>): ReleasesBetween | null {
  const releases = published.get(`${change.runtime}@${change.runner}`) ?? published.get(change.runtime);
  if (releases === undefined || semver.valid(change.from_version) === null || semver.valid(change.to_version) === null) return null;
  const between = releases.filter((v) => semver.gt(v, change.from_version) && semver.lt(v, change.to_version)).sort(semver.compare);
  return between.length === 0 ? { releases: 0 } : { releases: between.length, first: between[0]!, last: between.at(-1)! };
}
