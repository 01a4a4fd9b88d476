/**
 * The corpus of documented runtime changes, docs/known-changes.json: release pairs whose
 * team documented a change on a path one of our cells exercises, and controls (pairs whose notes
 * change nothing there). Loaded and checked here (the schema, then what a schema cannot say: the
 * versions' order, the cell's scenario, app and metric); `scripts/benchmark known-changes` replays
 * each pair, and tests/unit/known-changes.test.ts holds the corpus to what issue 37 asks of it.
 */
import { join } from "node:path";
import type { ParamValue } from "../../src/core/params.ts";
import semver from "semver";
import type { CompareRow, Verdict } from "../../src/compare/types.ts";
import { UserError } from "../../src/core/errors.ts";
import { readJsonFile } from "../../src/core/json-file.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import type { Direction, KnownChange } from "../../src/core/known-changes.ts";
import { checkAgainst } from "../../src/core/schema.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { suiteFor } from "../../src/suites/index.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";

export const KNOWN_CHANGES_FILE = "docs/known-changes.json";

/** The two profiles the corpus is replayed in: the release job's and the default run's. */
export type ReplayProfile = "quick" | "full";
export type { Direction, KnownChange };
type Params = Readonly<Record<string, ParamValue>>;

/** What a schema cannot check: versions in order and published lines, a cell that exists, and one entry per id. */
function corpusProblems(entries: readonly KnownChange[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const at = `/entries/${i} (${entry.id})`;
    if (seen.has(entry.id)) problems.push(`${at}: the id is used twice`);
    seen.add(entry.id);
    if (!semver.lt(entry.base, entry.head)) problems.push(`${at}: base ${entry.base} is not older than head ${entry.head}`);
    // Deno's binaries are published as npm packages from 1.46.0 on: nothing older can be provisioned.
    if (entry.runtime === "deno" && semver.lt(entry.base, "1.46.0")) problems.push(`${at}: Deno's packages start at 1.46.0, not ${entry.base}`);
    problems.push(...cellProblems(entry).map((problem) => `${at}/cell: ${problem}`));
  });
  return problems;
}

/** The cell's scenario, app and metric as the harness knows them. */
function cellProblems(entry: KnownChange): string[] {
  const { suite: suiteName, scenario: scenarioName, app, metric } = entry.cell;
  const [resolved] = resolveScenarios(selectScenarios({ suites: [suiteName], scenarios: [`${suiteName}/${scenarioName}`] }), "quick");
  const suite = suiteFor(suiteName);
  const problems: string[] = [];
  if (!resolved!.scenario.manifest.runtimes[entry.runtime]) problems.push(`${suiteName}/${scenarioName} does not run on ${entry.runtime}`);
  if (!resolved!.scenario.metrics[metric]) problems.push(`${suiteName}/${scenarioName} records no metric '${metric}'`);
  const apps = suite.listApps?.();
  if (apps && app === undefined) problems.push(`the ${suiteName} suite has apps: name one`);
  if (!apps && app !== undefined) problems.push(`the ${suiteName} suite has no apps, so no app '${app}'`);
  const listed = apps?.find((a) => a.name === app);
  if (apps && app !== undefined && !listed) problems.push(`the ${suiteName} suite has no app '${app}'`);
  if (listed && !listed.runtimes.includes(entry.runtime)) problems.push(`app '${app}' does not run on ${entry.runtime}`);
  return problems;
}

/** The corpus, checked: a broken one is a UserError naming every problem. */
export function loadKnownChanges(file = join(REPO_ROOT, KNOWN_CHANGES_FILE)): KnownChange[] {
  const raw = readJsonFile(file);
  const problems = checkAgainst("known-changes.schema.json", raw);
  if (problems.length > 0) throw new UserError(`${KNOWN_CHANGES_FILE}: ${problems.join("; ")}`);
  const entries = (raw as { entries: KnownChange[] }).entries;
  const more = corpusProblems(entries);
  if (more.length > 0) throw new UserError(`${KNOWN_CHANGES_FILE}: ${more.join("; ")}`);
  return entries;
}

export const pairName = (entry: KnownChange) => `${entry.runtime} ${entry.base} → ${entry.head}`;
export const cellName = (entry: KnownChange) => [entry.cell.suite, entry.cell.scenario, entry.cell.app].filter(Boolean).join("/");
export const cellAndMetric = (entry: KnownChange) => `${cellName(entry)} ${entry.cell.metric}`;

