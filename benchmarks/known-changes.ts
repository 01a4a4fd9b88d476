/**
 * Do our verdicts see what the runtime teams say they changed? Each entry of
 * docs/known-changes.json (a documented change, or a control whose notes change nothing on
 * the cell's path) replayed as one paired run of its two releases, its cell's headline metric
 * judged by `scripts/bench compare RUN --base base --head head --rule sequential` (the release job's rule), against the documented direction.
 *
 *   scripts/benchmark known-changes [--profile quick|full|both] [--only ID]... [--work DIR] [--max-load L] [--no-record]
 *   scripts/benchmark known-changes --plan [--profile ...] [--only ID]...
 *
 * `full` is the release job's profile (docs/release-job.md): the full profile's parameters, the
 * release beside its predecessor in one run, adaptive trials up to each cell's cap (the job's 6 h
 * limit leaves a lone cell its cap); each row says whether the job's own selection
 * (`--default-selection`) measures the cell on release day or only the weekly run does. `quick`
 * is the default run's profile. Both by default, quick first.
 *
 * Prints per entry the measured ratio, its interval, the verdict and the outcome (a change
 * detected, missed or reversed; a control held or alarmed), then per suite and in total: documented
 * changes called in their direction, controls called a change. A replay that misses or alarms
 * gets a reproduction folder (`scripts/bench repro`) in the work folder, to measure the size our
 * workload shows (docs/known-changes.md). `--work DIR` keeps the runs there and resumes: a replay
 * whose run finished is judged again, not measured again. Without it the runs go to a temporary
 * folder removed at exit. Unless `--no-record` (which prints them instead), the entries
 * "known-changes-replays" (each replay) and "known-changes" (the tallies) of docs/measurements.json
 * are written: a replay replaces its entry's row of its profile, the other entries keep theirs
 * (with their own times) while their pair and cell are still the corpus's, and the tallies of the
 * profiles replayed are counted again over every entry's row (another profile's stay as they
 * were). So an entry moved to a better cell is replayed alone (`--only`), not with the whole
 * corpus; an entry whose recorded row no longer matches counts as not measured until it is
 * replayed.
 * Each replay that measures waits first, as a sweep's run does, until the 1-minute load average is
 * below `--max-load` (half the CPUs by default): the replay before it leaves its own load for about a
 * minute, and a replay must not start beside anything else.
 * `--plan` prints each replay's estimated time (`scripts/bench plan`'s) and measures nothing.
 */
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { CompareRow } from "../src/compare/types.ts";
import { UserError } from "../src/core/errors.ts";
import { liveMachine, parseMaxLoad, waitForQuiet } from "../src/env/machine-check.ts";
import type { Figure, MeasurementEntry } from "../src/core/measurements.ts";
import { planRun } from "../src/orchestrate/estimate.ts";
import { listResultFiles, readResultFile, runFolderNames } from "../src/results/store.ts";
import { cutByInterrupt } from "../src/results/types.ts";
import { parseSpec } from "../src/runtimes/spec.ts";
import { selectScenarios } from "../src/scenarios/select.ts";
import { resolveScenarios } from "../src/suites/resolve.ts";
import { defaultSelection } from "../src/suites/selection.ts";
import { formatDuration } from "../src/ui/duration.ts";
import { formatTable } from "../src/ui/table.ts";
import { bench, tempDir } from "./lib/cli.ts";
import {
  BASE_LABEL,
  HEAD_LABEL,
  cellAndMetric,
  cellName,
  cellParams,
  cellRow,
  loadKnownChanges,
  outcomeOf,
  pairName,
  runArgs,
  standingRow,
  tally,
  type KnownChange,
  type Outcome,
  type Replay,
  type ReplayProfile,
  type Tally,
} from "./lib/known-changes.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

interface Options {
  readonly profiles: readonly ReplayProfile[];
  /** The whole corpus, and the entries to replay (all of it, or those of --only). */
  readonly corpus: readonly KnownChange[];
  readonly entries: readonly KnownChange[];
  /** Where runs go: kept and resumed when given, else a temporary folder. */
  readonly work: string | undefined;
  readonly record: boolean;
  readonly plan: boolean;
  /** No replay starts to measure until the 1-minute load average is below this. */
  readonly maxLoad: number;
}

