/**
 * What benchmarks/fresh-clone.ts reads from the output of the commands it times on a fresh clone:
 * node's test runner summary, when each line was printed (and so the phases before the tests and
 * each tool build), `scripts/bench`'s results and time per suite, and the headline gaps of a
 * `scripts/bench compare --json` of two runtimes. Apart from the benchmark, so tests/unit can
 * check them on recorded output.
 */
import semver from "semver";
import { cellLabel, pairCount } from "../../src/compare/format.ts";
import { formatInterval } from "../../src/compare/verdict.ts";
import { subjectLabel } from "../../src/compare/paired.ts";
import type { CompareRow, Verdict } from "../../src/compare/types.ts";
import type { ResultDocument } from "../../src/results/types.ts";

/** A line of a command's output, stdout or stderr, and the seconds since it started at which it arrived. */
export interface TimedLine {
  readonly at: number;
  readonly text: string;
}

/** Collects a command's output as lines stamped with the time they arrived; a line split across chunks takes the time it was completed. */
export function lineClock(secondsNow: () => number, onLine?: (line: TimedLine) => void): { push(stream: "stdout" | "stderr", chunk: string): void; lines(): TimedLine[] } {
  const lines: TimedLine[] = [];
  const partial = { stdout: "", stderr: "" };
  return {
    push(stream, chunk) {
      const parts = (partial[stream] + chunk).split("\n");
      partial[stream] = parts.pop()!;
      const at = secondsNow();
      for (const text of parts) {
        lines.push({ at, text });
        onLine?.({ at, text });
      }
    },
    lines: () => [...lines, ...(["stdout", "stderr"] as const).filter((s) => partial[s] !== "").map((s) => ({ at: secondsNow(), text: partial[s] }))],
  };
}

/** The summary node's test runner prints last (`ℹ tests 664`, `ℹ pass 664`, …, `ℹ duration_ms 1295000.5`). */
export interface TestSummary {
  readonly tests: number;
  readonly pass: number;
  readonly fail: number;
  readonly cancelled: number;
  readonly skipped: number;
  readonly todo: number;
  /** The test runner's own duration: from its start to its summary. */
  readonly seconds: number;
}

/**
 * The test runner's summaries in `output` added up (scripts/test runs the unit tests and then the
 * others, each run with a summary of its own), or null when it printed none (the command failed
 * before the tests).
 */
export function parseTestSummary(output: string): TestSummary | null {
  const total = (field: string) => {
    const found = [...output.matchAll(new RegExp(`^ℹ ${field} (\\d+(?:\\.\\d+)?)\\s*$`, "gm"))];
    return found.length === 0 ? undefined : found.reduce((sum, match) => sum + Number(match[1]), 0);
  };
  const [tests, pass, fail, cancelled, skipped, todo, durationMs] = ["tests", "pass", "fail", "cancelled", "skipped", "todo", "duration_ms"].map(total);
  if (tests === undefined || pass === undefined || fail === undefined || durationMs === undefined) return null;
  return { tests, pass, fail, cancelled: cancelled ?? 0, skipped: skipped ?? 0, todo: todo ?? 0, seconds: durationMs / 1000 };
}

/**
 * A test run's output split in two: what the spec reporter printed as the tests ran, and its lists
 * of failing tests, each from a run's `✖ failing tests:` to that run's summary (its first `ℹ `
 * line), which repeat each failure at column 0.
 */
function splitFailureLists(output: string): { reported: string; lists: string[] } {
  const [first, ...rest] = output.split("✖ failing tests:");
  const parts = rest.map((block) => {
    const summary = block.search(/^ℹ /m);
    return summary === -1 ? { list: block, after: "" } : { list: block.slice(0, summary), after: block.slice(summary) };
  });
  return { reported: [first ?? "", ...parts.map((part) => part.after)].join("\n"), lists: parts.map((part) => part.list) };
}

