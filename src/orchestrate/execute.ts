import semver from "semver";
import { errorMessage, UserError } from "../core/errors.ts";
import { atLoadPoint, leavesNoCell, paramsSlug, type LoadPointFilter } from "../core/params.ts";
import { publishedText, publishedValue } from "../core/markup.ts";
import type { Environment } from "../env/fingerprint.ts";
import { cleanupsSettled, interruptCleanup, isInterrupted, setInterruptHandler } from "../process/children.ts";
import { scratchFolder } from "../process/scratch.ts";
import type { IdentifiedRuntime } from "../runtimes/identify.ts";
import { parseSpec } from "../runtimes/spec.ts";
import { summarize } from "../stats/summary.ts";
import { runCommand } from "../results/reproduce.ts";
import { writeResult } from "../results/store.ts";
import { suiteProfileOf, type MetricSummary, type Profile, type ResultDocument, type ResultStatus, type RunInfo } from "../results/types.ts";
import { prepareScenario } from "../scenarios/prepare.ts";
import type { ResolvedScenario } from "../suites/resolve.ts";
import { TrialFailure, type AnySuite, type Subject, type SuiteSession } from "../suites/suite.ts";
import type { Progress } from "../ui/progress.ts";
import { firstLine } from "../ui/words.ts";
import { TrialSchedule, cellKey, type TrialBudget } from "./adaptive.ts";
import { extraAtCap, secondsShare } from "./estimate.ts";
import { inSuiteOrder, pairedOrder } from "./order.ts";
import { cellTrialTimeout, trialTimeoutFloor, withinTimeout, type TrialTimeout } from "./timeout.ts";

export interface RunPlan {
  readonly scenarios: readonly ResolvedScenario[];
  readonly runtimes: readonly IdentifiedRuntime[];
  readonly profile: Profile;
  /** The minimum trials `run --trials` gave every scenario, instead of its profile's. */
  readonly trials?: number;
  readonly outDir: string;
  readonly run: Omit<RunInfo, "trials">;
  readonly environment: Environment;
  /** Each suite's own options (suite → option name → values), parsed by the suite. */
  readonly suiteOptions: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  /** Extra trials the adaptive rule may add over the whole run (src/orchestrate/adaptive.ts); default: no limit but each cell's cap. */
  readonly trialBudget?: number;
  /** Seconds adaptive trials may add over the whole run (from `run --time-limit`); default: no limit but each cell's cap. */
  readonly extraSeconds?: number;
  /** False: undecided points take every look up to their cap (ScheduleOptions.futility); default true. */
  readonly futility?: boolean;
  /** Only the cells at these load points (`run --param`); default every cell. */
  readonly params?: LoadPointFilter;
}

export interface RunOutcome {
  readonly results: { path: string; doc: ResultDocument }[];
  readonly interrupted: boolean;
  /** Wall-clock seconds each suite took, in the order they ran. */
  readonly suiteSeconds: ReadonlyMap<string, number>;
}

/** One subject's state while its scenario is measured. */
interface Cell {
  subject: Subject;
  status: ResultStatus | "pending";
  error?: string;
  samples: Record<string, number[]>;
  /** Samples each trial added, by metric: the trials a paired comparison pairs. */
  trialSamples: Record<string, number[]>;
  details: Record<string, unknown>;
  tools: Record<string, string>;
  saved: boolean;
  verification?: ResultDocument["verification"];
  trialsDone: number;
  /** Set by the cell's check: how long each of its trials may run. */
  timeout?: TrialTimeout;
  /** Trials its scenario ran (the profile's, or more by the adaptive rule), and that rule's record. */
  trials: number;
  sequential?: ResultDocument["sequential"];
  /** Metrics its counting pass could not count, and why. */
  uncounted: Record<string, string>;
}

function pendingCell(subject: Subject): Cell {
  return { subject, status: "pending", samples: {}, trialSamples: {}, details: {}, tools: {}, saved: false, trialsDone: 0, trials: trialsOf(subject.scenario), uncounted: {} };
}

const trialsOf = (scenario: ResolvedScenario["scenario"]) => scenario.profileParams.trials;

function endCell(cell: Cell, status: ResultStatus, error?: string, details?: Record<string, unknown>): void {
  cell.status = status;
  if (error !== undefined) cell.error = error;
  if (details) Object.assign(cell.details, details);
}

