/**
 * False alarms on real runs: the same versions measured twice, back to back, then compared as a
 * new user would (`compare A B`, no history). Every "faster" or "slower" row is a false alarm.
 *
 *   scripts/benchmark false-alarms run PAIRS OUT -- RUN_ARGS...   measure PAIRS pairs into OUT/run1, OUT/run2, …, then judge them
 *   scripts/benchmark false-alarms DIR1 DIR2 [DIR3 DIR4 …]        judge pairs measured before (DIR1 with DIR2, DIR3 with DIR4, …)
 *   scripts/benchmark false-alarms cpu-sets PAIRS OUT -- RUN_ARGS...  PAIRS pairs with the CPU sets and PAIRS without
 *                                                                  (RUNTIME_BENCH_CPU_SETS=off), taken in turn, and both shifts
 *   scripts/benchmark false-alarms twins RUNS OUT SPEC [--rule R] -- RUN_ARGS...
 *                                                                  RUNS runs of two copies of SPEC's binary side by side,
 *                                                                  each judged by a single look (two labelled builds), or
 *                                                                  with `--rule sequential` as two releases are (a sweep's link)
 *
 * `--record LABEL` (first, with `--held-out` when the pairs were measured after the shift table
 * they are judged by was set) writes the counts of judged pairs as the row LABEL of the entry
 * "false-alarms" of docs/measurements.json, with when, where and the load, and regenerates the
 * documents made from it.
 *
 * e.g. `scripts/benchmark false-alarms run 5 /tmp/fa -- --suite http --scenario json --runtime node@22.11.0 --runtime bun@1.2.0`.
 * Prints the verdicts of each pair, the share of rows with a verdict, and per metric the largest
 * shift between the two runs of a pair: what the run-to-run shift table must cover.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../src/core/errors.ts";
import { compareResults } from "../src/compare/compare.ts";
import { comparePaired } from "../src/compare/paired.ts";
import type { CompareRow, PairedRule, Verdict } from "../src/compare/types.ts";
import { readDocuments } from "../src/results/store.ts";
import { formatTable } from "../src/ui/table.ts";
import { CPU_SETS_VARIABLE } from "../src/tools/cpu-split.ts";
import { bench, tempDir } from "./lib/cli.ts";
import { twinArgs, twins } from "./lib/twins.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import type { FalseAlarmRow, FalseAlarmsEntry } from "../src/core/measurements.ts";

/** `runs` runs of `run RUN_ARGS` into OUT/run1, OUT/run2, …: their folders. */
async function measureRuns(runs: number, out: string, runArgs: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const dirs: string[] = [];
  for (let i = 1; i <= runs; i++) {
    const dir = join(out, `run${i}`);
    const started = Date.now();
    const result = await bench(["run", ...runArgs, "--out", dir], env);
    process.stderr.write(`run ${i}: exit ${result.code}, ${Math.round((Date.now() - started) / 1000)} s\n`);
    // A failed cell still writes its results (judged as not comparable); a run that wrote nothing stops the pairs.
    if (!existsSync(dir)) throw new UserError(`run ${i} wrote no results into ${dir}: ${result.stderr.trim().split("\n").at(-1) ?? ""}`);
    dirs.push(dir);
  }
  return dirs;
}

const VERDICTS: readonly Verdict[] = ["faster", "slower", "inconclusive", "no significant change", "not comparable"];
const shift = (row: CompareRow) => Math.exp(Math.abs(Math.log(row.ratio!))) - 1;

/** Per metric, the largest shift between the two runs of a pair, over every pair. */
function largestShifts(rows: readonly CompareRow[]): Map<string, number> {
  const largest = new Map<string, number>();
  for (const row of rows) {
    if (row.ratio === null) continue;
    const key = `${row.suite} ${row.metric}`;
    largest.set(key, Math.max(largest.get(key) ?? 0, shift(row)));
  }
  return largest;
}

