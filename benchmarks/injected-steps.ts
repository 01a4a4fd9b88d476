/**
 * Does the paired design see a known slowdown, and only a real one? Node 22.11.0 behind small
 * wrapper scripts (`node@path:`), measured in runs of two subjects each, as a user compares two
 * builds. Every wrapper preloads, with `--require`, a file that burns CPU time once per start for
 * startup/hello (PBKDF2 iterations), or per request (a spin on the clock, wrapping http.Server's
 * request event) for http/json on the native app: A's burns next to nothing, B's a fixed amount,
 * so loading the preload costs both sides alike and the step is the burn alone. A/A runs pair two
 * A wrappers, A/B runs an A with a B. The apps are unchanged.
 *
 *   scripts/benchmark injected-steps [PAIRS] [quick|full|default] [CASE...]
 *
 * CASE: `startup` and `http` (the burns below), `startup-counts` and `http-counts` (a step of one
 * system call, COUNT_CASES); default: all four.
 *
 * PAIRS (default 20) A/A runs and PAIRS A/B runs per suite, each judged by `comparePaired` on the
 * suite's headline metric (startup wall_ms, http rps). The burn is first sized from the first A/A
 * run's median (5 % of a start, or the time per request that takes 10 % off the requests per
 * second), then refitted over four uncounted calibration runs.
 * Prints per suite the detection rate of the step (verdict "slower"), the mean measured ratio of
 * the A/B runs, and the A/A false-verdict rate (a verdict of "faster" or "slower"), and
 * writes them into the entry "injected-steps" of docs/measurements.json (replacing the rows of the
 * suites it ran) with when, where and the load.
 *
 * The profile is each suite's cheapest that sees its step (`default`): startup's full (10 to 30
 * trials of 30 starts), HTTP's quick with `--trials 10` (10 to 30 trials of 2 s); a profile
 * named on the command line applies to both. By default, 20 pairs of both suites (80 runs) take
 * about two hours, less where runs decide early.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { comparePaired } from "../src/compare/paired.ts";
import { explainRows, formatSyscallDiff, type ExplainedRow } from "../src/compare/syscall-diff.ts";
import type { CompareRow } from "../src/compare/types.ts";
import { readDocuments } from "../src/results/store.ts";
import { mean } from "../src/stats/summary.ts";
import { provision } from "../src/runtimes/provision.ts";
import { formatTable } from "../src/ui/table.ts";
import { bench, tempDir } from "./lib/cli.ts";
import { loadNow, MEASURED_AT_COLUMN, measuredAt, recordMeasurement, thisMachine } from "./lib/measurements.ts";

interface SuiteCase {
  readonly suite: string;
  /** The cell it measures, as the README names it. */
  readonly cell: string;
  readonly args: readonly string[];
  /** The profile its runs use unless the command line names one: the cheapest that can see the step. */
  readonly profile: string;
  /** Its minimum trials (`run --trials`), when not the profile's. */
  readonly trials?: number;
  readonly metric: string;
  /** B/A of `metric` at the injected step: 1.05 for a start 5 % longer, 0.9 for 10 % fewer requests per second. */
  readonly stepRatio: number;
  /** The time one unit of work (a start, a request) takes, in µs, from A's median of `metric`. */
  unitUs(median: number): number;
  /** The fraction by which one unit of work grew when B/A of `metric` is `ratio`. */
  lengthening(ratio: number): number;
  /** A preload burning about `burnUs`: A loads it with 0, B with the step's, so loading it costs both sides alike. */
  preload(burnUs: number): string;
}

/**
 * Spins for `us` microseconds on the clock: on a quiet machine, `us` of the main thread's CPU time
 * per request. The process's CPU clock (`process.cpuUsage`) cannot size such a burn here: a read
 * costs up to tens of microseconds, and it counts the other threads' time too.
 */
const spinFunction = (us: number) => `
function burn() {
  const end = process.hrtime.bigint() + ${Math.round(us * 1000)}n;
  while (process.hrtime.bigint() < end);
}`;

