import { cellOf, compareVersions, groupBy, seriesKey, type Measurement } from "../compare/series-key.ts";
import type { SeriesIdentity } from "./types.ts";

/** Most recent runs pooled into one version's point: enough to be steady, few enough to stay current and quick. */
export const MAX_POOLED_RUNS = 10;

/** One runtime version of a series: its runs pooled. */
export interface VersionPoint {
  readonly version: string;
  /** The runs that count: those not measured while the machine drifted, when there are any. */
  readonly runs: Measurement[];
  /** Every run of this version was measured while the machine drifted. */
  readonly drifted: boolean;
}

export interface Series {
  readonly identity: SeriesIdentity;
  /** Every run, for the noise estimate. */
  readonly runs: Measurement[];
  /** Versions, oldest first (semver). */
  readonly points: VersionPoint[];
}

/** `runner/run id`: a run's identity across machines. */
export function runRefOf(runner: string, runId: string): string {
  return `${runner}/${runId}`;
}

export function runRef(measurement: Measurement): string {
  return runRefOf(measurement.doc.run.runner, measurement.doc.run.id);
}

function identityOf(key: string, measurement: Measurement): SeriesIdentity {
  const { doc } = measurement;
  return { series: key, runner: doc.run.runner, runtime: doc.runtime.name, headline: Object.keys(doc.metrics)[0] === measurement.metric, ...cellOf(measurement) };
}

const byStart = (a: Measurement, b: Measurement) => a.doc.run.started_at.localeCompare(b.doc.run.started_at);

/** Series of the measurements, each with its versions in semver order and repeated runs pooled. */
export function buildSeries(measurements: readonly Measurement[], driftedRuns: ReadonlySet<string>): Series[] {
  return [...groupBy(measurements, seriesKey)].map(([key, runs]) => {
    const points = [...groupBy(runs, (m) => m.doc.runtime.version)]
      .sort(([a], [b]) => compareVersions(a, b))
      .map(([version, versionRuns]): VersionPoint => {
        const clean = versionRuns.filter((m) => !driftedRuns.has(runRef(m)));
        const counted = (clean.length > 0 ? clean : versionRuns).sort(byStart).slice(-MAX_POOLED_RUNS);
        return { version, runs: counted, drifted: clean.length === 0 };
      });
    return { identity: identityOf(key, runs[0]!), runs, points };
  });
}