/** The failing tests the spec reporter lists at the end of each run (`✖ failing tests:`), each as "name (file:line)". */
export function failingTests(output: string): string[] {
  const names: string[] = [];
  for (const list of splitFailureLists(output).lists) {
    let where = "";
    for (const line of list.split("\n").slice(1)) {
      const at = /^test at (\S+)/.exec(line);
      if (at !== null) where = at[1] ?? "";
      const failed = /^✖ (.+?)(?: \([\d.]+m?s\))?$/.exec(line);
      if (failed !== null) names.push(where === "" ? failed[1] ?? "" : `${failed[1] ?? ""} (${where})`);
    }
  }
  return names;
}

/** A suite at the top of a test file (`▶ name (1234.5ms)`, or a test outside any suite), and its seconds. */
export interface SuiteTime {
  readonly name: string;
  readonly seconds: number;
}

/**
 * The `count` slowest of the suites at the top of the test files, slowest first, from the spec
 * reporter's lines at column 0 that end in a duration, the lists of failing tests left out (a
 * failure is not counted twice): where the test run's time goes, without which a test run that
 * grows past its budget cannot be cut back.
 */
export function slowestSuites(output: string, count: number): SuiteTime[] {
  return [...splitFailureLists(output).reported.matchAll(/^[▶✔✖] (.+) \(([\d.]+)ms\)$/gm)]
    .map((match) => ({ name: match[1]!, seconds: Number(match[2]) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

/** The message scripts/test prints (scripts/lib/common.sh's `say`) when the installs are done and type-checking starts. */
export const TYPE_CHECKING_LINE = "runtime-bench: type-checking";
const BUILDING = /^runtime-bench: building (\S+)/;
const BUILT = /^runtime-bench: built (\S+) .*\((\d+) s\)$/;

/** Seconds from the start to the first line that begins with `prefix`, or null when none does. */
export function secondsUntil(lines: readonly TimedLine[], prefix: string): number | null {
  return lines.find((line) => line.text.startsWith(prefix))?.at ?? null;
}

/**
 * A tool common.sh built (`runtime-bench: building k6 …`), and its seconds: until the next line
 * printed (the next step's message), or the end; a build in the background (oha's) says when it
 * is done and what it took (`runtime-bench: built oha 1.16.0 (212 s)`).
 */
export interface ToolBuild {
  readonly tool: string;
  readonly seconds: number;
}

export function toolBuilds(lines: readonly TimedLine[], endSeconds: number): ToolBuild[] {
  const builtBeside = new Map(lines.flatMap((line) => {
    const built = BUILT.exec(line.text);
    return built === null ? [] : [[built[1]!, Number(built[2])] as const];
  }));
  return lines.flatMap((line, i) => {
    const tool = BUILDING.exec(line.text)?.[1];
    return tool === undefined ? [] : [{ tool, seconds: builtBeside.get(tool) ?? (lines[i + 1]?.at ?? endSeconds) - line.at }];
  });
}

/** `scripts/bench`'s time per suite as its summary printed it (`time per suite: startup 32 s, http 2 min 44 s`), in its order. */
export function parseSuiteTimes(output: string): { suite: string; time: string }[] {
  const line = [...output.matchAll(/^time per suite: (.+)$/gm)].at(-1)?.[1];
  if (line === undefined) return [];
  return line.split(", ").map((part) => {
    const [suite, ...time] = part.trim().split(" ");
    return { suite: suite!, time: time.join(" ") };
  });
}

/** The results a run wrote and its run folder (`177 results written below /x/data/runs/…; every metric …`), or null. */
export function parseResultsWritten(output: string): { results: number; folder: string } | null {
  const found = [...output.matchAll(/^(\d+) results? written below (.+?); every metric/gm)].at(-1);
  return found === undefined ? null : { results: Number(found[1]), folder: found[2]! };
}

/**
 * What the counting pass added to a run of `runSeconds`: the seconds each counted result's
 * counting took (`details.counting_s`), in all, and as a share of the run without them.
 */
export function countingShare(docs: readonly Pick<ResultDocument, "details">[], runSeconds: number): { seconds: number; added: number } {
  const seconds = docs.reduce((sum, doc) => sum + (typeof doc.details?.counting_s === "number" ? doc.details.counting_s : 0), 0);
  return { seconds, added: seconds / (runSeconds - seconds) };
}

/** A server suite's trial facts (`details.trial_<k>`): how its warm-up went, where it had one. */
interface TrialFacts {
  readonly warmup?: { readonly seconds?: unknown; readonly steady?: unknown };
}

/**
 * The servers' warm-ups of a run (HTTP and WebSocket warm every trial's server up until its
 * throughput is steady, at most their profile's cap): their seconds in all, how many trials, and
 * how many never became steady. How noisy the host is sets how long they take.
 */
export function serverWarmups(docs: readonly Pick<ResultDocument, "details">[]): { seconds: number; trials: number; neverSteady: number } {
  const warmups = docs.flatMap((doc) =>
    Object.entries(doc.details ?? {}).flatMap(([key, value]) => {
      const warmup = /^trial_\d+$/.test(key) && typeof value === "object" && value !== null ? (value as TrialFacts).warmup : undefined;
      return warmup !== undefined && typeof warmup.seconds === "number" ? [{ seconds: warmup.seconds, steady: warmup.steady === true }] : [];
    }),
  );
  return { seconds: warmups.reduce((sum, w) => sum + w.seconds, 0), trials: warmups.length, neverSteady: warmups.filter((w) => !w.steady).length };
}

/** The headline gaps of a comparison and what compare called them. */
export interface GapTally {
  /** Rows of a cell's headline metric. */
  readonly headlineRows: number;
  /** Of them, those whose medians are `factor`× or more apart, either way. */
  readonly gaps: number;
  readonly change: number;
  readonly inconclusive: number;
  readonly noChange: number;
  readonly notComparable: number;
  /** The gaps not called a change, each as "cell metric ×ratio: verdict (reason)", so a run's record names them. */
  readonly uncalled: readonly string[];
}

/**
 * The rows of `rows` on each cell's headline metric (its result's first metric, the one the
 * summary, findings and steps judge) whose two medians are `factor`× or more apart, by verdict.
 */
export function headlineGaps(rows: readonly CompareRow[], docs: readonly ResultDocument[], factor: number): GapTally {
  const headline = new Map<string, string>();
  for (const doc of docs) {
    const first = doc.status === "ok" ? Object.keys(doc.metrics)[0] : undefined;
    if (first !== undefined) headline.set(cellLabel(doc), first);
  }
  const onHeadline = rows.filter((row) => headline.get(cellLabel(row)) === row.metric);
  const apart = (row: CompareRow) => row.base_median > 0 && row.head_median > 0 && Math.max(row.head_median / row.base_median, row.base_median / row.head_median) >= factor;
  const gaps = onHeadline.filter(apart);
  const called = (...verdicts: Verdict[]) => gaps.filter((row) => verdicts.includes(row.verdict)).length;
  return {
    headlineRows: onHeadline.length,
    gaps: gaps.length,
    change: called("faster", "slower"),
    inconclusive: called("inconclusive"),
    noChange: called("no significant change"),
    notComparable: called("not comparable"),
    uncalled: gaps.filter((row) => row.verdict !== "faster" && row.verdict !== "slower").map(uncalledText),
  };
}

function uncalledText(row: CompareRow): string {
  const interval = row.ci95 === null ? "" : ` ${formatInterval(row.ci95)}`;
  return `${cellLabel(row)} ${row.metric} ×${(row.head_median / row.base_median).toFixed(2)}${interval}${pairCount(row)}: ${row.verdict}${row.reason === undefined ? "" : ` (${row.reason})`}`;
}

/** The subject of `runtime` at its newest version among a run's results, by its label in the run (`node-26.12.1`, as compare names it), or null. */
export function newestSubject(docs: readonly ResultDocument[], runtime: string): string | null {
  const ofRuntime = docs.filter((doc) => doc.runtime.name === runtime && semver.valid(doc.runtime.version));
  const newest = ofRuntime.reduce<ResultDocument | undefined>((best, doc) => (best === undefined || semver.gt(doc.runtime.version, best.runtime.version) ? doc : best), undefined);
  return newest === undefined ? null : subjectLabel(newest);
}