/** Why a runtime cannot run a scenario at all, or null when it can. */
export function unsupportedReason(selected: ResolvedScenario, runtime: IdentifiedRuntime): string | null {
  const { name, version } = runtime.identity;
  const support = selected.scenario.manifest.runtimes[name];
  if (!support) return `${selected.scenario.suite}/${selected.scenario.name} does not run on ${name}`;
  const comparable = semver.coerce(version)?.version;
  if (support.min_version && comparable && semver.lt(comparable, support.min_version)) {
    return `${selected.scenario.suite}/${selected.scenario.name} needs ${name} >= ${support.min_version}`;
  }
  return null;
}

/**
 * The suites' sessions of a run, started together; each is closed once its suite's last scenario
 * is measured, so that no server of one suite (http's PostgreSQL, install's verdaccio) idles on the
 * machine while a later suite measures.
 */
interface Sessions {
  readonly bySuite: Map<AnySuite, SuiteSession>;
  /** Each suite's parsed options. */
  readonly options: Map<AnySuite, unknown>;
  closeSuite(suite: AnySuite): Promise<void>;
  /** Closes every session still open. */
  close(): Promise<void>;
}

/** What every scenario of a run shares while it is measured. */
interface Run {
  readonly plan: RunPlan;
  readonly progress: Progress;
  readonly sessions: Sessions;
  /** Each scenario's subjects by runtime: listed once, for the progress total, and measured in that order. */
  readonly subjects: ReadonlyMap<ResolvedScenario, readonly { runtime: IdentifiedRuntime; subjects: readonly Subject[] }[]>;
  readonly budget: TrialBudget;
  /** The least time a trial is given before it is called hung (RUNTIME_BENCH_TRIAL_TIMEOUT_FLOOR). */
  readonly trialTimeoutFloorS: number;
  /** Under a time limit, what each scenario's adaptive trials would add at their cap, in the run's order: how the limit's seconds are shared. */
  readonly extraAtCap: ReadonlyMap<ResolvedScenario, number | null>;
  /** Writes the cells not yet written. */
  readonly save: (selected: ResolvedScenario, cells: readonly Cell[]) => Promise<void>;
  /** The scenario being measured: what an interrupt saves before it stops the sessions and removes the work folder. */
  current: { selected: ResolvedScenario; cells: Cell[] } | null;
}

/**
 * Runs every selected scenario on every runtime: check, interleaved trials, check again, write.
 * Results of a scenario are written as soon as it ends; an interrupt writes what the current
 * scenario had measured so far, marked as failed so it is kept but never published.
 */
export async function executeRun(plan: RunPlan, progress: Progress): Promise<RunOutcome> {
  // A bad setting is bad input before anything is measured, not a failure at the first check.
  const trialTimeoutFloorS = trialTimeoutFloor();
  const results: RunOutcome["results"] = [];
  const toolsBySuite = await toolVersions(plan.scenarios);
  const { dir: workDir, remove } = await scratchFolder("run", "the work folder");
  const removeWorkDir = async () => {
    // A server that a failing check is still stopping works in the folder: it goes first.
    await cleanupsSettled();
    await remove();
  };
  const sessions = startSessions(plan, workDir, progress);
  let subjects: Run["subjects"];
  try {
    subjects = subjectsAtLoadPoints(plan, sessions);
  } catch (error) {
    await sessions.close();
    await removeWorkDir();
    throw error;
  }
  progress.addWork(plan.scenarios.reduce((sum, s) => sum + trialsOf(s.scenario) * subjects.get(s)!.reduce((n, r) => n + r.subjects.length, 0), 0));
  const suiteSeconds = new Map<string, number>();
  const ordered = inSuiteOrder(plan.scenarios);
  const specs = plan.runtimes.map((r) => parseSpec(r.identity.spec));
  const suiteOptions = plan.suiteOptions as Record<string, Record<string, string[]>>;
  const run: Run = {
    plan,
    progress,
    sessions,
    subjects,
    budget: { trials: plan.trialBudget ?? Infinity, seconds: plan.extraSeconds ?? Infinity },
    trialTimeoutFloorS,
    extraAtCap: new Map(plan.extraSeconds === undefined ? [] : ordered.map((s) => [s, extraAtCap(s, specs, suiteOptions, { judged: plan.profile !== "smoke", ...(plan.params === undefined ? {} : { params: plan.params }) })])),
    save: async (selected, cells) => {
      const tools = toolsBySuite.get(selected.suite) ?? {};
      for (const cell of cells) {
        // An interrupt during a save saves the rest: each cell is written once.
        if (cell.saved) continue;
        cell.saved = true;
        const doc = toDocument(plan, selected, cell, { ...tools, ...cell.tools });
        results.push({ path: await writeResult(plan.outDir, doc), doc });
      }
    },
    current: null,
  };
  const interruptSaved = saveOnInterrupt(run, removeWorkDir);
  // After Ctrl-C the run ends once the interrupt's save has, so what it reports is what was written.
  const interruptedOutcome = async (): Promise<RunOutcome> => {
    await interruptSaved();
    return { results, interrupted: true, suiteSeconds };
  };

  try {
    for (const [index, selected] of ordered.entries()) {
      if (isInterrupted()) break;
      const started = performance.now();
      if (!(await measureScenario(run, selected))) return interruptedOutcome();
      if (ordered[index + 1]?.suite !== selected.suite) await sessions.closeSuite(selected.suite);
      suiteSeconds.set(selected.suite.name, (suiteSeconds.get(selected.suite.name) ?? 0) + (performance.now() - started) / 1000);
    }
  } finally {
    // After an interrupt its handler closes and removes; the run's own flow must not race it.
    if (!isInterrupted()) {
      setInterruptHandler(undefined);
      await sessions.close();
      await removeWorkDir();
    }
    progress.finish();
  }
  return isInterrupted() ? interruptedOutcome() : { results, interrupted: false, suiteSeconds };
}

