/**
 * Which releases a history sweep measures, and the chain they make: each selected release beside
 * the one before it in the selection (docs/history.md).
 */
import semver from "semver";
import { UserError } from "../core/errors.ts";
import type { Release } from "../releases/published.ts";
import { releaseLine } from "../releases/select.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";

/** How finely a sweep samples the releases: the newest of each major, of each minor, or every release. */
export type Granularity = "major" | "minor" | "patch";

export interface ReleaseWindow {
  /** Releases published on or after this time. */
  readonly since?: Date;
  /** Versions at or above this one. */
  readonly from?: string;
  /** Versions at or below this one. */
  readonly to?: string;
}

export function parseGranularity(text: string | undefined): Granularity {
  if (text === undefined) return "minor";
  if (text === "major" || text === "minor" || text === "patch") return text;
  throw new UserError(`sweep: --every '${text}': use major, minor or patch`);
}

const groupOf = (version: string, every: Granularity) => {
  const v = semver.parse(version)!;
  return every === "major" ? `${v.major}` : every === "minor" ? `${v.major}.${v.minor}` : version;
};

/** Stable releases in the window, oldest first. */
export function windowed(releases: readonly Release[], window: ReleaseWindow): string[] {
  const versions = releases
    .filter((r) => semver.prerelease(r.version) === null)
    .filter((r) => window.since === undefined || r.published >= window.since)
    .map((r) => r.version)
    .filter((v) => (window.from === undefined || semver.gte(v, window.from)) && (window.to === undefined || semver.lte(v, window.to)));
  return semver.sort([...new Set(versions)]);
}

/**
 * The releases of one runtime a sweep measures, oldest first: of those in the window, the newest of
 * each group (major, minor, or every release), the first of each release line (Node's majors,
 * Deno's and Bun's minors: where features land), and every release of the newest minor (what
 * users are moving to now).
 */
export function selectReleases(runtime: RuntimeName, releases: readonly Release[], window: ReleaseWindow, every: Granularity): string[] {
  const versions = windowed(releases, window);
  if (versions.length === 0) return [];
  const chosen = new Set<string>();
  const newestOfGroup = new Map<string, string>();
  const firstOfLine = new Map<string, string>();
  for (const version of versions) {
    newestOfGroup.set(groupOf(version, every), version);
    const line = releaseLine(runtime, version);
    if (!firstOfLine.has(line)) firstOfLine.set(line, version);
  }
  for (const version of [...newestOfGroup.values(), ...firstOfLine.values()]) chosen.add(version);
  const newestMinor = groupOf(versions.at(-1)!, "minor");
  for (const version of versions) if (groupOf(version, "minor") === newestMinor) chosen.add(version);
  return semver.sort([...chosen]);
}

/** A runtime's release, as a sweep names one (`deno@2.9.6`). */
export interface RuntimeRelease {
  readonly runtime: RuntimeName;
  readonly version: string;
}

/** One link of a chain: a release measured beside the one before it in the selection, in one run. */
export interface ChainLink {
  readonly runtime: RuntimeName;
  /** The older release (the run's BASE). */
  readonly from: string;
  /** The newer release. */
  readonly to: string;
}

/** Each selected release beside the one before it: versions oldest first. */
export function chainLinks(runtime: RuntimeName, versions: readonly string[]): ChainLink[] {
  return versions.slice(1).map((to, i) => ({ runtime, from: versions[i]!, to }));
}

/** The stable releases strictly between a link's two, oldest first: where a step it shows may lie. */
export function releasesBetween(releases: readonly Release[], link: Pick<ChainLink, "from" | "to">): string[] {
  return windowed(releases, {}).filter((v) => semver.gt(v, link.from) && semver.lt(v, link.to));
}

/** `node 22.11.0 → 22.12.0` */
export const linkLabel = (link: Pick<ChainLink, "runtime" | "from" | "to">) => `${link.runtime} ${link.from} → ${link.to}`;
