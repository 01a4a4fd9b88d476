/**
 * What a machine's part of data/ already holds of a sweep: for each scenario, the runs that measured
 * two releases of a runtime beside each other to the end. A sweep skips what is there and measures
 * the rest; its judgements (a link's step, a narrowing's halves) are read from here, so a sweep run
 * again decides exactly as the one before it did.
 */
import { comparePaired } from "../compare/paired.ts";
import { groupBy } from "../compare/series-key.ts";
import type { CompareRow } from "../compare/types.ts";
import { paramsSlug, type LoadPointFilter } from "../core/params.ts";
import { readIndexedResults } from "../results/run-index.ts";
import { cutByInterrupt, type ResultDocument } from "../results/types.ts";
import type { ChainLink, RuntimeRelease } from "./select.ts";

/**
 * A cell whose adaptive trials stopped for budget before their last look: judged on two or three
 * pairs at the strictest alpha, it decides nothing (docs/history.md, "Running and resuming").
 */
export const cutShort = (doc: ResultDocument) => doc.sequential?.stopped === "budget";

export interface CoverageOptions {
  /**
   * Whether a run with a cell cut short by its budget counts as measured: where the sweep caps the
   * trials itself (`--trial-budget`), such runs are what it asks for; otherwise a link is measured
   * with all its looks or not yet, and that scenario of the run is measured again.
   */
  readonly acceptCutShort: boolean;
  /**
   * Runs started before it do not count (`sweep --again-before`): a fix to the harness made what
   * they measured wrong, so it is measured again, and every judgement reads the newer run.
   */
  readonly countedFrom?: Date;
}

const scenarioOf = (doc: Pick<ResultDocument, "suite" | "scenario">) => `${doc.suite}/${doc.scenario}`;

export class RunnerCoverage {
  /** `runtime scenario` → the runs that measured it, each as its completed results of that scenario, oldest run first. */
  private readonly runs = new Map<string, ResultDocument[][]>();

  constructor(docs: readonly ResultDocument[], options: CoverageOptions) {
    const byRun = new Map<string, ResultDocument[]>();
    for (const doc of docs.filter((doc) => !cutByInterrupt(doc))) {
      const key = `${doc.runtime.name} ${scenarioOf(doc)} ${doc.run.id}`;
      byRun.set(key, [...(byRun.get(key) ?? []), doc]);
    }
    const counted = (run: ResultDocument[]) => options.countedFrom === undefined || Date.parse(run[0]!.run.started_at) >= options.countedFrom.getTime();
    const kept = [...byRun.values()].filter((run) => (options.acceptCutShort || !run.some(cutShort)) && counted(run));
    const ordered = kept.sort((a, b) => a[0]!.run.started_at.localeCompare(b[0]!.run.started_at));
    for (const run of ordered) {
      const key = `${run[0]!.runtime.name} ${scenarioOf(run[0]!)}`;
      this.runs.set(key, [...(this.runs.get(key) ?? []), run]);
    }
  }

  /** One runner's results in a data folder, through the run index. */
  static read(dataDir: string, runner: string, options: CoverageOptions): RunnerCoverage {
    return new RunnerCoverage(readIndexedResults(dataDir, runner).flatMap(({ doc }) => (doc === null ? [] : [doc])), options);
  }

  /**
   * The runs that measured both releases of the link in the scenario, to the end, newest first:
   * each as its results of the two; with `version`, those at that version of the scenario.
   */
  pairRuns(link: ChainLink, scenario: string, version?: number): { from: ResultDocument[]; to: ResultDocument[] }[] {
    const runs = this.runs.get(`${link.runtime} ${scenario}`) ?? [];
    return [...runs].reverse().flatMap((run) => {
      if (version !== undefined && run[0]!.scenario_version !== version) return [];
      const from = run.filter((doc) => doc.runtime.version === link.from);
      const to = run.filter((doc) => doc.runtime.version === link.to);
      return from.length > 0 && to.length > 0 ? [{ from, to }] : [];
    });
  }

  /** Whether one run measured every one of the releases in the scenario to the end: a side-by-side run of several runtimes' releases. */
  together(releases: readonly RuntimeRelease[], scenario: string, version?: number): boolean {
    const runIds = releases.map((release) => {
      const runs = (this.runs.get(`${release.runtime} ${scenario}`) ?? []).filter((run) => version === undefined || run[0]!.scenario_version === version);
      return new Set(runs.filter((run) => run.some((doc) => doc.runtime.version === release.version)).map((run) => run[0]!.run.id));
    });
    return [...(runIds[0] ?? [])].some((id) => runIds.every((ids) => ids.has(id)));
  }

  /**
   * Whether a run measured both releases in the scenario; with `cells` (`loadPointOf`), whether
   * each of those was (a narrowing run measures its step's cells, a link the sweep's selection).
   */
  measured(link: ChainLink, scenario: string, version?: number, cells: readonly string[] = []): boolean {
    const runs = this.pairRuns(link, scenario, version);
    const held = new Set(runs.flatMap((run) => run.from.filter((doc) => run.to.some((other) => loadPointOf(other) === loadPointOf(doc))).map(loadPointOf)));
    return runs.length > 0 && cells.every((cell) => held.has(cell));
  }
}

/** A cell of a scenario without its metric (app and load parameters): what a run measures. */
const loadPointOf = (cell: Pick<CompareRow, "app" | "params">) => `${cell.app ?? "-"} ${paramsSlug(cell.params) || "-"}`;

/** A cell of a scenario (app, load parameters, metric): what a step is followed by while it is narrowed. */
export const stepCell = (row: Pick<CompareRow, "app" | "params" | "metric">) => `${loadPointOf(row)} ${row.metric}`;