/**
 * Each scenario's subjects on each runtime, at the plan's load points. A filter that leaves a
 * scenario no cell it had is bad input, named before anything is checked or measured.
 */
function subjectsAtLoadPoints(plan: RunPlan, sessions: Sessions): Run["subjects"] {
  const subjects = new Map<ResolvedScenario, { runtime: IdentifiedRuntime; subjects: readonly Subject[] }[]>();
  for (const selected of plan.scenarios) {
    const all = plan.runtimes.map((runtime) => ({ runtime, subjects: sessions.bySuite.get(selected.suite)!.subjects(selected.scenario, runtime) }));
    const kept = all.map(({ runtime, subjects: each }) => ({ runtime, subjects: each.filter((subject) => atLoadPoint(subject.params, plan.params)) }));
    const had = all.flatMap((r) => r.subjects);
    if (had.length > 0 && kept.every((r) => r.subjects.length === 0)) {
      const points = [...new Set(had.map((subject) => paramsSlug(subject.params) || "none"))];
      throw new UserError(leavesNoCell(plan.params ?? {}, `${selected.suite.name}/${selected.scenario.name}`, points));
    }
    subjects.set(selected, kept);
  }
  return subjects;
}

/** Each suite's tool versions (tool name → version), asked once per run. */
async function toolVersions(scenarios: readonly ResolvedScenario[]): Promise<Map<AnySuite, Record<string, string>>> {
  const toolsBySuite = new Map<AnySuite, Record<string, string>>();
  for (const suite of new Set(scenarios.map((s) => s.suite))) {
    const versions = await Promise.all(suite.tools.map(async (tool) => [tool.name, await tool.version()] as const));
    toolsBySuite.set(suite, Object.fromEntries(versions));
  }
  return toolsBySuite;
}

/** Starting a session does no work yet; its subjects are known up front, so the progress line counts against the whole run. */
function startSessions(plan: RunPlan, workDir: string, progress: Progress): Sessions {
  const bySuite = new Map<AnySuite, SuiteSession>();
  const options = new Map<AnySuite, unknown>();
  for (const suite of new Set(plan.scenarios.map((s) => s.suite))) {
    const suiteOptions = suite.parseOptions?.(plan.suiteOptions[suite.name] ?? {}) ?? {};
    options.set(suite, suiteOptions);
    bySuite.set(suite, suite.start({ profile: plan.profile, workDir, log: (line) => progress.log(line), options: suiteOptions }) as SuiteSession);
  }
  const closeSuite = async (suite: AnySuite) => {
    const session = bySuite.get(suite);
    // Deleted first: an interrupt during the close must not close it twice.
    bySuite.delete(suite);
    await session?.close?.();
  };
  return {
    bySuite,
    options,
    closeSuite,
    close: async () => {
      for (const suite of [...bySuite.keys()]) await closeSuite(suite);
    },
  };
}

/**
 * On an interrupt: ends the current scenario's pending cells as failed, saves them, closes the
 * sessions and removes the work folder. Returns what waits for that save to end.
 */