function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: { profile: { type: "string" }, only: { type: "string", multiple: true }, work: { type: "string" }, "max-load": { type: "string" }, "no-record": { type: "boolean" }, plan: { type: "boolean" } },
  });
  const profile = values.profile ?? "both";
  if (!["quick", "full", "both"].includes(profile)) throw new UserError(`--profile must be quick, full or both, not '${profile}'`);
  const corpus = loadKnownChanges();
  const only = values.only ?? [];
  const unknown = only.filter((id) => !corpus.some((entry) => entry.id === id));
  if (unknown.length > 0) throw new UserError(`--only: no entry '${unknown[0]}' in the corpus (ids: ${corpus.map((entry) => entry.id).join(", ")})`);
  return {
    profiles: profile === "both" ? ["quick", "full"] : [profile as ReplayProfile],
    corpus,
    entries: only.length === 0 ? corpus : corpus.filter((entry) => only.includes(entry.id)),
    work: values.work === undefined ? undefined : resolve(values.work),
    record: !values["no-record"],
    plan: values.plan ?? false,
    maxLoad: parseMaxLoad(values["max-load"], "known-changes"),
  };
}

/** Whether the release job measures the cell on release day: its suite's default selection holds the scenario and the app. */
function inReleaseSelection(entry: KnownChange): boolean {
  const selection = defaultSelection([entry.cell.suite]);
  const apps = selection.suiteOptions[entry.cell.suite]?.app ?? [];
  return selection.scenarios.includes(`${entry.cell.suite}/${entry.cell.scenario}`) && (entry.cell.app === undefined || apps.includes(entry.cell.app));
}

/** `scripts/bench plan`'s estimate of one replay: seconds at the profile's minimum trials and with every cell at its cap. */
function replayCost(entry: KnownChange, profile: ReplayProfile): { seconds: number; maxSeconds: number } {
  const { suite, scenario, app } = entry.cell;
  const scenarios = resolveScenarios(selectScenarios({ suites: [suite], scenarios: [`${suite}/${scenario}`] }), profile);
  const specs = [entry.base, entry.head].map((version) => parseSpec(`${entry.runtime}@${version}`));
  const [plan] = planRun(scenarios, specs, { [suite]: { app: app === undefined ? [] : [app] } });
  return { seconds: plan?.seconds ?? 0, maxSeconds: plan?.maxSeconds ?? 0 };
}

function printPlan(options: Options): void {
  const rows: string[][] = [];
  for (const profile of options.profiles) {
    let [minimum, cap] = [0, 0];
    for (const entry of options.entries) {
      const cost = replayCost(entry, profile);
      [minimum, cap] = [minimum + cost.seconds, cap + cost.maxSeconds];
      rows.push([profile, entry.id, pairName(entry), cellName(entry), formatDuration(cost.seconds), formatDuration(cost.maxSeconds)]);
    }
    rows.push([profile, "total", `${options.entries.length} replays`, "", formatDuration(minimum), formatDuration(cap)]);
  }
  process.stdout.write(`${formatTable(["profile", "entry", "pair", "cell", "at the minimum trials", "every cell at its cap"], rows)}\n\n`);
  process.stdout.write("Trials and checks only (scripts/bench plan's estimates): provisioning each runtime version and installing apps add a few minutes the first time.\n");
}

/**
 * The run folder a replay of this entry wrote, once its run finished (its summary written, no cell
 * cut short by an interrupt), or null. A run of other releases (the entry's pair changed since) is
 * not this entry's.
 */
function finishedRun(out: string, entry: KnownChange): string | null {
  const [name] = runFolderNames(out);
  const folder = name === undefined ? null : join(out, name);
  if (folder === null || !existsSync(join(folder, "summary.txt"))) return null;
  const expected: Record<string, string> = { [BASE_LABEL]: entry.base, [HEAD_LABEL]: entry.head };
  const docs = listResultFiles([folder]).map(readResultFile);
  return docs.length > 0 && docs.every((doc) => doc.runtime.name === entry.runtime && expected[doc.label ?? ""] === doc.runtime.version && !cutByInterrupt(doc)) ? folder : null;
}

