/**
 * How far the counts of identical runs drift apart: the noise floor of each count, from its own
 * data. Per suite, its default cell (the one the quick profile counts) is measured in PAIRS runs of
 * two subjects, A and A': two copies of the same runtime binary, each with a marker appended so
 * the harness takes them for two builds (they run exactly the same code). Each run gives, per
 * count, the two subjects' medians; their spread is |ln(A'/A)| as a change.
 *
 *   scripts/benchmark counts-noise [PAIRS] [--runtime SPEC]... [--shifts quiet|shared] [SUITE...]
 *
 * PAIRS defaults to 20, the runtimes to the newest Node, Deno and Bun, the suites to all seven.
 * Runs use the quick profile with `--trial-budget 0` (the profile's trials, no adaptive ones; startup
 * with `--trials 10`, so that each subject's counts are the median of five counted trials of three starts each).
 * Prints per suite, runtime and count the median and largest spread over the pairs and how many
 * pairs stayed within 0.5 %, and writes them into the entry "counts-noise" of
 * docs/measurements.json (replacing the rows of the suites and runtimes it ran) with when, where
 * and the load. With `--shifts quiet` (a machine kept quiet) or `--shifts shared` (one under load),
 * it also writes each count's largest spread, over the runtimes and pairs, as that suite's metric
 * in the table of that kind of the entry "run-to-run-shift": what `compare` holds a count to
 * without history (src/compare/noise.ts), in place of the suite's default meant for times (a
 * suite with no table of that kind yet is left as it is). About 2 min per pair of the seven suites on one runtime here, 3 h for the default.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ResultDocument } from "../src/results/types.ts";
import { readDocuments } from "../src/results/store.ts";
import { median } from "../src/stats/summary.ts";
import { DATABASE_COUNT_METRICS } from "../src/suites/database/counts.ts";
import { FILEIO_COUNT_METRICS } from "../src/suites/fileio/counts.ts";
import { HTTP_COUNT_METRICS } from "../src/suites/http/counts.ts";
import { INSTALL_COUNT_METRICS } from "../src/suites/install/counts.ts";
import { STARTUP_COUNT_METRICS } from "../src/suites/startup/counts.ts";
import { WEBSOCKET_COUNT_METRICS } from "../src/suites/websocket/counts.ts";
import { WORKERS_COUNT_METRICS } from "../src/suites/workers/counts.ts";
import { formatTable } from "../src/ui/table.ts";
import { bench, tempDir } from "./lib/cli.ts";
import { twinArgs, twins } from "./lib/twins.ts";
import { loadNow, MEASURED_AT_COLUMN, measuredAt, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import type { ShiftEntry } from "../src/core/measurements.ts";

/** A suite's default cell: what `run` selects of it, and the counts it records. */
interface CountedCell {
  readonly suite: string;
  readonly cell: string;
  readonly args: readonly string[];
  readonly counts: readonly string[];
  /** Its trials where not the quick profile's: the counting pass counts half as many runs. */
  readonly trials?: number;
}

const CELLS: readonly CountedCell[] = [
  // A start is cheap: ten trials, so five counted starts a subject, whose median is what a pair compares.
  { suite: "startup", cell: "startup/hello", args: ["--scenario", "hello"], counts: Object.keys(STARTUP_COUNT_METRICS), trials: 10 },
  { suite: "http", cell: "http/json native", args: ["--scenario", "json", "--app", "native"], counts: Object.keys(HTTP_COUNT_METRICS) },
  { suite: "websocket", cell: "websocket/echo native", args: ["--scenario", "echo", "--app", "native"], counts: Object.keys(WEBSOCKET_COUNT_METRICS) },
  { suite: "fileio", cell: "fileio/read-many native", args: ["--scenario", "read-many", "--app", "native"], counts: Object.keys(FILEIO_COUNT_METRICS) },
  // Each runtime's own SQLite driver (node:sqlite on Node and Deno, bun:sqlite on Bun), no server to start.
  { suite: "database", cell: "database/point-select sqlite", args: ["--scenario", "point-select", "--engine", "sqlite"], counts: Object.keys(DATABASE_COUNT_METRICS) },
  { suite: "workers", cell: "workers/round-trip worker-threads", args: ["--scenario", "round-trip", "--app", "worker-threads"], counts: Object.keys(WORKERS_COUNT_METRICS) },
  { suite: "install", cell: "install/small cache+lockfile", args: ["--scenario", "small", "--app", "npm", "--app", "bun", "--app", "deno"], counts: Object.keys(INSTALL_COUNT_METRICS) },
];

/** The change a spread is counted within. */
const WITHIN = 0.005;

