/**
 * The corpus of changes the runtime teams documented (docs/known-changes.json, checked against
 * schemas/known-changes.schema.json by benchmarks/lib/known-changes.ts and its test): what a
 * step between two releases can be matched to, so that compare, the feed and the findings name
 * the documented change beside the verdict and link its source. Imports only JSON: the site's
 * browser bundle uses it too.
 */
import corpus from "../../docs/known-changes.json" with { type: "json" };
import type { ParamValue } from "./params.ts";

export type Direction = "faster" | "slower" | "no change";

export interface KnownChange {
  readonly id: string;
  readonly kind: "change" | "control";
  readonly runtime: "node" | "deno" | "bun";
  readonly base: string;
  readonly head: string;
  readonly cell: {
    readonly suite: string;
    readonly scenario: string;
    readonly app?: string;
    readonly params?: Readonly<Record<string, ParamValue>>;
    readonly profile_params?: Partial<Record<"quick" | "full", Readonly<Record<string, ParamValue>>>>;
    readonly metric: string;
  };
  readonly documented: {
    readonly direction: Direction;
    /** How many times better or worse the team's own measure became; none for a control. */
    readonly factor?: number;
    readonly measure: string;
    readonly source: { readonly repository: string; readonly pull?: number; readonly issue?: number; readonly release_notes?: string; readonly url?: string };
  };
  readonly path: string;
}

export const KNOWN_CHANGES: readonly KnownChange[] = corpus.entries as KnownChange[];

/** A documented change as a row or a feed entry names it. */
export interface DocumentedChange {
  readonly id: string;
  readonly direction: Direction;
  readonly factor: number | null;
  /** What the team measured, in its own terms. */
  readonly measure: string;
  /** `nodejs/node#48658`, or the release notes' section. */
  readonly source: string;
  readonly url: string;
}

/** The source as a reader follows it: the pull request or issue, else the release notes' address. */
function sourceOf({ source }: KnownChange["documented"]): { source: string; url: string } {
  const number = source.pull ?? source.issue;
  const github = `https://github.com/${source.repository}/${source.pull !== undefined ? "pull" : "issues"}/${number}`;
  if (number !== undefined) return { source: `${source.repository}#${number}`, url: source.url ?? github };
  return { source: source.release_notes ?? source.repository, url: source.url ?? `https://github.com/${source.repository}/releases` };
}

/** `22.11.0` as numbers; null for a pre-release or a build (a canary is no release of the corpus). */
function releaseNumbers(version: string): number[] | null {
  return /^\d+\.\d+\.\d+$/.test(version) ? version.split(".").map(Number) : null;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** A step of one cell between two versions of one runtime, as a compare row or a feed entry has it. */
export interface Step {
  readonly runtime: string;
  readonly from: string;
  readonly to: string;
  readonly suite: string;
  readonly scenario: string;
  readonly app: string | null;
  readonly params: Readonly<Record<string, ParamValue>>;
  readonly metric: string;
}

/**
 * The documented changes a step between `from` and `to` (oldest first) takes in: the same runtime
 * and cell (scenario, app, the entry's load point, its metric), made in a release after `from`
 * and no later than `to`. Controls document no change, so none is named.
 */
export function documentedChanges(step: Step): DocumentedChange[] {
  const from = releaseNumbers(step.from);
  const to = releaseNumbers(step.to);
  if (from === null || to === null || compareVersions(from, to) >= 0) return [];
  return KNOWN_CHANGES.filter((entry) => {
    const { cell } = entry;
    if (entry.kind !== "change" || entry.runtime !== step.runtime || cell.suite !== step.suite || cell.scenario !== step.scenario) return false;
    if ((cell.app ?? null) !== step.app || cell.metric !== step.metric) return false;
    if (!Object.entries(cell.params ?? {}).every(([key, value]) => step.params[key] === value)) return false;
    const head = releaseNumbers(entry.head)!;
    return compareVersions(head, from) > 0 && compareVersions(head, to) <= 0;
  }).map((entry) => ({
    id: entry.id,
    direction: entry.documented.direction,
    factor: entry.documented.factor ?? null,
    measure: entry.documented.measure,
    ...sourceOf(entry.documented),
  }));
}

/** `nodejs/node#48658: faster ×1.73`, for a line of text. */
export function describeDocumented(change: DocumentedChange): string {
  return `${change.source}: ${change.direction}${change.factor === null ? "" : ` ×${change.factor}`}`;
}