/** Measures the entry's pair (or finds the finished run in the work folder), then judges the cell with compare. */
async function replay(entry: KnownChange, profile: ReplayProfile, work: string, maxLoad: number): Promise<Replay & { runDir?: string; reason?: string }> {
  const out = join(work, profile, entry.id);
  let runDir = finishedRun(out, entry);
  if (runDir === null) {
    await waitForQuiet("known-changes", maxLoad, { ...liveMachine, log, stop: () => null });
    rmSync(out, { recursive: true, force: true });
    const started = Date.now();
    const run = await bench(runArgs(entry, profile, out));
    log(`${profile} ${entry.id}: scripts/bench run exited ${run.code} after ${formatDuration((Date.now() - started) / 1000)}`);
    runDir = finishedRun(out, entry);
    if (runDir === null) return { entry, profile, outcome: "not measured", reason: lastLine(run.stderr) };
  } else log(`${profile} ${entry.id}: judged again from ${runDir}`);
  // Two releases, one beside the other: the release job's question, judged by its sequential rule though the subjects carry labels.
  const compared = await bench(["compare", runDir, "--base", BASE_LABEL, "--head", HEAD_LABEL, "--rule", "sequential", "--json"]);
  if (compared.code !== 0) return { entry, profile, outcome: "not measured", runDir, reason: lastLine(compared.stderr) };
  const row = cellRow(entry, profile, JSON.parse(compared.stdout) as CompareRow[]);
  return { entry, profile, outcome: outcomeOf(entry, row), runDir, ...(row ? { row } : { reason: "no ok result of the cell in the run" }) };
}

const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

/** A reproduction folder of the cell's two results, for a replay whose verdict disagrees with the documentation. */
async function writeRepro(replayed: Replay & { runDir?: string }, work: string): Promise<string | null> {
  if (!replayed.runDir || !["missed", "reversed", "alarmed"].includes(replayed.outcome)) return null;
  const { entry, profile } = replayed;
  const want = Object.entries(cellParams(entry, profile));
  const files = listResultFiles([replayed.runDir]).filter((file) => {
    const doc = readResultFile(file);
    return doc.suite === entry.cell.suite && doc.scenario === entry.cell.scenario && doc.app === (entry.cell.app ?? null) && want.every(([key, value]) => doc.params[key] === value);
  });
  const out = join(work, "repro", `${profile}-${entry.id}`);
  rmSync(out, { recursive: true, force: true });
  const written = await bench(["repro", ...files, "--out", out]);
  if (written.code === 0) return out;
  log(`${profile} ${entry.id}: no reproduction: ${lastLine(written.stderr)}`);
  return null;
}