/** Pairs with and without the CPU sets, taken in turn so that both see the same drift of the machine. */
async function compareCpuSets(pairs: number, out: string, runArgs: readonly string[]): Promise<void> {
  const dirs = { pinned: [] as string[], unpinned: [] as string[] };
  for (let pair = 1; pair <= pairs; pair++) {
    dirs.pinned.push(...(await measureRuns(2, join(out, "pinned", `pair${pair}`), runArgs)));
    dirs.unpinned.push(...(await measureRuns(2, join(out, "unpinned", `pair${pair}`), runArgs, { [CPU_SETS_VARIABLE]: "off" })));
  }
  const judged = (folders: string[]) => {
    const rows: CompareRow[] = [];
    for (let i = 0; i < folders.length; i += 2) rows.push(...compareResults(readDocuments([folders[i]!], "BASE"), readDocuments([folders[i + 1]!], "HEAD")));
    return { rows, largest: largestShifts(rows), verdicts: rows.filter((r) => r.verdict === "faster" || r.verdict === "slower").length };
  };
  const pinned = judged(dirs.pinned);
  const unpinned = judged(dirs.unpinned);
  const percent = (value: number | undefined) => (value === undefined ? "-" : `${(value * 100).toFixed(1)} %`);
  const metrics = [...new Set([...pinned.largest.keys(), ...unpinned.largest.keys()])].sort();
  process.stdout.write(`${formatTable(["suite metric", "largest shift with CPU sets", "without"], metrics.map((key) => [key, percent(pinned.largest.get(key)), percent(unpinned.largest.get(key))]))}\n`);
  process.stdout.write(`rows with a verdict: ${pinned.verdicts} of ${pinned.rows.length} with CPU sets, ${unpinned.verdicts} of ${unpinned.rows.length} without (${pairs} pairs each)\n`);
}

/**
 * RUNS runs of two copies of one binary side by side (RUN_ARGS, and the twins as `a` and `b`),
 * each judged as `compare RUN --base a --head b --rule RULE` judges it: by default a single look at
 * 95 %, each cell's spread moderated by its suite's where it can be; `sequential`, as the feed judges
 * two releases of a sweep's link. Every change is a false alarm; the share is printed for the
 * moderated rows and for those judged on their own spread.
 */
async function judgeTwins(runs: number, out: string, spec: string, rule: PairedRule, runArgs: readonly string[]): Promise<CompareRow[]> {
  if (!(runs > 0) || out === undefined || spec === undefined) throw new UserError("twins RUNS OUT SPEC [--rule sequential] -- RUN_ARGS: e.g. twins 2 /tmp/aa node@latest -- --default-selection --trial-budget 0");
  const twin = await twins(spec, tempDir("false-alarms-twins"), "false-alarms");
  const rows: CompareRow[] = [];
  for (const dir of await measureRuns(runs, out, [...runArgs, ...twinArgs(twin)])) {
    const docs = readDocuments([dir], dir);
    rows.push(...comparePaired(docs.filter((d) => d.label === "a"), docs.filter((d) => d.label === "b"), { pairedRule: rule }));
  }
  const judged = rows.filter((row) => row.ratio !== null);
  const alarms = (part: readonly CompareRow[]) => part.filter((row) => row.verdict === "faster" || row.verdict === "slower");
  const line = (what: string, part: readonly CompareRow[]) =>
    `${what}: ${alarms(part).length} of ${part.length} called a change (${part.length === 0 ? "-" : ((100 * alarms(part).length) / part.length).toFixed(1)} %), ${part.filter((row) => row.verdict === "inconclusive").length} inconclusive`;
  process.stdout.write(`rule: ${rule}\n${line("moderated rows", judged.filter((row) => row.moderated_over !== undefined))}\n${line("rows on their own spread", judged.filter((row) => row.moderated_over === undefined))}\n`);
  for (const row of alarms(judged)) process.stdout.write(`  ${row.suite}/${row.scenario} ${row.app ?? ""} ${row.metric}: ×${row.ratio!.toFixed(3)} ${row.verdict} [${row.ci95!.map((v) => v.toFixed(3)).join(", ")}] ${row.pairs} pairs${row.moderated_over === undefined ? "" : `, moderated, ${row.df!.toFixed(1)} df`}\n`);
  return judged;
}

/** `--rule R` among the twins' own arguments: how their pairs are judged (a single look unless `sequential`). */
function twinRule(args: readonly string[]): PairedRule {
  if (args.length === 0) return "single look";
  if (args.length === 2 && args[0] === "--rule" && (args[1] === "sequential" || args[1] === "single-look")) return args[1] === "sequential" ? "sequential" : "single look";
  throw new UserError(`twins: after RUNS OUT SPEC, only --rule sequential or --rule single-look, not '${args.join(" ")}'`);
}

/** `--record LABEL [--held-out]` at the start of the arguments, and the rest. */
function recordOption(args: string[]): { label: string | null; heldOut: boolean; rest: string[] } {
  if (args[0] !== "--record") return { label: null, heldOut: false, rest: args };
  const label = args[1];
  if (!label) throw new UserError("--record needs a label: what the pairs are (e.g. 'http quick, json, all apps')");
  const heldOut = args[2] === "--held-out";
  return { label, heldOut, rest: args.slice(heldOut ? 3 : 2) };
}

