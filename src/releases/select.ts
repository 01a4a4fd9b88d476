import semver from "semver";
import { UserError } from "../core/errors.ts";
import { RUNTIME_NAMES, type Arch, type RuntimeName } from "../runtimes/catalog.ts";
import { pickVersion, type RuntimeSpec } from "../runtimes/spec.ts";
import type { Benchmarked } from "./benchmarked.ts";
import type { Release } from "./published.ts";
import type { BenchRunner } from "./runners.ts";

/** Release lines shown when a runner has no result of a runtime yet, so a first watch stays small. */
export const DEFAULT_LINES = 3;

/**
 * Which releases a runtime named without a version stands for:
 * - `since-last-benchmark`: those published after the newest release already benchmarked on that
 *   runner, on the lines it tracks (the oldest line it has results for, and every newer one); on a
 *   runner with no result of the runtime yet, the newest release of the newest `fallbackLines` lines;
 * - `since`: those published at or after a date;
 * - `lines`: the newest release of each of the newest `count` lines.
 */
export type Window =
  | { readonly kind: "since-last-benchmark"; readonly fallbackLines: number }
  | { readonly kind: "since"; readonly date: Date }
  | { readonly kind: "lines"; readonly count: number };

/** A runtime asked for: a bare name (a window of releases) or a spec that names one version. */
export type RuntimeRequest =
  | { readonly kind: "window"; readonly name: RuntimeName }
  | { readonly kind: "spec"; readonly spec: RuntimeSpec };

export interface SelectionInput {
  readonly runners: readonly BenchRunner[];
  readonly requests: readonly RuntimeRequest[];
  /** Published releases of a runtime's package for an architecture (pre-releases included). */
  readonly releases: (runtime: RuntimeName, arch: Arch) => readonly Release[];
  readonly benchmarked: Benchmarked;
  readonly window: Window;
  readonly prereleases: boolean;
  /** Drop the (version, runner) pairs that already have results. */
  readonly missingOnly: boolean;
  /** Give each planned version its predecessor (`predecessorOf`), measured beside it in the same job. */
  readonly withPredecessor?: boolean;
}

/** One benchmark job: a runtime version on a runner. */
export interface PlannedBenchmark {
  readonly runtime: RuntimeName;
  readonly version: string;
  readonly published: Date;
  readonly runner: BenchRunner;
  /** The release measured beside it in the same run (`withPredecessor`); null when not asked for or when there is none. */
  readonly predecessor: string | null;
  /** Only these scenarios (`suite/name`) of the runner's work: the cells a backfill still lacks (src/releases/cells.ts). */
  readonly scenarios?: readonly string[];
}

export interface Selection {
  readonly planned: PlannedBenchmark[];
  /** Why a requested version is left out on some runner (not published for its architecture). */
  readonly notes: string[];
}

/**
 * Node ships several majors side by side, so its line is the major; Deno and Bun ship one line at
 * a time, and each of their minors is a feature release.
 */
export function releaseLine(runtime: RuntimeName, version: string): string {
  const parsed = semver.parse(version);
  if (!parsed) throw new Error(`not a semver version: ${version}`);
  return runtime === "node" ? `${parsed.major}` : `${parsed.major}.${parsed.minor}`;
}

/** The first version of a release line (`24.0.0`, `2.1.0`), so lines compare as versions. */
function lineStart(runtime: RuntimeName, version: string): string {
  const line = releaseLine(runtime, version);
  return runtime === "node" ? `${line}.0.0` : `${line}.0`;
}

/** The newest release of each of the newest `count` lines; `releases` is newest first. */
function newestOfLines(runtime: RuntimeName, releases: readonly Release[], count: number): Release[] {
  const newestPerLine = new Map<string, Release>();
  for (const release of releases) {
    const line = releaseLine(runtime, release.version);
    if (!newestPerLine.has(line)) newestPerLine.set(line, release);
  }
  return [...newestPerLine.values()].slice(0, count);
}