/**
 * The recorded row of a replay that still stands for the entry in that profile: its id, and the
 * pair and cell the entry names now (a row of the cell it had before it moved to another is not
 * the entry's replay).
 */
export function standingRow<Row extends Readonly<Record<string, unknown>>>(rows: readonly Row[], entry: KnownChange, profile: ReplayProfile): Row | undefined {
  return rows.find((row) => row.profile === profile && row.entry === entry.id && row.pair === pairName(entry) && row.cell === cellAndMetric(entry));
}

/** The labels the two builds carry in a replay's run, so that compare reads HEAD against BASE. */
export const BASE_LABEL = "base";
export const HEAD_LABEL = "head";

/** `scripts/bench run` arguments that measure an entry's pair in one run, its trials interleaved. */
export function runArgs(entry: KnownChange, profile: ReplayProfile, out: string): string[] {
  const { suite, scenario, app } = entry.cell;
  return [
    "run",
    "--suite", suite,
    "--scenario", scenario,
    ...(app === undefined ? [] : ["--app", app]),
    "--runtime", `${BASE_LABEL}=${entry.runtime}@${entry.base}`,
    "--runtime", `${HEAD_LABEL}=${entry.runtime}@${entry.head}`,
    "--profile", profile,
    "--out", out,
  ];
}

/** The load point a profile's result of the cell must have: the entry's params and that profile's own. */
export function cellParams(entry: KnownChange, profile: ReplayProfile): Params {
  return { ...entry.cell.params, ...entry.cell.profile_params?.[profile] };
}

/**
 * The compare row of the entry's cell among a replay's rows: the metric of the scenario and app, at
 * the load point whose params hold the entry's. Several matching rows mean the entry names too few
 * params for that profile; none, that the cell was not measured.
 */
export function cellRow(entry: KnownChange, profile: ReplayProfile, rows: readonly CompareRow[]): CompareRow | undefined {
  const want = Object.entries(cellParams(entry, profile));
  const matching = rows.filter(
    (row) =>
      row.suite === entry.cell.suite &&
      row.scenario === entry.cell.scenario &&
      row.app === (entry.cell.app ?? null) &&
      row.metric === entry.cell.metric &&
      want.every(([key, value]) => row.params[key] === value),
  );
  if (matching.length > 1) {
    const points = matching.map((row) => JSON.stringify(row.params)).join(", ");
    throw new UserError(`${KNOWN_CHANGES_FILE}: ${entry.id}: ${matching.length} load points match in the ${profile} profile (${points}): name more params`);
  }
  return matching[0];
}

/**
 * How a replay came out against the documentation: a change `detected` in its direction, `missed`
 * (no verdict of a change), or `reversed` (a change the other way); a control `held` (no change
 * called) or `alarmed`; `not measured` when the run has no such row (a failed or unsupported cell).
 */
export type Outcome = "detected" | "missed" | "reversed" | "held" | "alarmed" | "not measured";

const CHANGES: readonly Verdict[] = ["faster", "slower"];

export function outcomeOf(entry: KnownChange, row: CompareRow | undefined): Outcome {
  if (!row || row.verdict === "not comparable") return "not measured";
  const called = CHANGES.includes(row.verdict);
  if (entry.kind === "control") return called ? "alarmed" : "held";
  if (!called) return "missed";
  return row.verdict === entry.documented.direction ? "detected" : "reversed";
}

/** One replay's outcome, as the benchmark tallies it. */
export interface Replay {
  readonly entry: KnownChange;
  readonly profile: ReplayProfile;
  readonly outcome: Outcome;
  readonly row?: CompareRow;
}

/** Per group: documented changes called in their direction, and controls called a change. */
export interface Tally {
  readonly changes: number;
  readonly detected: number;
  readonly controls: number;
  readonly alarmed: number;
  /** Replays with no row to judge (failed or unsupported cells): counted apart, never as detected. */
  readonly unmeasured: number;
}

export function tally(replays: readonly Replay[]): Tally {
  const of = (kind: KnownChange["kind"]) => replays.filter((r) => r.entry.kind === kind);
  return {
    changes: of("change").length,
    detected: of("change").filter((r) => r.outcome === "detected").length,
    controls: of("control").length,
    alarmed: of("control").filter((r) => r.outcome === "alarmed").length,
    unmeasured: replays.filter((r) => r.outcome === "not measured").length,
  };
}