/** The pairs' counts as a row of the entry "false-alarms", replacing the row of the same label. */
function record(label: string, heldOut: boolean, startLoad: number, pairs: number, rows: readonly CompareRow[], detail: string): void {
  const { when, where, load } = thisMachine(startLoad);
  const verdicts = rows.filter((r) => r.verdict === "faster" || r.verdict === "slower").length;
  recordMeasurement("false-alarms", (entry) => {
    const old = entry as FalseAlarmsEntry;
    // The entry names the machine of its rows; a row measured elsewhere names its own.
    const note = `${where === old.where ? "" : `on ${where}; `}${detail}`;
    const row: FalseAlarmRow = { runs: label, when, load, held_out: heldOut, pairs, rows: rows.length, verdicts_old_rule: null, verdicts, note };
    return { ...old, rows: [...old.rows.filter((r) => r.runs !== label), row] };
  });
}

async function main(argv: string[]): Promise<void> {
  const startLoad = loadNow();
  const { label, heldOut, rest: args } = recordOption(argv);
  let dirs = args;
  const dash = args.indexOf("--");
  const runArgs = dash < 0 ? [] : args.slice(dash + 1);
  if (args[0] === "cpu-sets") return compareCpuSets(Number(args[1]), args[2]!, runArgs);
  if (args[0] === "twins") {
    const rule = twinRule(args.slice(4, dash < 0 ? undefined : dash));
    const runs = Number(args[1]);
    const rows = await judgeTwins(runs, args[2]!, args[3]!, rule, runArgs);
    const largest = [...largestShifts(rows)].map(([key, value]) => `${key} ${(100 * value).toFixed(1)} %`).join(", ");
    if (label !== null) record(label, heldOut, startLoad, runs, rows, `twins judged by the ${rule} rule; largest shift between them: ${largest}`);
    return;
  }
  if (args[0] === "run") dirs = await measureRuns(2 * Number(args[1]), args[2]!, runArgs);
  if (dirs.length < 2 || dirs.length % 2 !== 0) throw new UserError("give pairs of result folders (or: run PAIRS OUT -- RUN_ARGS, cpu-sets PAIRS OUT -- RUN_ARGS, or twins RUNS OUT SPEC -- RUN_ARGS)");
  const rows: CompareRow[] = [];
  const perPair: string[][] = [];
  for (let i = 0; i < dirs.length; i += 2) {
    const pair = compareResults(readDocuments([dirs[i]!], "BASE"), readDocuments([dirs[i + 1]!], "HEAD"));
    rows.push(...pair);
    perPair.push([`${i / 2 + 1}`, String(pair.length), ...VERDICTS.map((v) => String(pair.filter((r) => r.verdict === v).length))]);
  }
  const withVerdict = rows.filter((r) => r.verdict === "faster" || r.verdict === "slower");
  process.stdout.write(`${formatTable(["pair", "rows", ...VERDICTS], perPair)}\n\n`);
  process.stdout.write(`rows with a verdict: ${withVerdict.length} of ${rows.length} (${((100 * withVerdict.length) / rows.length).toFixed(1)} %)\n`);
  for (const row of withVerdict) process.stdout.write(`  ${row.suite}/${row.scenario} ${row.app ?? ""} ${row.head_runtime} ${row.metric}: ×${row.ratio!.toFixed(3)} ${row.verdict}\n`);
  const metrics = [...new Set(rows.filter((r) => r.ratio !== null).map((r) => `${r.suite} ${r.metric}`))];
  const shifts = metrics.map((key) => {
    const values = rows.filter((r) => r.ratio !== null && `${r.suite} ${r.metric}` === key).map(shift).sort((a, b) => a - b);
    const at = (q: number) => `${(values[Math.min(values.length - 1, Math.floor(q * values.length))]! * 100).toFixed(1)} %`;
    return [key, String(values.length), at(0.5), at(0.9), `${(values.at(-1)! * 100).toFixed(1)} %`];
  });
  process.stdout.write(`\nshift between the two runs of a pair (|HEAD/BASE| as a change):\n${formatTable(["suite metric", "rows", "median", "90th percentile", "largest"], shifts)}\n`);
  if (label !== null) record(label, heldOut, startLoad, dirs.length / 2, rows, `largest shift: ${shifts.map(([key, , , , largest]) => `${key} ${largest}`).join(", ")}`);
}

await main(process.argv.slice(2));