function saveOnInterrupt(run: Run, removeWorkDir: () => Promise<void>): () => Promise<void> {
  let saving: Promise<void> | undefined;
  const save = () =>
    (saving ??= (async () => {
      if (run.current) {
        for (const cell of run.current.cells) {
          const trials = cell.trials;
          if (cell.status !== "pending") continue;
          const why = cell.trialsDone === trials ? `interrupted after all ${trials} trials, before the check after measuring` : `interrupted after ${cell.trialsDone} of ${trials} trials`;
          endCell(cell, "failed", why, { interrupted_after_trials: cell.trialsDone });
        }
        await run.save(run.current.selected, run.current.cells);
      }
      await run.sessions.close();
      await removeWorkDir();
    })());
  // An interrupt that came before this handler (while the work folder was being made) calls it now.
  setInterruptHandler(save);
  // The interrupt calls the save only once the children it killed are gone: wait for its cleanup, which holds the save.
  return async () => {
    await interruptCleanup();
    await saving;
  };
}

/** Checks, measures, checks again and saves one scenario; false when an interrupt stopped it (its handler saves). */
async function measureScenario(run: Run, selected: ResolvedScenario): Promise<boolean> {
  const session = run.sessions.bySuite.get(selected.suite)!;
  // Before the checks: their untimed work then warms what a long wait let cool.
  await session.settle?.();
  if (isInterrupted()) return false;
  const cells = await checkedCells(run, selected);
  // Interrupted while checking: nothing of this scenario was measured, and its session is closed.
  if (isInterrupted()) return false;
  run.current = { selected, cells };
  const measuredCells = cells.filter((c) => c.status === "pending");
  run.progress.skip(trialsOf(selected.scenario) * (cells.length - measuredCells.length));
  if (!(await runTrials(run, selected, cells, measuredCells))) return false;
  if (!(await countCells(run, selected, measuredCells))) return false;
  await closeCells(session, cells, measuredCells);
  if (isInterrupted()) return false;
  await run.save(selected, cells);
  run.current = null;
  return true;
}

/** The scenario's trials, interleaved across its cells; false when an interrupt stopped them. */
async function runTrials(run: Run, selected: ResolvedScenario, cells: readonly Cell[], measuredCells: readonly Cell[]): Promise<boolean> {
  const { progress } = run;
  const session = run.sessions.bySuite.get(selected.suite)!;
  const trials = trialsOf(selected.scenario);
  // The sentinel is measured for drift, never judged against the runtimes under test.
  const sentinel = (c: Cell) => c.subject.runtime.identity.spec === run.plan.run.sentinel;
  const judged = measuredCells.filter((c) => !sentinel(c));
  const alongside = measuredCells.filter(sentinel);
  const budget = scenarioBudget(run, selected);
  const granted = budget.seconds;
  const schedule = new TrialSchedule(trials, judged, budget, { profile: suiteProfileOf(run.plan.profile), judged: run.plan.profile !== "smoke", alongside, futility: run.plan.futility ?? true });
  const began = performance.now();
  let trialsRun = 0;
  const secondsPerTrial = () => (trialsRun === 0 ? 0 : (performance.now() - began) / 1000 / trialsRun);
  for (let t = 0; schedule.another(t, secondsPerTrial()); t++) {
    const round = measuredCells.filter((cell) => schedule.measures(cell, t));
    if (t >= trials) {
      progress.addWork(round.length);
      for (const cell of round) cell.trials = t + 1;
    }
    for (const cell of pairedOrder(round, cellKey, t)) {
      if (isInterrupted()) return false;
      if (cell.status !== "pending") {
        progress.end();
        continue;
      }
      progress.begin(`${selected.scenario.suite}/${selected.scenario.name}${label(cell.subject)} trial ${t + 1}/${cell.trials}`);
      await runTrial(session, cell, t, progress);
      trialsRun += 1;
      progress.end();
    }
  }
  // What the scenario spent is gone for the next; what it left unspent is theirs.
  if (budget !== run.budget) {
    run.budget.trials = budget.trials;
    run.budget.seconds -= granted - budget.seconds;
  }
  for (const cell of cells) {
    const sequential = schedule.record(cell);
    if (sequential) cell.sequential = sequential;
  }
  return true;
}

/**
 * What one scenario's schedule may spend of the run's budget: every extra trial left, and under a
 * time limit its share of the seconds left (`secondsShare`, against the scenarios after it in the
 * run's order); without one, the run's budget itself.
 */
