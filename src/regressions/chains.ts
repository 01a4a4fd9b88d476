/**
 * Chained trends: each release's value relative to the first of its chain, as the product of the
 * paired ratios along the chain (each release measured beside the one before it in one run: a
 * sweep's links, the release job's release beside its predecessor). A paired ratio is far less tied
 * to the machine than an absolute figure, so where the absolute series splits at a change of machine
 * (its key holds the runner and the hardware fingerprint), the chain goes on, and says where the
 * machine changed.
 *
 * Each link's ratio is the geometric mean of its pairs of trials, with its 95 % Student t interval
 * (one look: the chain is a description, not an alarm). On the log scale the chain adds the links'
 * log ratios, and the links are independent runs, so their variances add: the chain's half-width is
 * the root of the sum of the links' squared half-widths. Each link keeps its own t quantile (its own
 * pairs), which is at least the normal one, so the combined interval errs on the wide side.
 */
import semver from "semver";
import { SINGLE_LOOK_ALPHA, pairedEstimate } from "../compare/sequential.ts";
import { subjectLabel } from "../compare/paired.ts";
import { trialClusters } from "../compare/ratio.ts";
import { aboveResolution, cellOf, groupBy, matchKey, measurementsOf, type Measurement } from "../compare/series-key.ts";
import type { MeasuredCell } from "../compare/types.ts";
import type { Profile, ResultDocument } from "../results/types.ts";
import { logHalfWidth } from "../stats/paired.ts";

export const CHAINS_SCHEMA_ID = "runtime-bench/chains/v2";

/** The machine a link ran on: the runner's hardware fingerprint, and the CPU it reported. */
export interface LinkMachine {
  fingerprint: string;
  cpu_model: string;
}

/** One link: a release beside the one before it on the chain, in one run. */
export interface ChainLinkEstimate {
  from: string;
  to: string;
  /** to / from: the geometric mean of the pairs of trials' ratios. */
  ratio: number;
  /** Its 95 % Student t interval over the pairs. */
  ci95: [number, number];
  pairs: number;
  /** The profile its run measured in (its load points and trials): what measuring it again takes. */
  profile: Profile;
  run_id: string;
  started_at: string;
  machine: LinkMachine;
}

export interface ChainedPoint {
  version: string;
  /** This release against the chain's first: the product of the link ratios from the first to it (1 for the first). */
  ratio: number;
  /** 95 % interval of that product: exp(Σ log ratio ± √Σ half-width²) on the log scale. */
  ci95: [number, number];
  /** The link into this release (null for the first). */
  link: ChainLinkEstimate | null;
  /** Links from the first release to this one. */
  links: number;
  /** The link into this release ran on another machine than the link before it on the chain. */
  machine_changed: boolean;
}

/** One chain: a runner × runtime × cell × metric, its releases from the first on, in version order. */
export interface ChainedSeries extends MeasuredCell {
  /** Stable key: runner, runtime and cell; the machine is not in it, so the chain crosses a change of machine. */
  chain: string;
  runner: string;
  runtime: string;
  first: string;
  points: ChainedPoint[];
}

/** What `scripts/bench regressions --chains --json` prints and `chains.json` holds. */
export interface ChainedTrends {
  schema: typeof CHAINS_SCHEMA_ID;
  generated_at: string;
  chains: ChainedSeries[];
}

/** A released version measured under its own name (not a labelled build, not a canary). */
const released = (m: Measurement) => subjectLabel(m.doc) === `${m.doc.runtime.name}-${m.doc.runtime.version}` && semver.valid(m.doc.runtime.version) !== null;

const chainKey = (m: Measurement) => `${m.doc.run.runner} ${m.doc.runtime.name} ${matchKey(m)}`;

/** A link of one run: two released versions of the runtime measured beside each other, neighbours in version order within the run. */
function linksOfRun(run: readonly Measurement[]): ChainLinkEstimate[] {
  const byVersion = [...run].sort((a, b) => semver.compare(a.doc.runtime.version, b.doc.runtime.version));
  return byVersion.slice(1).flatMap((head, i) => {
    const base = byVersion[i]!;
    const estimate = pairedEstimate(trialClusters(base), trialClusters(head), SINGLE_LOOK_ALPHA);
    if (estimate === null || trialClusters(base).length !== trialClusters(head).length) return [];
    const { doc } = head;
    return [{
      from: base.doc.runtime.version,
      to: doc.runtime.version,
      ratio: estimate.ratio,
      ci95: estimate.ci,
      pairs: estimate.pairs,
      profile: doc.run.profile,
      run_id: doc.run.id,
      started_at: doc.run.started_at,
      machine: { fingerprint: doc.environment.fingerprint, cpu_model: doc.environment.cpu_model },
    }];
  });
}