const { values, positionals } = parseArgs({ options: { runtime: { type: "string", multiple: true }, shifts: { type: "string" } }, allowPositionals: true });
if (values.shifts !== undefined && values.shifts !== "quiet" && values.shifts !== "shared") throw new Error(`--shifts takes quiet or shared, not '${values.shifts}'`);
const pairs = /^\d+$/.test(positionals[0] ?? "") ? Number(positionals.shift()) : 20;
const only = positionals;
const specs = values.runtime ?? ["node@latest", "deno@latest", "bun@latest"];
const log = (line: string) => process.stderr.write(`${line}\n`);
const work = tempDir("counts-noise");

/** The two subjects' medians of every count of every cell of one run, as pairs. */
function pairsOf(docs: readonly ResultDocument[], counts: readonly string[]): { key: string; metric: string; a: number; b: number }[] {
  const ok = docs.filter((doc) => doc.status === "ok");
  const cellOf = (doc: ResultDocument) => `${doc.app ?? ""} ${JSON.stringify(doc.params)}`;
  return ok
    .filter((doc) => doc.label === "a")
    .flatMap((a) => {
      const b = ok.find((doc) => doc.label === "b" && cellOf(doc) === cellOf(a));
      if (!b) return [];
      return counts.filter((metric) => a.metrics[metric] && b.metrics[metric]).map((metric) => ({ key: cellOf(a), metric, a: a.metrics[metric]!.median, b: b.metrics[metric]!.median }));
    });
}

/** |ln(b/a)| as a change; 0 where both are 0, and unknown where only one is. */
const spread = (a: number, b: number): number | null => (a === b ? 0 : a > 0 && b > 0 ? Math.exp(Math.abs(Math.log(b / a))) - 1 : null);
const percent = (fraction: number) => `${(fraction * 100).toFixed(2)} %`;

const COLUMNS = {
  cell: "cell",
  runtime: "runtime",
  metric: "count",
  median_value: "median count",
  pairs: "pairs",
  median_spread: "median spread",
  largest_spread: "largest spread",
  within: "pairs within 0.5 %",
} as const;
type Row = Record<keyof typeof COLUMNS, string | number>;

const rows: Row[] = [];
const began = Date.now();
const startLoad = loadNow();
for (const spec of specs) {
  const twin = await twins(spec, work, "counts-noise");
  for (const cell of CELLS.filter((c) => only.length === 0 || only.includes(c.suite))) {
    const seen = new Map<string, { values: number[]; spreads: (number | null)[] }>();
    for (let i = 1; i <= pairs; i++) {
      const out = join(work, `${cell.suite}-${twin.runtime}-${i}`);
      const started = Date.now();
      const trials = cell.trials === undefined ? [] : ["--trials", String(cell.trials)];
      const runArgs = ["run", "--suite", cell.suite, ...cell.args, "--profile", "quick", ...trials, "--trial-budget", "0", "--out", out];
      const run = await bench([...runArgs, ...twinArgs(twin)]);
      if (run.code !== 0) throw new Error(`${cell.cell} on ${twin.runtime}, pair ${i}: scripts/bench run exited ${run.code}: ${run.stderr.trim().split("\n").slice(-3).join(" / ")}`);
      const found = pairsOf(readDocuments([out], cell.cell), cell.counts);
      for (const { metric, a, b } of found) {
        const entry = seen.get(metric) ?? { values: [], spreads: [] };
        entry.values.push(a, b);
        entry.spreads.push(spread(a, b));
        seen.set(metric, entry);
      }
      log(`${cell.cell} ${twin.runtime} pair ${i}/${pairs}: ${found.map(({ metric, a, b }) => `${metric} ${a}/${b}`).join(", ")} (${Math.round((Date.now() - started) / 1000)} s)`);
    }
    for (const [metric, { values: counted, spreads }] of seen) {
      const known = spreads.filter((s): s is number => s !== null);
      rows.push({
        cell: cell.cell,
        runtime: twin.runtime,
        metric,
        median_value: Number(median(counted).toPrecision(4)),
        pairs: spreads.length,
        median_spread: known.length > 0 ? percent(median(known)) : "—",
        largest_spread: known.length > 0 ? percent(Math.max(...known)) : "—",
        within: `${known.filter((s) => s <= WITHIN).length}/${spreads.length}`,
      });
    }
  }
}
const keys = Object.keys(COLUMNS) as (keyof typeof COLUMNS)[];
process.stdout.write(`${formatTable(Object.values(COLUMNS), rows.map((row) => keys.map((k) => String(row[k]))))}\n\n${pairs} A/A pairs per cell and runtime, quick profile, in ${Math.round((Date.now() - began) / 60_000)} min.\n`);