function scenarioBudget(run: Run, selected: ResolvedScenario): TrialBudget {
  const own = run.extraAtCap.get(selected);
  if (own === undefined) return run.budget;
  const later = [...run.extraAtCap.entries()];
  const after = later.slice(later.findIndex(([s]) => s === selected) + 1).reduce((sum, [, seconds]) => sum + (seconds ?? 0), 0);
  return { trials: run.budget.trials, seconds: secondsShare(run.budget.seconds, own, after) };
}

/**
 * The counting pass, after every trial of the scenario (so it never runs beside a timed one):
 * each measured cell's counts join its samples, one trial per counted run, and the seconds its
 * counting took its details (`counting_s`: what counts add to a run, read from its results). False
 * when an interrupt stopped it.
 */
async function countCells(run: Run, selected: ResolvedScenario, measuredCells: readonly Cell[]): Promise<boolean> {
  const session = run.sessions.bySuite.get(selected.suite)!;
  if (!session.count) return true;
  const counted = measuredCells.filter((cell) => cell.status === "pending");
  run.progress.addWork(counted.length);
  for (const cell of counted) {
    if (isInterrupted()) return false;
    run.progress.begin(`${selected.scenario.suite}/${selected.scenario.name}${label(cell.subject)} counting`);
    const started = performance.now();
    try {
      const output = await session.count(cell.subject);
      for (const [metric, values] of Object.entries(output.samples)) {
        cell.samples[metric] = [...values];
        cell.trialSamples[metric] = [...(output.trialSamples?.[metric] ?? values.map(() => 1))];
      }
      Object.assign(cell.uncounted, output.unavailable);
      if (output.details) Object.assign(cell.details, output.details);
      cell.details.counting_s = Math.round((performance.now() - started) / 10) / 100;
    } catch (error) {
      if (isInterrupted()) return false;
      if (!(error instanceof TrialFailure)) throw error;
      // Counting failed, not the measurement: what it was to count is unavailable, the timed figures stand.
      for (const metric of Object.keys(cell.subject.scenario.metrics)) if (!cell.samples[metric]) cell.uncounted[metric] = `counting failed: ${error.message}`;
    }
    run.progress.end();
  }
  return true;
}

/** After the trials: the check after measuring, the suite's finishing details, and every cell still pending ends ok. */
async function closeCells(session: SuiteSession, cells: readonly Cell[], measuredCells: readonly Cell[]): Promise<void> {
  for (const cell of measuredCells) {
    if (cell.status !== "pending" || !session.recheck) continue;
    const after = await session.recheck(cell.subject);
    if (after.status !== "ok") endCell(cell, "failed", `check after measuring failed: ${after.error}`, after.details);
    // Both checks are kept: the one after measuring, with the one before it under `before`.
    if (after.verification) cell.verification = cell.verification ? { ...after.verification, before: cell.verification } : after.verification;
  }
  for (const cell of measuredCells) {
    const finished = await session.finish?.(cell.subject);
    if (finished?.details) Object.assign(cell.details, finished.details);
    if (finished?.tools) Object.assign(cell.tools, finished.tools);
  }
  for (const cell of cells) if (cell.status === "pending") endCell(cell, "ok");
}

function label(subject: Subject): string {
  const params = Object.entries(subject.params).map(([k, v]) => `${k}=${String(v)}`);
  return [
    ` ${subject.runtime.identity.name}@${subject.runtime.identity.version}`,
    subject.runtime.label === `${subject.runtime.identity.name}-${subject.runtime.identity.version}` ? "" : ` (${subject.runtime.label})`,
    subject.app ? ` ${subject.app}` : "",
    params.length ? ` [${params.join(" ")}]` : "",
  ].join("");
}