const CASES: readonly SuiteCase[] = [
  {
    suite: "startup",
    cell: "startup/hello",
    args: ["--suite", "startup", "--scenario", "hello"],
    // Quick's 10 starts a trial leave a 10-pair interval of ±5–9 % here: a 5 % step was called in 1 of 2.
    profile: "full",
    metric: "wall_ms",
    stepRatio: 1.05,
    unitUs: (medianMs) => medianMs * 1000,
    lengthening: (ratio) => ratio - 1,
    // A spin is a JavaScript loop, and at start it did not cost its length: spins of 0.7 ms and
    // 1.7 ms both made a start about 12 % longer. PBKDF2 burns in C++ (about 0.2 µs an iteration
    // here), with no JavaScript to compile.
    preload: (burnUs) => `require("node:crypto").pbkdf2Sync("a", "b", ${Math.max(1, Math.round(burnUs / 0.2))}, 32, "sha256");\n`,
  },
  {
    suite: "http",
    cell: "http/json",
    args: ["--suite", "http", "--scenario", "json", "--app", "native"],
    // Quick's own 2 to 10 pairs left A/A intervals of ±6–15 %, and 10 to 30 pairs ±5 % (measured when its trials were 0.8 s).
    profile: "quick",
    trials: 10,
    metric: "rps",
    stepRatio: 0.9,
    unitUs: (rps) => 1e6 / rps,
    // Throughput R with b more per request becomes 1 / (1/R + b).
    lengthening: (ratio) => 1 / ratio - 1,
    preload(burnUs) {
      return `${spinFunction(burnUs)}
const http = require("node:http");
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === "request") burn();
  return emit.call(this, event, ...args);
};
`;
    },
  },
];

/**
 * A step only a count sees: B makes one more system call per start or per request than A, from a
 * preload both load (A's sets up the same and makes no call). No calibration: the step is the call.
 * Judged on the count that holds it, and the diff must name the call.
 */
interface CountCase {
  /** What the command line selects it by. */
  readonly name: string;
  readonly cell: string;
  readonly args: readonly string[];
  readonly profile: string;
  readonly trials: number;
  readonly metric: string;
  /** The call B adds, as the diff names it, and the step as its line reads. */
  readonly syscall: string;
  readonly step: string;
  /** What B does, in words. */
  readonly extra: string;
  preload(withCall: boolean): string;
}

const COUNT_CASES: readonly CountCase[] = [
  {
    name: "startup-counts",
    cell: "startup/hello",
    args: ["--suite", "startup", "--scenario", "hello"],
    // Ten trials for five counted starts a subject (half the trials), the runs `--trial-budget 0` keeps from growing.
    profile: "quick",
    trials: 10,
    // node's start looks up about 45 paths: one stat more is 2 % of them, and 0.1 % of its 700 calls.
    metric: "path_syscalls",
    syscall: "statx",
    step: "+1 statx per start",
    extra: "one more fs.statSync per start",
    preload: (withCall) => (withCall ? `require("node:fs").statSync(__filename);\n` : `require("node:fs");\n`),
  },
  {
    name: "http-counts",
    cell: "http/json",
    args: ["--suite", "http", "--scenario", "json", "--app", "native"],
    // Ten trials for five counted windows.
    profile: "quick",
    trials: 10,
    metric: "syscalls_per_request",
    syscall: "write",
    step: "+1 write per request",
    extra: "one more small write (a byte to /dev/null) per request",
    preload: (withCall) => `const fs = require("node:fs");
const http = require("node:http");
const sink = fs.openSync("/dev/null", "w");
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === "request") ${withCall ? `fs.writeSync(sink, "x")` : "void sink"};
  return emit.call(this, event, ...args);
};
`,
  },
];

const pairs = Number(process.argv[2] ?? 20);
const profileArg = process.argv[3] === "default" ? undefined : process.argv[3];
const only = process.argv.slice(4);
const log = (line: string) => process.stderr.write(`${line}\n`);

const work = tempDir("injected-steps");
const node = (await provision("node@22.11.0")).binary;