/** Each pair of releases once: the newest run that measured it. */
function newestLinks(links: readonly ChainLinkEstimate[]): ChainLinkEstimate[] {
  const newest = new Map<string, ChainLinkEstimate>();
  for (const link of links) {
    const key = `${link.from} ${link.to}`;
    const known = newest.get(key);
    if (known === undefined || link.started_at > known.started_at) newest.set(key, link);
  }
  return [...newest.values()];
}

/**
 * The points reached from `first`, each release once, each by the links whose intervals compound
 * narrowest (Dijkstra over the summed variances): a release reached both by one link cut at its
 * first look and by two measured with all their looks takes the two, whose interval is narrower.
 */
function chainFrom(first: string, links: readonly ChainLinkEstimate[], taken: Set<string>): ChainedPoint[] {
  type Reached = { log: number; variance: number; point: ChainedPoint };
  const out = groupBy(links, (link) => link.from);
  const frontier = new Map<string, Reached>([[first, { log: 0, variance: 0, point: { version: first, ratio: 1, ci95: [1, 1], link: null, links: 0, machine_changed: false } }]]);
  const settled: ChainedPoint[] = [];
  while (frontier.size > 0) {
    const [version, from] = [...frontier].reduce((best, next) => (next[1].variance < best[1].variance || (next[1].variance === best[1].variance && semver.lt(next[0], best[0])) ? next : best));
    frontier.delete(version);
    taken.add(version);
    settled.push(from.point);
    for (const link of out.get(version) ?? []) {
      if (taken.has(link.to)) continue;
      const variance = from.variance + logHalfWidth(link.ci95) ** 2;
      if ((frontier.get(link.to)?.variance ?? Infinity) <= variance) continue;
      const log = from.log + Math.log(link.ratio);
      const half = Math.sqrt(variance);
      const before = from.point.link?.machine.fingerprint;
      frontier.set(link.to, {
        log,
        variance,
        point: { version: link.to, ratio: Math.exp(log), ci95: [Math.exp(log - half), Math.exp(log + half)], link, links: from.point.links + 1, machine_changed: before !== undefined && before !== link.machine.fingerprint },
      });
    }
  }
  return settled.sort((a, b) => semver.compare(a.version, b.version));
}

/** The chains of one runner × runtime × cell: from its oldest linked release, then from each release no chain reached. */
function chainsOf(links: readonly ChainLinkEstimate[]): ChainedPoint[][] {
  const taken = new Set<string>();
  const starts = semver.sort([...new Set(links.map((link) => link.from))]);
  return starts.flatMap((first) => (taken.has(first) ? [] : [chainFrom(first, links, taken)])).filter((points) => points.length > 1);
}

/** Every chain in the history: each runner × runtime × cell × metric whose releases were measured beside each other. */
export function chainedTrends(docs: readonly ResultDocument[], now = new Date()): ChainedTrends {
  // Only a run with two versions of a runtime holds a link: the others are left out before their
  // measurements are made (the feed computes the chains on every run, over the whole history).
  const runOf = (doc: ResultDocument) => `${doc.run.runner}/${doc.run.id} ${doc.runtime.name}`;
  const versions = new Map<string, Set<string>>();
  for (const doc of docs) versions.set(runOf(doc), (versions.get(runOf(doc)) ?? new Set()).add(doc.runtime.version));
  const linked = docs.filter((doc) => versions.get(runOf(doc))!.size > 1);
  const measurements = measurementsOf(linked).filter(aboveResolution).filter(released);
  const chains: ChainedSeries[] = [];
  for (const [key, cell] of groupBy(measurements, chainKey)) {
    const runs = groupBy(cell, (m) => m.doc.run.id);
    const links = newestLinks([...runs.values()].filter((run) => run.length > 1).flatMap(linksOfRun));
    const { doc } = cell[0]!;
    // A cell's first chain is named by its key alone, any later one (a release no chain reached) by where it starts.
    chainsOf(links).forEach((points, i) => {
      chains.push({ ...cellOf(cell[0]!), chain: i === 0 ? key : `${key} from ${points[0]!.version}`, runner: doc.run.runner, runtime: doc.runtime.name, first: points[0]!.version, points });
    });
  }
  return { schema: CHAINS_SCHEMA_ID, generated_at: now.toISOString(), chains: chains.sort((a, b) => a.chain.localeCompare(b.chain)) };
}