async function checkedCells(run: Run, selected: ResolvedScenario): Promise<Cell[]> {
  const session = run.sessions.bySuite.get(selected.suite)!;
  const suiteOptions = run.sessions.options.get(selected.suite);
  const { progress } = run;
  const cells: Cell[] = [];
  let prepareError: string | null = null;
  try {
    await prepareScenario(selected.scenario, (line) => progress.log(line));
  } catch (error) {
    prepareError = errorMessage(error);
  }
  for (const { runtime, subjects } of run.subjects.get(selected)!) {
    const unsupported = unsupportedReason(selected, runtime);
    // A cell that cannot run keeps the app and load point it would have been measured at, so it
    // joins the series of the runtimes that ran it.
    if (unsupported !== null || prepareError !== null) {
      for (const subject of subjects) {
        const cell = pendingCell(subject);
        endCell(cell, unsupported !== null ? "unsupported" : "failed", unsupported ?? prepareError ?? "");
        cells.push(cell);
      }
      continue;
    }
    for (const subject of subjects) {
      // The interrupt's cleanup is closing the session: a check now would start what it has stopped.
      if (isInterrupted()) break;
      const cell = pendingCell(subject);
      const checkStarted = performance.now();
      // A check the interrupt cut short (its child killed, its session closed under it) says nothing about the cell, whether it returned or threw.
      const before = await session.check(subject).catch((error: unknown) => {
        if (isInterrupted()) return null;
        throw error;
      });
      if (before === null || isInterrupted()) break;
      cell.timeout = cellTrialTimeout({ selected, runtime, options: suiteOptions, params: subject.params }, (performance.now() - checkStarted) / 1000, run.trialTimeoutFloorS);
      if (before.verification) cell.verification = before.verification;
      if (before.status !== "ok") {
        endCell(cell, before.status, before.error, before.details);
        progress.log(`${selected.scenario.suite}/${selected.scenario.name}${label(subject)}: ${before.status}: ${firstLine(before.error ?? "")}`);
      } else if (before.details) {
        Object.assign(cell.details, before.details);
      }
      cells.push(cell);
    }
  }
  return cells;
}

async function runTrial(session: SuiteSession, cell: Cell, trialIndex: number, progress: Progress): Promise<void> {
  try {
    const output = await withinTimeout(cell.timeout!, () => session.trial(cell.subject, trialIndex));
    for (const [metric, values] of Object.entries(output.samples)) {
      (cell.samples[metric] ??= []).push(...values);
      (cell.trialSamples[metric] ??= []).push(values.length);
    }
    if (output.details) Object.assign(cell.details, output.details);
    cell.trialsDone += 1;
  } catch (error) {
    if (isInterrupted()) return;
    if (!(error instanceof TrialFailure)) throw error;
    endCell(cell, "failed", `trial ${trialIndex + 1}: ${error.message}`, error.details);
    progress.log(`${cell.subject.scenario.suite}/${cell.subject.scenario.name}${label(cell.subject)}: failed: ${firstLine(error.message)}`);
  }
}

function toDocument(plan: RunPlan, selected: ResolvedScenario, cell: Cell, tools: Record<string, string>): ResultDocument {
  const { scenario } = selected;
  // A subject's view of its scenario may record fewer metrics (no server CPU on an embedded database).
  const recorded = cell.subject.scenario.metrics;
  const metrics: Record<string, MetricSummary> = {};
  for (const [name, definition] of Object.entries(recorded)) {
    const samples = cell.samples[name] ?? [];
    if (samples.length > 0) metrics[name] = { ...definition, samples, ...summarize(samples), trial_samples: cell.trialSamples[name] ?? [] };
  }
  let status = cell.status === "pending" ? "failed" : cell.status;
  let error = cell.error;
  const missing = Object.keys(recorded).filter((name) => !metrics[name] && cell.uncounted[name] === undefined);
  if (status === "ok" && missing.length > 0) {
    status = "failed";
    error = `no samples for ${missing.join(", ")}`;
  }
  const identity = cell.subject.runtime.identity;
  const reproduce = runCommand({
    suite: scenario.suite,
    scenario: scenario.name,
    app: cell.subject.app,
    runtimes: [`${identity.name}@${identity.version}`],
    profile: plan.profile,
    trials: plan.trials,
  });
  return {
    schema: "runtime-bench/result/v1",
    run: { ...plan.run, trials: cell.trials },
    environment: plan.environment,
    runtime: identity,
    label: cell.subject.runtime.label,
    ...(cell.sequential ? { sequential: cell.sequential } : {}),
    suite: scenario.suite,
    scenario: scenario.name,
    scenario_version: scenario.manifest.version,
    app: cell.subject.app,
    params: { ...cell.subject.params },
    status,
    // A process's output can hold a terminal's escape sequences and the hosts it reached; a result is published as it is.
    ...(status !== "ok" ? { error: publishedText(error ?? "unknown failure") } : {}),
    tools,
    metrics,
    ...(cell.verification ? { verification: publishedValue(cell.verification) as typeof cell.verification } : {}),
    ...(Object.keys(cell.details).length > 0 || Object.keys(cell.uncounted).length > 0
      ? { details: publishedValue({ ...cell.details, ...(Object.keys(cell.uncounted).length > 0 ? { counts_unavailable: cell.uncounted } : {}) }) as Record<string, unknown> }
      : {}),
    reproduce,
  };
}
