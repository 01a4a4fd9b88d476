/**
 * Confirmed changes read release by release, as Perfherder groups a push's alerts into one
 * summary: a reader asks what a release changed, not what each of hundreds of series did. The
 * regressions page, the Atom feed and `regressions`' own table show them this way.
 */
import { formatChange } from "../compare/format.ts";
import { compareVersions, groupBy } from "../compare/series-key.ts";
import { count } from "../ui/words.ts";
import type { SeriesChange } from "./types.ts";

/** The changes one pair of versions made on one runner: a release beside the one before it, a sweep's link, or a canary beside its release. */
export interface ReleaseChanges {
  /** Stable across feeds: runtime, versions, runner (and `canary`), as an HTML id and an Atom id. */
  readonly id: string;
  /** Its scenarios' headline metrics first, then the largest changes. */
  readonly changes: readonly SeriesChange[];
}

/** `release-node-22.6.0-22.7.0-bench-x64-1`: the id of the release a change belongs to. */
export const releaseId = (c: SeriesChange): string =>
  `release-${[c.runtime, c.from_version, c.to_version, c.runner, ...(c.channel ? [c.channel] : [])].join("-").replace(/[^A-Za-z0-9._-]/g, "-")}`;

/**
 * `changes` (newest first) by release: the runtimes in the order of their newest measurement, each
 * one's releases newest version first, so the release just measured leads and a history reads down
 * its versions.
 */
export function changesByRelease(changes: readonly SeriesChange[]): ReleaseChanges[] {
  const runtimes = [...new Set(changes.map((c) => c.runtime))];
  const size = (c: SeriesChange) => Math.abs(Math.log(c.ratio));
  const releases = [...groupBy(changes, releaseId)].map(([id, held]) => ({ id, changes: [...held].sort((a, b) => Number(b.headline) - Number(a.headline) || size(b) - size(a)) }));
  return releases.sort((x, y) => {
    const [a, b] = [x.changes[0]!, y.changes[0]!];
    return runtimes.indexOf(a.runtime) - runtimes.indexOf(b.runtime) || compareVersions(b.to_version, a.to_version) || compareVersions(b.from_version, a.from_version) || x.id.localeCompare(y.id);
  });
}

/** A release's changes of one kind on one scenario's headline metric. */
export interface HeadlineChange {
  readonly kind: SeriesChange["kind"];
  readonly first: SeriesChange;
  /** `+10.8 %`, or `+10.8 % to +17.3 % in 3 cells`. */
  readonly range: string;
}

/** What a release changed on its scenarios' headline metrics: one line per scenario and kind, in the release's order. */
export function headlineChanges(release: ReleaseChanges): HeadlineChange[] {
  return [...groupBy(release.changes.filter((c) => c.headline), (c) => `${c.suite}/${c.scenario} ${c.kind}`).values()].map((held) => {
    const ratios = held.map((c) => c.ratio).sort((a, b) => a - b);
    const range = ratios.length === 1 ? formatChange(ratios[0]!) : `${formatChange(ratios[0]!)} to ${formatChange(ratios.at(-1)!)} in ${ratios.length} cells`;
    return { kind: held[0]!.kind, first: held[0]!, range };
  });
}

/** `startup/hello wall_ms −20.0 % to −5.0 % in 3 cells (improvement)`: a headline change as the CLI and the feed name it. */
export const headlineText = ({ kind, first, range }: HeadlineChange): string => `${first.suite}/${first.scenario} ${first.metric} ${range} (${kind})`;

/** How many of `changes` are of a kind. */
export const ofKind = (changes: readonly SeriesChange[], kind: SeriesChange["kind"]): number => changes.filter((c) => c.kind === kind).length;

/** `2 regressions, 14 improvements`. */
export const kindCounts = (changes: readonly SeriesChange[]): string => (["regression", "improvement"] as const).map((kind) => count(ofKind(changes, kind), kind)).join(", ");