function inWindow(runtime: RuntimeName, releases: readonly Release[], done: ReadonlySet<string>, window: Window): Release[] {
  switch (window.kind) {
    case "since":
      return releases.filter((r) => r.published >= window.date);
    case "lines":
      return newestOfLines(runtime, releases, window.count);
    case "since-last-benchmark": {
      const benchmarked = releases.filter((r) => done.has(r.version));
      if (benchmarked.length === 0) return newestOfLines(runtime, releases, window.fallbackLines);
      const last = Math.max(...benchmarked.map((r) => r.published.getTime()));
      // Without this floor, a patch to an old line that the first, lines-bounded watch left out
      // would count as new because it was published after the newest release benchmarked.
      const oldestLine = semver.sort(benchmarked.map((r) => lineStart(runtime, r.version)))[0]!;
      return releases.filter((r) => r.published.getTime() > last && semver.gte(lineStart(runtime, r.version), oldestLine));
    }
  }
}

/**
 * The release a new version is judged against: the newest stable release below it. On a line that
 * already has releases that is the previous release of the line (a patch's, or a minor's on Node);
 * for the first release of a line (or a pre-release of one) it is the newest release of the line
 * before, because every version of a lower line sorts below the new line's first. Null for the first
 * release there is. `releases` holds one architecture's (a runner's) list.
 */
export function predecessorOf(version: string, releases: readonly Release[]): string | null {
  const below = releases.filter((r) => semver.prerelease(r.version) === null && semver.lt(r.version, version));
  return below.length === 0 ? null : semver.sort(below.map((r) => r.version)).at(-1)!;
}

/** Decides which runtime versions each runner should benchmark. Pure: the registry and data/ are read by the caller. */
export function selectBenchmarks(input: SelectionInput): Selection {
  const planned = new Map<string, PlannedBenchmark>();
  const notes: string[] = [];
  for (const request of input.requests) {
    const runtime = request.kind === "window" ? request.name : request.spec.name;
    let resolvedSomewhere = false;
    let lastMiss: UserError | undefined;
    for (const runner of input.runners) {
      const all = input.releases(runtime, runner.arch);
      const eligible = input.prereleases ? all : all.filter((r) => semver.prerelease(r.version) === null);
      const done = input.benchmarked.get(runner.name)?.get(runtime) ?? new Set<string>();
      let chosen: Release[];
      if (request.kind === "window") {
        chosen = inWindow(runtime, eligible, done, input.window);
      } else {
        try {
          const version = pickVersion(request.spec, all.map((r) => r.version));
          chosen = all.filter((r) => r.version === version);
          resolvedSomewhere = true;
        } catch (error) {
          if (!(error instanceof UserError)) throw error;
          lastMiss = error;
          notes.push(`${request.spec.text} is not published for ${runner.arch}: ${runner.name} skips it`);
          continue;
        }
      }
      for (const release of chosen) {
        if (input.missingOnly && done.has(release.version)) continue;
        const predecessor = input.withPredecessor ? predecessorOf(release.version, all) : null;
        planned.set(`${runtime}@${release.version}@${runner.name}`, { runtime, version: release.version, published: release.published, runner, predecessor });
      }
    }
    if (request.kind === "spec" && !resolvedSomewhere && lastMiss) throw lastMiss;
  }
  return { planned: orderPlanned([...planned.values()], input.runners), notes };
}

/** Runtime (node, deno, bun), then newest version first, then runner in configuration order. */
function orderPlanned(planned: PlannedBenchmark[], runners: readonly BenchRunner[]): PlannedBenchmark[] {
  return planned.sort(
    (a, b) =>
      RUNTIME_NAMES.indexOf(a.runtime) - RUNTIME_NAMES.indexOf(b.runtime) ||
      semver.rcompare(a.version, b.version) ||
      runners.indexOf(a.runner) - runners.indexOf(b.runner),
  );
}