const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${Math.round((100 * part) / whole)} %`);
const measured = (row?: CompareRow) => (row?.ratio == null ? "—" : `${row.ratio.toFixed(3)}${row.ci95 ? ` [${row.ci95[0].toFixed(3)}, ${row.ci95[1].toFixed(3)}]` : ""}`);
const documented = (entry: KnownChange) => (entry.documented.factor === undefined ? "no change" : `${entry.documented.direction} ×${entry.documented.factor}`);

/** When a replay's run was measured, the 1-minute load at its start, and on which machine: from the run's own results, so a replay judged again keeps them. */
interface RunMeasured {
  readonly at: string;
  readonly load: number | undefined;
  readonly machine: string;
}

/** A replay of now, or one recorded before (`recordedRow`: its row as it was written). */
type Replayed = Replay & { repro?: string | null; reason?: string; run: RunMeasured | null; recordedRow?: Row };

function runMeasured(runDir: string | undefined): RunMeasured | null {
  const [file] = runDir === undefined ? [] : listResultFiles([runDir]);
  if (file === undefined) return null;
  const { run, environment } = readResultFile(file);
  return { at: run.started_at.slice(0, 16).replace("T", " "), load: environment.machine?.load_average?.[0], machine: `${environment.cpus} logical CPUs (${environment.cpu_model})` };
}

/** The measured columns of a row of one or more replays: the span of their runs' times and loads, and their machines. */
function measuredColumns(replays: readonly Replayed[]): { measured_at: string; load: string; machine: string } {
  const runs = replays.flatMap((r) => r.run ?? []);
  const ats = runs.map((run) => run.at).sort();
  const loads = runs.flatMap((run) => run.load ?? []);
  const [low, high] = [Math.min(...loads).toFixed(1), Math.max(...loads).toFixed(1)];
  return {
    measured_at: ats.length === 0 ? "not measured" : ats[0] === ats.at(-1) ? ats[0]! : `${ats[0]} to ${ats.at(-1)}`,
    load: loads.length === 0 ? "unknown" : `${low === high ? low : `${low}–${high}`} at the ${runs.length === 1 ? "run's start" : "runs' starts"}`,
    machine: [...new Set(runs.map((run) => run.machine))].join("; ") || "—",
  };
}

/** The quick and full rows may come from different days and hosts (a VM's host changes between days). */
const MEASURED_COLUMNS = { measured_at: "measured (each run's start)", load: "1-minute load average", machine: "machine" } as const;

const REPLAY_COLUMNS = {
  profile: "profile",
  entry: "entry",
  pair: "pair",
  cell: "cell and metric",
  documented: "documented",
  measured: "head/base measured",
  pairs: "pairs",
  verdict: "verdict",
  outcome: "outcome",
  release_job: "release job measures it on",
  ...MEASURED_COLUMNS,
} as const;

/** One row per replay: what docs/known-changes.md reads each entry's recorded figures from. */
function replayRows(replays: readonly Replayed[]): Row[] {
  return replays.map((r) => r.recordedRow ?? {
    profile: r.profile,
    entry: r.entry.id,
    pair: pairName(r.entry),
    cell: cellAndMetric(r.entry),
    documented: documented(r.entry),
    measured: measured(r.row),
    pairs: r.row?.pairs === undefined ? "—" : r.row.pairs,
    verdict: r.row?.verdict ?? "—",
    outcome: r.outcome,
    release_job: r.profile === "full" ? (inReleaseSelection(r.entry) ? "release day" : "weekly run") : "—",
    ...measuredColumns([r]),
  });
}

function printTable(columns: Readonly<Record<string, string>>, rows: readonly Record<string, string | number>[]): void {
  const keys = Object.keys(columns);
  process.stdout.write(`${formatTable(Object.values(columns), rows.map((row) => keys.map((key) => String(row[key]))))}\n\n`);
}

/** Rows of the summary: per profile, each suite, then the total. */
function tallyRows(replays: readonly Replayed[], profiles: readonly ReplayProfile[]): Record<string, string | number>[] {
  const wrong = (rs: readonly Replayed[]) => rs.filter((r) => r.outcome !== "detected" && r.outcome !== "held");
  const row = (profile: ReplayProfile, suite: string, of: readonly Replayed[]) => {
    const t: Tally = tally(of);
    return {
      profile,
      suite,
      changes: t.changes,
      detected: t.detected,
      rate: percent(t.detected, t.changes),
      controls: t.controls,
      alarmed: t.alarmed,
      unmeasured: t.unmeasured,
      not_as_documented: wrong(of).map((r) => `${r.entry.id} (${r.outcome})`).join(", ") || "—",
      ...measuredColumns(of),
    };
  };
  return profiles.flatMap((profile) => {
    const ofProfile = replays.filter((r) => r.profile === profile);
    const suites = [...new Set(ofProfile.map((r) => r.entry.cell.suite))].sort();
    return [...suites.map((suite) => row(profile, suite, ofProfile.filter((r) => r.entry.cell.suite === suite))), row(profile, "total", ofProfile)];
  });
}

const COLUMNS = {
  profile: "profile",
  suite: "suite",
  changes: "documented changes",
  detected: "called in their direction",
  rate: "rate",
  controls: "controls",
  alarmed: "controls called a change",
  unmeasured: "not measured",
  not_as_documented: "not as documented (see docs/known-changes.md)",
  ...MEASURED_COLUMNS,
} as const;

const PROFILE_NAMES: Readonly<Record<ReplayProfile, string>> = { full: "the release job's profile (full, adaptive trials)", quick: "the quick profile" };

type Row = Record<string, string | number>;

/** A replay recorded before, read back from its row: what the tallies count of it. */
function recordedReplay(entry: KnownChange, profile: ReplayProfile, row: Row): Replayed {
  const load = Number.parseFloat(String(row.load));
  const run = row.measured_at === "not measured" ? null : { at: String(row.measured_at), load: Number.isNaN(load) ? undefined : load, machine: String(row.machine) };
  return { entry, profile, outcome: row.outcome as Outcome, run, recordedRow: row };
}

/**
 * The recorded replays once this time's are in: for each profile recorded before or replayed now,
 * each corpus entry's replay of now, else its recorded row if that row is still of the entry's
 * pair and cell, else the entry not measured.
 */
function mergedReplays(corpus: readonly KnownChange[], old: MeasurementEntry | undefined, now: readonly Replayed[]): Replayed[] {
  const recorded = old?.rows ?? [];
  const profiles = (["quick", "full"] as const).filter((profile) => [...now, ...recorded].some((r) => r.profile === profile));
  return profiles.flatMap((profile) =>
    corpus.map((entry): Replayed => {
      const fresh = now.find((r) => r.profile === profile && r.entry.id === entry.id);
      if (fresh) return fresh;
      const row = standingRow(recorded, entry, profile);
      return row ? recordedReplay(entry, profile, row as Row) : { entry, profile, outcome: "not measured", run: null };
    }),
  );
}

const profilesOf = (replays: readonly Replayed[]) => [...new Set(replays.map((r) => r.profile))];

/** The command behind a recorded entry: its rows may come from several invocations, each row says when. */
const BENCHMARK = "scripts/benchmark known-changes [--profile quick|full|both] [--only ID]... (each row: when its runs started)";

function tallyEntry(all: readonly Readonly<Record<string, Figure>>[], here: Here): MeasurementEntry {
  return {
    title: "Known changes: the runtime teams' documented changes, replayed",
    benchmark: BENCHMARK,
    ...here,
    load: "per row",
    summary: all.flatMap((r, i) =>
      r.suite === "total"
        ? [
            {
              measure: `documented changes of docs/known-changes.json called in their direction, ${PROFILE_NAMES[r.profile as ReplayProfile]}; controls called a change`,
              row: i,
              figure: "{detected} of {changes} ({rate}); controls: {alarmed} of {controls}",
              // The two profiles' rows may come from different days: each headline says its own span.
              when: String(r.measured_at),
              load: String(r.load),
            },
          ]
        : [],
    ),
    columns: COLUMNS,
    rows: all,
    notes: [
      "Each entry of [docs/known-changes.json](known-changes.json) measured as one paired run of its two releases, its cell's headline metric judged by `scripts/bench compare RUN --base base --head head --rule sequential` (the release job's rule). Each replay's figures: [known changes, replay by replay](#known-changes-replays); the entries, their sources, and the explanation of each change not called as documented: [known changes](known-changes.md).",
    ],
  };
}

function replaysEntry(rows: readonly Row[], here: Here): MeasurementEntry {
  return {
    title: "Known changes, replay by replay",
    benchmark: BENCHMARK,
    ...here,
    load: "per row",
    columns: REPLAY_COLUMNS,
    rows,
    notes: [
      "Each replay of [known changes](#known-changes): the cell's headline metric, head over base (the ratio of medians of the trial pairs), with the interval `compare` printed at the sequential rule's level, its pairs and verdict, and the outcome: a documented change `detected` (called in its direction), `missed` or `reversed`; a control `held` or `alarmed`. In the full profile, whether the release job measures the cell on release day (its default selection) or only the weekly run does. [docs/known-changes.md](known-changes.md) explains every outcome that is not as documented.",
    ],
  };
}

type Here = ReturnType<typeof thisMachine>;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.plan) return printPlan(options);
  const startLoad = loadNow();
  const work = options.work ?? tempDir("known-changes");
  const replays: Replayed[] = [];
  for (const profile of options.profiles) {
    for (const entry of options.entries) {
      const replayed = await replay(entry, profile, work, options.maxLoad);
      const repro = await writeRepro(replayed, work);
      log(`${profile} ${entry.id}: ${replayed.row?.verdict ?? replayed.reason ?? "not measured"} → ${replayed.outcome}`);
      replays.push({ ...replayed, repro, run: runMeasured(replayed.runDir) });
    }
  }
  // A replay judged again was measured when its run was, not now.
  const latest = replays.flatMap((r) => r.run?.at ?? []).sort().at(-1);
  const here = { ...thisMachine(startLoad), ...(latest === undefined ? {} : { when: latest }) };
  const perReplay = replayRows(replays);
  printTable({ ...REPLAY_COLUMNS, repro: "reproduction or reason" }, perReplay.map((row, i) => ({ ...row, repro: replays[i]!.repro ?? replays[i]!.reason ?? "" })));
  const tallies = tallyRows(replays, options.profiles);
  printTable(COLUMNS, tallies);
  if (!options.record) {
    const entries = { "known-changes": tallyEntry(tallies, here), "known-changes-replays": replaysEntry(perReplay, here) };
    process.stdout.write(`the entries --no-record left unwritten:\n${JSON.stringify(entries, null, 2)}\n`);
    return;
  }
  let merged: Replayed[] = [];
  recordMeasurement("known-changes-replays", (old) => {
    merged = mergedReplays(options.corpus, old, replays);
    return replaysEntry(replayRows(merged), here);
  });
  // A profile not replayed now keeps its tallies as they were: they may predate the per-replay rows.
  const replayed = profilesOf(replays);
  recordMeasurement("known-changes", (old) =>
    tallyEntry([...(old?.rows ?? []).filter((row) => !replayed.includes(row.profile as ReplayProfile)), ...tallyRows(merged.filter((r) => replayed.includes(r.profile)), replayed)], here),
  );
  const stale = merged.filter((r) => r.run === null && !replays.includes(r)).map((r) => `${r.profile} ${r.entry.id}`);
  if (stale.length > 0) log(`no replay recorded of its pair and cell as the corpus names them now (replay it with --only): ${stale.join(", ")}`);
}

await main();