const ran = new Set(rows.map((row) => `${row.cell} ${row.runtime}`));
// Runs of some suites replace only their own rows, so each row says when it was measured; the
// entry's when, where and load (the README's figures) stay those of the run that measured startup.
const here = thisMachine(startLoad);
const measured = measuredAt(here);
recordMeasurement("counts-noise", (old) => {
  const kept = (old?.rows ?? []).filter((row) => !ran.has(`${String(row.cell)} ${String(row.runtime)}`));
  const all = [...kept, ...rows.map((row) => ({ ...row, measured_at: measured }))];
  const startupRow = (runtime: string, metric: string) => all.findIndex((row) => row.cell === "startup/hello" && row.runtime === runtime && row.metric === metric);
  const summary = ["node", "deno", "bun"].flatMap((runtime) =>
    ["syscalls", "minor_faults"]
      .filter((metric) => startupRow(runtime, metric) >= 0)
      .map((metric) => ({ measure: `startup/hello on ${runtime}: ${metric} of two copies of one binary in one run (A/A pairs)`, row: startupRow(runtime, metric), figure: "largest spread {largest_spread}; {within} pairs within 0.5 %" })),
  );
  const measuredStartup = rows.some((row) => row.cell === "startup/hello");
  return {
    title: "Counts: how far identical runs drift apart",
    benchmark: measuredStartup || old === undefined ? `scripts/benchmark counts-noise ${pairs}${values.runtime ? values.runtime.map((r) => ` --runtime ${r}`).join("") : ""}${values.shifts ? ` --shifts ${values.shifts}` : ""}${only.length > 0 ? ` ${only.join(" ")}` : ""}` : old.benchmark,
    ...(measuredStartup || old === undefined ? here : { when: old.when, where: old.where, load: old.load }),
    summary,
    columns: { ...COLUMNS, measured_at: MEASURED_AT_COLUMN },
    rows: all,
    notes: old?.notes ?? [
      "Each suite's default cell, measured in runs of two copies of one runtime binary (a marker appended to each, so the harness takes them for two builds), quick profile without adaptive trials. A pair's spread is |ln(A'/A)| of the two subjects' medians of a count, as a change; a count the kernel keeps exactly moves only with what the program does, so its spread is its own noise floor. The scheduling calls (futex, epoll waits, sched_yield, sleeps) are outside every total (docs/methodology.md, \"Counts\").",
    ],
  };
});

/** The least shift a count is held to: a count that never moved in the pairs may still move by a call. */
const LEAST_SHIFT = 0.001;

/** Each suite's counts' largest spread, rounded up to a tenth of a percent and at least LEAST_SHIFT: what a count moves between identical runs. */
function largestSpreads(): Map<string, Record<string, number>> {
  const bySuite = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const largest = Number.parseFloat(String(row.largest_spread));
    if (!Number.isFinite(largest)) continue;
    const suite = String(row.cell).split("/")[0]!;
    const metrics = bySuite.get(suite) ?? {};
    metrics[String(row.metric)] = Math.max(metrics[String(row.metric)] ?? LEAST_SHIFT, Math.ceil(largest * 10) / 1000);
    bySuite.set(suite, metrics);
  }
  return bySuite;
}

if (values.shifts === "quiet" || values.shifts === "shared") {
  const kind = values.shifts;
  recordMeasurement("run-to-run-shift", (old) => {
    const entry = old as ShiftEntry;
    const tables = { ...entry.shifts[kind] };
    for (const [suite, metrics] of largestSpreads()) {
      const table = tables[suite];
      // A table of its own would change how this suite's times are held (the widest default of the kind, or another kind's wider figure): measure its times first.
      if (!table) {
        log(`${suite}: no ${kind} table in run-to-run-shift yet (its times were not measured on that kind of machine), so its counts keep the widest default`);
        continue;
      }
      tables[suite] = { ...table, metrics: { ...table.metrics, ...metrics } };
    }
    const note = `Counts (the count metrics of each suite's table, docs/methodology.md "Counts"): the ${kind} table's from \`scripts/benchmark counts-noise --shifts ${kind}\` (${here.when}), each the largest spread of two copies of one binary in one run, at least ${LEAST_SHIFT * 100} %.`;
    const notes = [...(entry.notes ?? []).filter((line) => !line.startsWith(`Counts (the count metrics of each suite's table, docs/methodology.md "Counts"): the ${kind} table's`)), note];
    return { ...entry, shifts: { ...entry.shifts, [kind]: tables }, notes };
  });
}