/** A wrapper script that runs node 22.11.0 with `flags`; `name` makes each wrapper's bytes (and sha256) its own. */
function wrapper(name: string, flags: readonly string[] = []): string {
  const path = join(work, name);
  writeFileSync(path, `#!/bin/sh\n# ${name}\nexec ${node} ${flags.join(" ")} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** `run`'s profile and trials for the case's runs. */
const profileArgs = (c: { profile: string; trials?: number }) => ["--profile", profileArg ?? c.profile, ...(c.trials === undefined ? [] : ["--trials", String(c.trials)])];

let runCount = 0;
/** One run of A and B side by side; the paired row of the case's metric, B against A, with the calls that changed most where it counts calls. */
async function pairedRun(c: { args: readonly string[]; runArgs: readonly string[]; metric: string }, a: string, b: string, what: string): Promise<ExplainedRow> {
  const out = join(work, `run-${++runCount}`);
  const started = Date.now();
  const run = await bench(["run", ...c.args, ...c.runArgs, "--out", out, "--runtime", `a=node@path:${a}`, "--runtime", `b=node@path:${b}`]);
  if (run.code !== 0) throw new Error(`${what}: scripts/bench run exited ${run.code}: ${run.stderr.trim().split("\n").slice(-3).join(" / ")}`);
  const docs = readDocuments([out], what);
  // A and B stand for a release and its predecessor: judged by the release job's rule, not a one-off look.
  const rows = comparePaired(docs.filter((d) => d.label === "a"), docs.filter((d) => d.label === "b"), { pairedRule: "sequential" }).filter((r) => r.metric === c.metric);
  const [row] = explainRows(rows, docs, docs);
  if (!row) throw new Error(`${what}: no paired ${c.metric} row`);
  const ratio = row.ratio === null ? "no ratio" : `${row.ratio.toFixed(3)} [${row.ci95![0].toFixed(3)}, ${row.ci95![1].toFixed(3)}]`;
  const calls = row.syscall_changes ? `; calls: ${formatSyscallDiff(row.syscall_changes)}` : "";
  // A count's runs, side by side: what a pair that broke the interval looked like.
  const samples = row.syscall_changes ? `; ${c.metric} ${["a", "b"].map((label) => `${label} ${JSON.stringify(docs.find((d) => d.label === label)?.metrics[c.metric]?.samples)}`).join(", ")}` : "";
  log(`${what}: ${row.verdict}, B/A ${ratio}, ${row.pairs} pairs${calls}${samples}, ${Math.round((Date.now() - started) / 1000)} s`);
  return row;
}

/**
 * Uncounted runs that size the burn: the first at the step's share of A's unit of work, each next
 * one where a power law fitted to every run so far puts the step. A burn does not lengthen a unit
 * by its own length, nor in proportion: the HTTP server shares two cores with its load generator,
 * which hides a small burn and not a large one (1.5 µs per request took 29 % off 74,214 req/s,
 * 0.5 µs about 5 %), and a start overlaps work on other threads.
 */
const CALIBRATION_RUNS = 4;

/**
 * The burn that lengthens a unit by `target`, from `points` of (burn, lengthening): a least-squares
 * line through log-log points (a power law, exponent held to 0.5–3 against noise), or, from one
 * point, proportion.
 */
function nextBurn(points: readonly { burnUs: number; lengthening: number }[], target: number): number | null {
  const seen = points.filter((p) => p.lengthening > 0);
  if (seen.length === 0) return null;
  const xs = seen.map((p) => Math.log(p.burnUs));
  const ys = seen.map((p) => Math.log(p.lengthening));
  const [mx, my] = [mean(xs), mean(ys)];
  const sxx = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  const fitted = sxx > 1e-6 ? xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i]! - my), 0) / sxx : 1;
  const exponent = Math.min(3, Math.max(0.5, fitted));
  return Math.exp(mx + (Math.log(target) - my) / exponent);
}
const geometricMean = (values: readonly number[]) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} % (${part}/${whole})`;
/** A/A runs called a change: an inconclusive one says too little, which is not a false verdict. */
const falseVerdicts = (aa: readonly ExplainedRow[]) => percent(aa.filter((r) => r.verdict === "faster" || r.verdict === "slower").length, aa.length);
const COLUMNS = {
  cell: "cell",
  metric: "metric",
  profile: "profile",
  step: "step aimed at",
  burn: "CPU burned per start or request",
  measured: "B/A measured (geo. mean)",
  detected: "step detected",
  aa_false: "A/A false verdicts",
  minutes: "time",
} as const;
const rows: Record<keyof typeof COLUMNS, string>[] = [];
const began = Date.now();
const startLoad = loadNow();
for (const c of CASES.filter((c) => only.length === 0 || only.includes(c.suite))) {
  const suiteStarted = Date.now();
  const withPreload = (name: string, burnUs: number) => {
    const preload = join(work, `${name}.cjs`);
    writeFileSync(preload, c.preload(burnUs));
    return wrapper(name, ["--require", preload]);
  };
  const plainA = withPreload(`${c.suite}-a`, 0);
  const plainA2 = withPreload(`${c.suite}-a-twin`, 0);
  const aa: CompareRow[] = [];
  const ab: CompareRow[] = [];
  const timed = { args: c.args, runArgs: profileArgs(c), metric: c.metric };
  aa.push(await pairedRun(timed, plainA, plainA2, `${c.suite} A/A 1/${pairs}`));
  const target = c.lengthening(c.stepRatio);
  let burnUs = c.unitUs(aa[0]!.base_median) * target;
  const points: { burnUs: number; lengthening: number }[] = [];
  for (let i = 1; i <= CALIBRATION_RUNS; i++) {
    const row = await pairedRun(timed, plainA, withPreload(`${c.suite}-calibration-${i}`, burnUs), `${c.suite} calibration ${i}/${CALIBRATION_RUNS} (${burnUs.toFixed(1)} µs)`);
    if (row.ratio !== null) points.push({ burnUs, lengthening: c.lengthening(row.ratio) });
    // Runs that saw no slowdown at all say nothing of the scale: double.
    burnUs = nextBurn(points, target) ?? burnUs * 2;
  }
  const slowB = withPreload(`${c.suite}-b`, burnUs);
  log(`${c.suite}: A's median ${c.metric} ${aa[0]!.base_median.toFixed(2)}; B burns ${burnUs.toFixed(1)} µs of CPU ${c.suite === "startup" ? "per start" : "per request"} (aimed at B/A ${c.stepRatio})`);
  for (let i = 1; i <= pairs; i++) {
    if (i > 1) aa.push(await pairedRun(timed, plainA, plainA2, `${c.suite} A/A ${i}/${pairs}`));
    ab.push(await pairedRun(timed, plainA, slowB, `${c.suite} A/B ${i}/${pairs}`));
  }
  const meanRatio = geometricMean(ab.flatMap((r) => (r.ratio === null ? [] : [r.ratio])));
  rows.push({
    cell: c.cell,
    metric: c.metric,
    profile: profileArgs(c).slice(1).join(" "),
    step: `${Math.round(Math.abs(c.stepRatio - 1) * 100)} %`,
    burn: `${burnUs.toFixed(1)} µs`,
    measured: meanRatio.toFixed(3),
    detected: percent(ab.filter((r) => r.verdict === "slower").length, pairs),
    aa_false: falseVerdicts(aa),
    minutes: `${Math.round((Date.now() - suiteStarted) / 60_000)} min`,
  });
}
/** Each count case: PAIRS A/A runs and PAIRS A/B runs, judged on its count, the diff of each A/B run naming its call or not. */
async function countCase(c: CountCase): Promise<Record<keyof typeof COLUMNS, string>> {
  const started = Date.now();
  const withPreload = (name: string, withCall: boolean) => {
    const preload = join(work, `${name}.cjs`);
    writeFileSync(preload, c.preload(withCall));
    return wrapper(name, ["--require", preload]);
  };
  const [a, twin, b] = [withPreload(`${c.name}-a`, false), withPreload(`${c.name}-a-twin`, false), withPreload(`${c.name}-b`, true)];
  // The profile's trials and no more: the counted runs are half of them, and an adaptive run would only add timed ones.
  const counted = { args: c.args, runArgs: [...profileArgs(c), "--trial-budget", "0"], metric: c.metric };
  const aa: ExplainedRow[] = [];
  const ab: ExplainedRow[] = [];
  for (let i = 1; i <= pairs; i++) {
    aa.push(await pairedRun(counted, a, twin, `${c.name} A/A ${i}/${pairs}`));
    ab.push(await pairedRun(counted, a, b, `${c.name} A/B ${i}/${pairs}`));
  }
  const named = ab.filter((row) => row.syscall_changes?.changes[0]?.name === c.syscall).length;
  return {
    cell: c.cell,
    metric: c.metric,
    profile: counted.runArgs.slice(1).join(" "),
    step: c.step,
    burn: c.extra,
    measured: geometricMean(ab.flatMap((r) => (r.ratio === null ? [] : [r.ratio]))).toFixed(4),
    detected: `${percent(ab.filter((r) => r.verdict === "slower").length, pairs)}, ${c.syscall} named first in ${named}/${pairs}`,
    aa_false: falseVerdicts(aa),
    minutes: `${Math.round((Date.now() - started) / 60_000)} min`,
  };
}
for (const c of COUNT_CASES.filter((c) => only.length === 0 || only.includes(c.name))) rows.push(await countCase(c));

const keys = Object.keys(COLUMNS) as (keyof typeof COLUMNS)[];
process.stdout.write(
  `${formatTable(Object.values(COLUMNS), rows.map((row) => keys.map((k) => row[k])))}\n\n` +
    `${pairs} A/A and ${pairs} A/B runs per suite, ${profileArg ?? "each suite's default"} profile, node 22.11.0, in ${Math.round((Date.now() - began) / 60_000)} min.\n`,
);
const ran = new Set(rows.map((r) => `${r.cell} ${r.metric}`));
const COUNT_NOTE =
  "The count cases (a step of one system call, rows whose step is a call): B's preload makes one more call per start (`fs.statSync`) or per request (a one-byte `fs.writeSync` to /dev/null in a wrapper of http.Server's request event), A's sets up the same and makes none. Each run has the profile's trials and no adaptive ones (`--trial-budget 0`); its counting pass counts half of them, and `comparePaired` judges the count trial by trial at the 0.08 % rule. The diff (src/compare/syscall-diff.ts) of each A/B run must name the call first.";
/** A count case's row: its step is a call, not a share. */
const isCountRow = (row: Readonly<Record<string, unknown>>) => String(row.step).startsWith("+");
recordMeasurement("injected-steps", (old) => {
  // Rows recorded before they carried their cell named it in "suite" ("startup wall_ms").
  const kept = (old?.rows ?? []).filter((r) => r.cell !== undefined && !ran.has(`${String(r.cell)} ${String(r.metric)}`));
  const here = thisMachine(startLoad);
  const measured = measuredAt(here);
  // In the cases' own order, whichever of them this run measured again: the README lists these rows.
  const order = [...CASES, ...COUNT_CASES].map((c) => `${c.cell} ${c.metric}`);
  const position = (row: Readonly<Record<string, unknown>>) => order.indexOf(`${String(row.cell)} ${String(row.metric)}`);
  const all = [...kept, ...rows.map((row) => ({ ...row, measured_at: measured }))].sort((a, b) => position(a) - position(b));
  return {
    title: "Injected steps: what a paired run sees in real runs",
    benchmark: `scripts/benchmark injected-steps ${pairs} ${profileArg ?? "default"}`,
    ...here,
    summary: all.map((row, i) =>
      isCountRow(row)
        ? { measure: `${row.cell} ${row.metric}: B does ${row.burn}, paired with A in one run (${pairs} A/B and ${pairs} A/A runs)`, row: i, figure: "B/A {measured} ({step}): detected in {detected}; A/A false verdicts {aa_false}" }
        : {
            measure: `${row.cell}: B slowed by a preload, paired with A in one run (${pairs} A/B and ${pairs} A/A runs)`,
            row: i,
            // The step measured leads: calibration aims at the step, and a noisy run can land it elsewhere.
            figure: "B/A {measured} (aimed at {step}): detected in {detected}; A/A false verdicts {aa_false}",
          },
    ),
    columns: { ...COLUMNS, measured_at: MEASURED_AT_COLUMN },
    rows: all,
    notes: [
      ...(old?.notes ?? [
        "Node 22.11.0 behind two wrapper scripts per run (`node@path:`), the B wrapper preloading a file that burns CPU time per start or per request; the apps are unchanged. Each run is judged by `comparePaired` on the suite's headline metric, with the adaptive trials and the 0.08 % sequential rule of docs/paired-verdicts.md.",
      ]),
      ...(all.some(isCountRow) && !(old?.notes ?? []).includes(COUNT_NOTE) ? [COUNT_NOTE] : []),
    ],
  };
});
