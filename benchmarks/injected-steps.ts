/**
 * Does the paired design see a known slowdown, and only a real one? Node 22.11.0 behind small
 * wrapper scripts (`node@path:`), measured in runs of two subjects each, as a user compares two
 * builds. Every wrapper preloads, with `--require`, a file that burns CPU time once per start for
 * startup/hello, or per request (wrapping http.Server's request event) for http/json on the native
 * app: A's burns nothing, B's a fixed amount, so loading the preload costs both sides alike and the
 * step is the burn alone. A/A runs pair two A wrappers, A/B runs an A with a B. The apps are
 * unchanged.
 *
 *   scripts/benchmark injected-steps [PAIRS] [quick|full|default] [SUITE...]
 *
 * PAIRS (default 20) A/A runs and PAIRS A/B runs per suite, each judged by `comparePaired` on the
 * suite's headline metric (startup wall_ms, http rps). The burn is sized from the first A/A run's
 * median (5 % of a start, or the CPU time per request that takes 10 % off the requests per second),
 * then adjusted by three uncounted calibration runs until B measures that step.
 * Prints per suite the detection rate of the step (verdict "slower"), the mean measured ratio of
 * the A/B runs, and the A/A false-verdict rate (any verdict but "no significant change"), and
 * writes them into the entry "injected-steps" of docs/measurements.json (replacing the rows of the
 * suites it ran) with when, where and the load.
 *
 * The profile is each suite's cheapest that sees its step (`default`): startup's full (10 to 30
 * trials of 30 starts), HTTP's quick (2 to 10 trials of 0.8 s); a profile named on the command
 * line applies to both. By default, 20 pairs of both suites (84 runs with the calibrations) take
 * about an hour, less where runs decide early.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { comparePaired } from "../src/compare/paired.ts";
import type { CompareRow } from "../src/compare/types.ts";
import { readDocuments } from "../src/results/store.ts";
import { provision } from "../src/runtimes/provision.ts";
import { formatTable } from "../src/ui/table.ts";
import { bench } from "./lib/cli.ts";
import { loadNow, recordMeasurement, thisMachine } from "./lib/measurements.ts";

interface SuiteCase {
  readonly suite: string;
  /** The cell it measures, as the README names it. */
  readonly cell: string;
  readonly args: readonly string[];
  /** The profile its runs use unless the command line names one: the cheapest that can see the step. */
  readonly profile: string;
  readonly metric: string;
  /** The injected step: the fraction a start takes longer, or the fraction of requests per second lost. */
  readonly step: number;
  /** The CPU time to burn (per start or per request) for the step, from the A side's median of `metric`. */
  burnUs(median: number): number;
  /** A preload burning `burnUs`: A loads it with 0, B with the step's, so loading it costs both sides alike. */
  preload(burnUs: number): string;
}

/** Burns `us` microseconds of this process's CPU time (user + system): a fixed amount of work whatever else the machine runs. */
const burnFunction = (us: number) => `
function burn() {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if (used.user + used.system >= ${Math.round(us)}) return;
  }
}`;