/** A confirmed step of a link on a scenario's headline metric: the cells that show it, all in one direction. */
export interface LinkStep {
  readonly scenario: string;
  readonly verdict: "faster" | "slower";
  readonly cells: readonly string[];
  /** The paired rows that show it, for the report. */
  readonly rows: readonly CompareRow[];
}

/** Each result's headline metric is its first (docs/running.md): the one a step is judged on. */
const headline = (docs: readonly ResultDocument[]) => new Set(docs.map((doc) => Object.keys(doc.metrics)[0]));

/**
 * The paired verdicts of a link in one scenario, as the regressions feed judges a release beside
 * its predecessor (the sequential rule of two unlabelled releases of one runtime), on the headline
 * metric: each cell's from the newest run that measured it (a narrowing run measures its step's
 * apps only, so an older run of the pair can hold another app's); undefined when the link is not
 * measured there.
 */
export function linkRows(coverage: RunnerCoverage, link: ChainLink, scenario: string, version?: number): CompareRow[] | undefined {
  const runs = coverage.pairRuns(link, scenario, version);
  if (runs.length === 0) return undefined;
  const perRun = runs.map((pair) => {
    const headlines = headline([...pair.from, ...pair.to]);
    return comparePaired(pair.from, pair.to).filter((row) => headlines.has(row.metric));
  });
  return [...newestPerCell(perRun, stepCell).values()].flat();
}

/** Each cell's items from the first run, newest first, that holds it: the run a cell is judged on. */
function newestPerCell<T>(runs: readonly (readonly T[])[], cellOf: (item: T) => string): Map<string, T[]> {
  const cells = new Map<string, T[]>();
  for (const items of runs) {
    for (const [cell, held] of groupBy(items, cellOf)) if (!cells.has(cell)) cells.set(cell, held);
  }
  return cells;
}

/** The version of its scenario a step was seen at (its rows share one: a step is read at one version). */
export const stepVersion = (step: LinkStep): number => step.rows[0]!.scenario_version;

/** The steps a link shows in a scenario at a version of it: faster and slower cells of its headline metric, one step per direction. */
export function linkSteps(coverage: RunnerCoverage, link: ChainLink, scenario: string, version: number): LinkStep[] {
  const rows = linkRows(coverage, link, scenario, version) ?? [];
  return (["slower", "faster"] as const).flatMap((verdict) => {
    const showing = rows.filter((row) => row.verdict === verdict);
    return showing.length === 0 ? [] : [{ scenario, verdict, cells: showing.map(stepCell), rows: showing }];
  });
}

/**
 * Whether a pair of releases shows a step: any of its cells changed the same way, in a run of the
 * scenario's version the step was seen at; unknown when the pair has no verdict on any of them.
 */
export function showsStep(coverage: RunnerCoverage, link: ChainLink, step: LinkStep): "step" | "none" | "unknown" {
  const rows = (linkRows(coverage, link, step.scenario, stepVersion(step)) ?? []).filter((row) => step.cells.includes(stepCell(row)));
  if (rows.some((row) => row.verdict === step.verdict)) return "step";
  return rows.length === 0 ? "unknown" : "none";
}

/**
 * Whether the newest run of a pair left a cell of the step inconclusive on fewer than `cap` pairs
 * where its adaptive trials stopped by their rule: for futility (a narrowing run before narrowing
 * runs took every look), or at a lower cap (a sweep with fewer `--trials`). A sweep whose narrowing
 * runs take `cap` pairs measures such a half once more (docs/history.md); a cell decided, or left
 * without a verdict by a failure, stays as its run left it.
 */
export function stoppedShort(coverage: RunnerCoverage, link: ChainLink, step: LinkStep, cap: number): boolean {
  const cellOf = (doc: ResultDocument) => stepCell({ app: doc.app, params: doc.params, metric: Object.keys(doc.metrics)[0]! });
  const runs = coverage.pairRuns(link, step.scenario, stepVersion(step)).map((pair) => [...pair.from, ...pair.to]);
  const cells = newestPerCell(runs, cellOf);
  const byRule = (doc: ResultDocument) => doc.sequential?.stopped === "futile" || doc.sequential?.stopped === "max trials";
  const undecided = (linkRows(coverage, link, step.scenario, stepVersion(step)) ?? []).filter(
    (row) => step.cells.includes(stepCell(row)) && row.verdict === "inconclusive" && (row.pairs ?? 0) < cap,
  );
  return undecided.some((row) => (cells.get(stepCell(row)) ?? []).some(byRule));
}

/** The apps of a step's cells: what a run that narrows it measures of its scenario; none for a scenario without apps. */
export const stepApps = (step: LinkStep): string[] => [...new Set(step.rows.flatMap((row) => (row.app === null ? [] : [row.app])))];

/** The app and load point of each of a step's cells: what data/ must hold of a pair for the step to be judged there. */
export const stepLoadPoints = (step: LinkStep): string[] => [...new Set(step.rows.map(loadPointOf))];

/**
 * The load points a run that narrows the step measures (`run --load-point`): its cells' own, not
 * the cross product of their values, which for a step on 5 of a scenario's 12 cells held 8. None
 * for a scenario without load points.
 */
export function stepParams(step: LinkStep): LoadPointFilter {
  const points = new Map<string, Record<string, string>>();
  for (const row of step.rows) {
    if (Object.keys(row.params).length > 0) points.set(paramsSlug(row.params), Object.fromEntries(Object.entries(row.params).map(([name, value]) => [name, String(value)])));
  }
  return points.size === 0 ? {} : { points: [...points.keys()].sort().map((slug) => points.get(slug)!) };
}
