import semver, { type SemVer } from "semver";
import { paramsSlug } from "../core/params.ts";
import type { MetricSummary, ResultDocument } from "../results/types.ts";
import type { MeasuredCell } from "./types.ts";

/** One metric of one `ok` result: the unit every comparison and series is built from. */
export interface Measurement {
  readonly doc: ResultDocument;
  readonly metric: string;
  readonly summary: MetricSummary;
}

/** The cell a measurement belongs to, without its runtime or machine. */
export function cellOf({ doc, metric, summary }: Measurement): MeasuredCell {
  return {
    suite: doc.suite,
    scenario: doc.scenario,
    scenario_version: doc.scenario_version,
    app: doc.app,
    params: { ...doc.params },
    metric,
    unit: summary.unit,
    better: summary.better,
  };
}

/** Every metric of every `ok` result; failed and unsupported results never count. */
export function measurementsOf(docs: readonly ResultDocument[]): Measurement[] {
  // One loop, with no array per result or per metric: the site build measures every series' noise from its results, a million metrics over five years.
  const measurements: Measurement[] = [];
  for (const doc of docs) if (doc.status === "ok") for (const metric in doc.metrics) measurements.push({ doc, metric, summary: doc.metrics[metric]! });
  return measurements;
}

/**
 * A median above the measurement's resolution (above 0 where none is recorded): one at or below
 * it is a clock's tick, not a speed, and a ratio to it is meaningless (0 to 1 ms reads "Infinity× worse").
 */
export function aboveResolution({ summary }: Measurement): boolean {
  return summary.median > (summary.resolution ?? 0);
}

/** What BASE and HEAD are matched on: suite, scenario (same version), app, load parameters, metric. */
export function matchKey({ doc, metric }: Measurement): string {
  return [`${doc.suite}/${doc.scenario}@v${doc.scenario_version}`, doc.app ?? "-", paramsSlug(doc.params) || "-", metric].join(" ");
}

/** The machine: results compare only within one runner and one hardware fingerprint. */
export function environmentKey(doc: ResultDocument): string {
  return `${doc.run.runner}#${doc.environment.fingerprint}`;
}

/** Why two results' machines differ, or null when they are the same machine. */
export function environmentDifference(a: ResultDocument, b: ResultDocument): string | null {
  const ea = a.environment;
  const eb = b.environment;
  if (ea.arch !== eb.arch) return `arch differs (${ea.arch} vs ${eb.arch})`;
  if (ea.cpu_model !== eb.cpu_model) return `CPU model differs (${ea.cpu_model} vs ${eb.cpu_model})`;
  if (a.run.runner !== b.run.runner) return `runner differs (${a.run.runner} vs ${b.run.runner})`;
  if (ea.fingerprint !== eb.fingerprint) return `hardware fingerprint differs (${ea.fingerprint} vs ${eb.fingerprint})`;
  return null;
}

/**
 * A series: runner (and its hardware) × runtime × suite × scenario × app × load parameters × metric.
 * Its points are the runtime's versions; this string is stable across runs and machines.
 */
export function seriesKey(measurement: Measurement): string {
  return `${environmentKey(measurement.doc)} ${measurement.doc.runtime.name} ${matchKey(measurement)}`;
}

/** `node@22.11.0` */
export function runtimeLabel(doc: ResultDocument): string {
  return `${doc.runtime.name}@${doc.runtime.version}`;
}

/** Versions parsed once: sorting a long history compares the same few hundred versions millions of times. */
const parsedVersions = new Map<string, SemVer | null>();

function parsedVersion(version: string): SemVer | null {
  let parsed = parsedVersions.get(version);
  if (parsed === undefined) parsedVersions.set(version, (parsed = semver.parse(version)));
  return parsed;
}

/** Semver order; a version semver cannot read sorts after the readable ones, by text. */
export function compareVersions(a: string, b: string): number {
  const va = parsedVersion(a);
  const vb = parsedVersion(b);
  if (va && vb) return va.compare(vb);
  if (va) return -1;
  if (vb) return 1;
  return a.localeCompare(b);
}

/** Groups items by a string key, keeping first-seen order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