const CASES: readonly SuiteCase[] = [
  {
    suite: "startup",
    cell: "startup/hello",
    args: ["--suite", "startup", "--scenario", "hello"],
    // Quick's 10 starts a trial leave a 10-pair interval of ±5–9 % here: a 5 % step was called in 1 of 2.
    profile: "full",
    metric: "wall_ms",
    step: 0.05,
    burnUs(medianMs) {
      return medianMs * 1000 * this.step;
    },
    preload(burnUs) {
      return `${burnFunction(burnUs)}\nburn();\n`;
    },
  },
  {
    suite: "http",
    cell: "http/json",
    args: ["--suite", "http", "--scenario", "json", "--app", "native"],
    profile: "quick",
    metric: "rps",
    step: 0.1,
    burnUs(rps) {
      // Throughput R with b seconds more per request becomes 1 / (1/R + b): b = (1 / (1 − step) − 1) / R.
      return ((1 / (1 - this.step) - 1) / rps) * 1e6;
    },
    preload(burnUs) {
      return `${burnFunction(burnUs)}
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

const pairs = Number(process.argv[2] ?? 20);
const profileArg = process.argv[3] === "default" ? undefined : process.argv[3];
const only = process.argv.slice(4);
const log = (line: string) => process.stderr.write(`${line}\n`);

const work = mkdtempSync(join(tmpdir(), "rb-injected-steps-"));
const node = (await provision("node@22.11.0")).binary;

/** A wrapper script that runs node 22.11.0 with `flags`; `name` makes each wrapper's bytes (and sha256) its own. */
function wrapper(name: string, flags: readonly string[] = []): string {
  const path = join(work, name);
  writeFileSync(path, `#!/bin/sh\n# ${name}\nexec ${node} ${flags.join(" ")} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

let runCount = 0;
/** One run of A and B side by side; the paired row of the case's metric, B against A. */
async function pairedRun(c: SuiteCase, a: string, b: string, what: string): Promise<CompareRow> {
  const out = join(work, `run-${++runCount}`);
  const started = Date.now();
  const run = await bench(["run", ...c.args, "--profile", profileArg ?? c.profile, "--out", out, "--runtime", `a=node@path:${a}`, "--runtime", `b=node@path:${b}`]);
  if (run.code !== 0) throw new Error(`${what}: scripts/bench run exited ${run.code}: ${run.stderr.trim().split("\n").slice(-3).join(" / ")}`);
  const docs = readDocuments([out], what);
  const row = comparePaired(docs.filter((d) => d.label === "a"), docs.filter((d) => d.label === "b")).find((r) => r.metric === c.metric);
  if (!row) throw new Error(`${what}: no paired ${c.metric} row`);
  const ratio = row.ratio === null ? "no ratio" : `${row.ratio.toFixed(3)} [${row.ci95![0].toFixed(3)}, ${row.ci95![1].toFixed(3)}]`;
  log(`${what}: ${row.verdict}, B/A ${ratio}, ${row.pairs} pairs, ${Math.round((Date.now() - started) / 1000)} s`);
  return row;
}

/** Calibration runs per suite before the counted pairs; not counted. */
const CALIBRATION_ROUNDS = 3;

/** The burn that gives `step`, linear between the measured (burn, step) points nearest it below and above (or the two highest). */
function burnFor(step: number, points: readonly [number, number][]): number {
  const byBurn = [...points].sort((a, b) => a[0] - b[0]);
  const below = byBurn.filter(([, measured]) => measured < step).at(-1) ?? byBurn[0]!;
  const above = byBurn.find(([burn, measured]) => measured >= step && burn > below[0]) ?? byBurn.at(-1)!;
  const [low, high] = above === below ? [byBurn.at(-2)!, above] : [below, above];
  if (high[1] <= low[1]) return high[0] * 2;
  return low[0] + ((step - low[1]) * (high[0] - low[0])) / (high[1] - low[1]);
}
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} % (${part}/${whole})`;
const COLUMNS = {
  suite: "suite metric",
  profile: "profile",
  step: "step aimed at",
  burn: `CPU burned per start or request`,
  measured: "B/A measured (geo. mean)",
  detected: "step detected",
  aa_false: "A/A false verdicts",
  minutes: "time",
} as const;
const rows: Record<keyof typeof COLUMNS, string>[] = [];
const began = Date.now();
const startLoad = loadNow();
try {
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
    aa.push(await pairedRun(c, plainA, plainA2, `${c.suite} A/A 1/${pairs}`));
    // A burn of the step's CPU time does not slow the metric by the step, nor in proportion (a
    // start: 470 µs measured +2 %, 1,120 µs +12 %), so calibration runs find the burn by
    // interpolating between the measured points nearest the step on either side.
    const measuredSteps: [number, number][] = [[0, 0]];
    let burnUs = c.burnUs(aa[0]!.base_median);
    for (let round = 1; round <= CALIBRATION_ROUNDS; round++) {
      const row = await pairedRun(c, plainA, withPreload(`${c.suite}-calibrate-${round}`, burnUs), `${c.suite} calibration ${round}/${CALIBRATION_ROUNDS} (${burnUs.toFixed(0)} µs)`);
      if (row.ratio === null) break;
      measuredSteps.push([burnUs, row.better === "higher" ? 1 - row.ratio : row.ratio - 1]);
      burnUs = burnFor(c.step, measuredSteps);
    }
    const slowB = withPreload(`${c.suite}-b`, burnUs);
    log(`${c.suite}: A's median ${c.metric} ${aa[0]!.base_median.toFixed(2)}; B burns ${burnUs.toFixed(1)} µs of CPU ${c.suite === "startup" ? "per start" : "per request"} (aimed at a ${(c.step * 100).toFixed(0)} % step)`);
    for (let i = 1; i <= pairs; i++) {
      if (i > 1) aa.push(await pairedRun(c, plainA, plainA2, `${c.suite} A/A ${i}/${pairs}`));
      ab.push(await pairedRun(c, plainA, slowB, `${c.suite} A/B ${i}/${pairs}`));
    }
    const ratios = ab.flatMap((r) => (r.ratio === null ? [] : [r.ratio]));
    const meanRatio = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
    rows.push({
      suite: `${c.suite} ${c.metric}`,
      profile: profileArg ?? c.profile,
      step: `${(c.step * 100).toFixed(0)} %`,
      burn: `${burnUs.toFixed(1)} µs`,
      measured: meanRatio.toFixed(3),
      detected: percent(ab.filter((r) => r.verdict === "slower").length, pairs),
      aa_false: percent(aa.filter((r) => r.verdict !== "no significant change").length, pairs),
      minutes: `${Math.round((Date.now() - suiteStarted) / 60_000)} min`,
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const keys = Object.keys(COLUMNS) as (keyof typeof COLUMNS)[];
process.stdout.write(
  `${formatTable(Object.values(COLUMNS), rows.map((row) => keys.map((k) => row[k])))}\n\n` +
    `${pairs} A/A and ${pairs} A/B runs per suite, ${profileArg ?? "each suite's default"} profile, node 22.11.0, in ${Math.round((Date.now() - began) / 60_000)} min.\n`,
);
const ran = new Set(rows.map((r) => r.suite));
recordMeasurement("injected-steps", (old) => {
  const kept = (old?.rows ?? []).filter((r) => !ran.has(String(r.suite)));
  const all = [...kept, ...rows];
  return {
    title: "Injected steps: what a paired run sees in real runs",
    benchmark: `scripts/benchmark injected-steps ${pairs} ${profileArg ?? "default"}`,
    ...thisMachine(startLoad),
    summary: all.map((row, i) => ({
      measure: `${CASES.find((c) => c.suite === String(row.suite).split(" ")[0])?.cell ?? row.suite}: B slowed by a preload, paired with A in one run (${pairs} A/B and ${pairs} A/A runs)`,
      row: i,
      // The step measured leads: calibration aims at the step, and a noisy run can land it elsewhere.
      figure: "B/A {measured} (aimed at {step}): detected in {detected}; A/A false verdicts {aa_false}",
    })),
    columns: COLUMNS,
    rows: all,
    notes: old?.notes ?? [
      "Node 22.11.0 behind two wrapper scripts per run (`node@path:`), the B wrapper preloading a file that burns CPU time per start or per request; the apps are unchanged. Each run is judged by `comparePaired` on the suite's headline metric, with the adaptive trials and the 0.1 % sequential rule of docs/paired-verdicts.md.",
    ],
  };
});
