/**
 * What a fresh clone costs: the committed HEAD of this checkout cloned into an empty folder under
 * the OS temp folder, and there, timed, the test run (`.ci/run`, which is `scripts/test`) and/or
 * the default run (`scripts/bench setup`, then `scripts/bench` with no arguments, then
 * `scripts/bench compare` of its newest Node and Bun on the headline gaps of 1.5× or more).
 *
 *   scripts/benchmark fresh-clone [--tests] [--default-run [--keep-results DIR]] [--fresh-tools] [--record]
 *   scripts/benchmark fresh-clone --clone-only
 *
 * --tests: `.ci/run` in the clone: its tests, passed and failed (node's test runner summary), its
 * wall time, the test runner's own time and what came before it (npm ci and the tools up to
 * scripts/test's "type-checking" message, then type-checking and linting), and each tool build
 * (from its "building" message to the next message), and the slowest suites at the top of the
 * test files, each with its time (the spec reporter's). --default-run: the results `scripts/bench`
 * wrote, its time per suite as it printed it, and `scripts/bench compare RUN --base NODE --head BUN
 * --json`'s rows on each cell's headline metric (its first) whose medians are 1.5× or more apart,
 * by verdict. --fresh-tools points RUNTIME_BENCH_TOOLS at an empty folder (and takes the shared
 * tools folder off PATH) and Go's build cache at an empty folder inside it, so oha, k6, act,
 * actionlint and the WebSocket client are built afresh by the first command, as on a new machine
 * (runtimes stay in the shared cache, as do cargo's and Go's module downloads).
 * --record writes the entries "tests" and "default-run" of docs/measurements.json (each right after
 * its part), the rows they replace kept as a dated note, and regenerates the documents made from
 * it; without it the tables are only printed. --keep-results DIR copies the default run's result
 * folder to DIR (a new folder) before the clone goes, for what reads a run afterwards
 * (`scripts/benchmark steady-state --default-run DIR`). --clone-only clones, shows the commit and removes the
 * clone: a check of the cloning and the cleanup that runs nothing long. The clone, and the fresh
 * tools folder, are removed at the end, on failure and on Ctrl-C.
 */
import { existsSync } from "node:fs";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { CompareRow } from "../src/compare/types.ts";
import { errorMessage, UserError } from "../src/core/errors.ts";
import type { Figure, MeasurementEntry } from "../src/core/measurements.ts";
import { REPO_ROOT } from "../src/core/paths.ts";
import { installInterruptHandling, interruptCleanup, interruptExitCode, isInterrupted, leavesUntilCleaned, runCommand, tail, type CommandResult } from "../src/process/children.ts";
import { readDocuments } from "../src/results/store.ts";
import { formatDuration } from "../src/ui/duration.ts";
import { formatTable } from "../src/ui/table.ts";
import { countingShare, failingTests, headlineGaps, lineClock, newestSubject, parseResultsWritten, parseSuiteTimes, parseTestSummary, secondsUntil, serverWarmups, slowestSuites, toolBuilds, TYPE_CHECKING_LINE, type TimedLine, type ToolBuild } from "./lib/fresh-clone.ts";
import { loadNow, recordMeasurement, rolledNotes, thisMachine } from "./lib/measurements.ts";

/** How many of the slowest suites a test run's row names. */
const SLOWEST = 6;
/** Medians this far apart, either way, are a gap every verdict of a paired comparison should call a change. */
const GAP_FACTOR = 1.5;
const OWN_NOTE = "Measured by `scripts/benchmark fresh-clone";
const log = (line: string): void => {
  process.stderr.write(`fresh-clone: ${line}\n`);
};

interface Options {
  readonly tests: boolean;
  readonly defaultRun: boolean;
  readonly freshTools: boolean;
  readonly record: boolean;
  readonly cloneOnly: boolean;
  readonly keepResults: string | null;
}

function parseOptions(argv: readonly string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { tests: { type: "boolean" }, "default-run": { type: "boolean" }, "fresh-tools": { type: "boolean" }, record: { type: "boolean" }, "clone-only": { type: "boolean" }, "keep-results": { type: "string" } } }).values;
  } catch (error) {
    throw new UserError(`${errorMessage(error)} (usage: scripts/benchmark fresh-clone [--tests] [--default-run [--keep-results DIR]] [--fresh-tools] [--record] | --clone-only)`);
  }
  const options = { tests: parsed.tests === true, defaultRun: parsed["default-run"] === true, freshTools: parsed["fresh-tools"] === true, record: parsed.record === true, cloneOnly: parsed["clone-only"] === true, keepResults: parsed["keep-results"] === undefined ? null : resolve(parsed["keep-results"]) };
  if (options.cloneOnly && (options.tests || options.defaultRun || options.record)) throw new UserError("--clone-only runs nothing in the clone: give it alone");
  if (!options.cloneOnly && !options.tests && !options.defaultRun) throw new UserError("say what to time on the fresh clone: --tests, --default-run or both (--clone-only checks the cloning alone)");
  if (options.keepResults !== null && !options.defaultRun) throw new UserError("--keep-results keeps the default run's results: give it with --default-run");
  if (options.keepResults !== null && existsSync(options.keepResults)) throw new UserError(`--keep-results: ${options.keepResults} exists already; name a new folder`);
  return options;
}

/** A command's output with when each line arrived, and its wall time. */
interface TimedRun extends CommandResult {
  readonly seconds: number;
  readonly lines: TimedLine[];
}

/** Runs a command in the clone, timed, saying each of the harness's own messages as it comes (a test run is long). */
async function timed(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<TimedRun> {
  const started = performance.now();
  const secondsNow = () => (performance.now() - started) / 1000;
  const clock = lineClock(secondsNow, (line) => {
    if (line.text.startsWith("runtime-bench:")) log(`[${formatDuration(line.at)}] ${line.text}`);
  });
  const result = await runCommand(command, args, { cwd, env, onOutput: (stream, chunk) => clock.push(stream, chunk) });
  if (result.spawnError !== undefined) throw new Error(`${command}: ${result.spawnError}`);
  return { ...result, seconds: secondsNow(), lines: clock.lines() };
}

const git = async (cwd: string, ...args: string[]) => {
  const result = await runCommand("git", args, { cwd });
  if (result.code !== 0) throw new Error(`git ${args.join(" ")} in ${cwd}: ${tail(result.stderr, 5)}`);
  return result.stdout.trim();
};

/** The commit this checkout has at HEAD, and its branch, cloned into `into`: what a fresh clone gets. */
async function cloneHead(into: string): Promise<{ commit: string; branch: string }> {
  const [commit, branch, dirty] = await Promise.all([git(REPO_ROOT, "rev-parse", "HEAD"), git(REPO_ROOT, "rev-parse", "--abbrev-ref", "HEAD"), git(REPO_ROOT, "status", "--porcelain")]);
  if (dirty !== "") log("this checkout has uncommitted changes: the clone measures its last commit without them");
  await git(tmpdir(), "clone", "--quiet", "--no-checkout", REPO_ROOT, into);
  await git(into, "checkout", "--quiet", "--detach", commit);
  return { commit: commit.slice(0, 7), branch };
}

/** The environment of the commands in the clone: with fresh tools, an empty tools folder and the shared one off PATH. */
function cloneEnv(freshTools: string | null): NodeJS.ProcessEnv {
  if (freshTools === null) return process.env;
  // scripts/benchmark put the shared tools' bin on PATH; a tool found there would never be built afresh.
  const shared = join(process.env.RUNTIME_BENCH_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "runtime-bench/tools"), "bin");
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== shared).join(delimiter);
  // Go keeps compiled packages in its own cache: with it warm, k6 and act build in seconds, not minutes.
  return { ...process.env, PATH: path, RUNTIME_BENCH_TOOLS: freshTools, GOCACHE: join(freshTools, "go-build-cache") };
}

/** What a command's output says of the tools: built (each with its time), or none built. */
const toolsInWords = (builds: readonly ToolBuild[], fresh: boolean) =>
  builds.length === 0 ? "already built" : `${fresh ? "built afresh" : "built"}: ${builds.map((b) => `${b.tool} ${formatDuration(b.seconds)}`).join(", ")}`;

/** The test run's row: `.ci/run` in the clone, timed, its summary and phases read from its output. */
async function testsRow(clone: string, env: NodeJS.ProcessEnv, described: string, fresh: boolean): Promise<Record<string, Figure>> {
  const run = await timed(join(clone, ".ci/run"), [], clone, env);
  const summary = parseTestSummary(run.stdout);
  if (summary === null) throw new Error(`.ci/run ended (exit ${run.code ?? run.signal}) without the test runner's summary:\n${tail(`${run.stdout}\n${run.stderr}`)}`);
  // The clone goes at the end: a failure not named now is lost with it.
  for (const name of failingTests(run.stdout)) log(`failed: ${name}`);
  const installs = secondsUntil(run.lines, TYPE_CHECKING_LINE);
  const before = run.seconds - summary.seconds;
  const builds = toolBuilds(run.lines, run.seconds);
  return {
    run: `\`scripts/test\` (through \`.ci/run\`) from a fresh clone of ${described}, ${fresh ? "its tools built afresh" : builds.length === 0 ? "its tools already built" : "some of its tools built"}; exit ${run.code ?? run.signal}`,
    tests: summary.tests,
    passed: summary.pass,
    failed: summary.fail,
    time: formatDuration(run.seconds),
    testing: formatDuration(summary.seconds),
    before: installs === null ? formatDuration(before) : `${formatDuration(before)}: npm ci and the tools ${formatDuration(installs)}, type-checking and linting ${formatDuration(before - installs)}`,
    tools: toolsInWords(builds, fresh),
    slowest: slowestSuites(run.stdout, SLOWEST).map((suite) => `${suite.name} ${formatDuration(suite.seconds)}`).join("; "),
  };
}

const TESTS_COLUMNS = { run: "run", tests: "tests", passed: "passed", failed: "failed", time: "wall time", testing: "of which the tests", before: "before the tests", tools: "tool builds", slowest: `the ${SLOWEST} slowest suites` };

function testsEntry(old: MeasurementEntry | undefined, row: Record<string, Figure>, command: string, startLoad: number): MeasurementEntry {
  const tools = String(row.tools);
  return {
    title: "The test run",
    benchmark: command,
    ...thisMachine(startLoad),
    summary: [{ measure: `\`scripts/test\` from a fresh clone, ${tools.startsWith("built afresh") ? "tool builds included" : tools === "already built" ? "tools already built" : "some tools built"}`, row: 0, figure: "{tests} tests in {time}" }],
    columns: TESTS_COLUMNS,
    rows: [row],
    notes: rolledNotes(
      old,
      `${OWN_NOTE} --tests\`: the committed HEAD cloned (\`git clone\`) into an empty folder under the OS temp folder, then \`.ci/run\` there, timed from its start to its exit. The tests' time is the test runner's own (\`duration_ms\` of its summary); before them, npm ci and the tools until scripts/test says "type-checking", then type-checking and linting; a tool's build from its "building" message to the next message. Runtimes come from the shared cache; \`--fresh-tools\` builds the tools into an empty \`RUNTIME_BENCH_TOOLS\`, with Go's build cache in it (cargo's and Go's module downloads stay). The clone is removed afterwards.`,
      OWN_NOTE,
    ),
  };
}

/** The headline gaps of the run: `scripts/bench compare` of its newest Node and Bun, as a user would ask it. */
async function compareRow(clone: string, env: NodeJS.ProcessEnv, folder: string): Promise<Record<string, Figure>> {
  const docs = readDocuments([folder], "the default run");
  const [base, head] = [newestSubject(docs, "node"), newestSubject(docs, "bun")];
  if (base === null || head === null) throw new Error(`the default run in ${folder} has no result of ${base === null ? "node" : "bun"}`);
  const run = await timed(join(clone, "scripts/bench"), ["compare", folder, "--base", base, "--head", head, "--json"], clone, env);
  if (run.code !== 0) throw new Error(`scripts/bench compare exited ${run.code ?? run.signal}:\n${tail(run.stderr)}`);
  const tally = headlineGaps(JSON.parse(run.stdout) as CompareRow[], docs, GAP_FACTOR);
  return {
    command: `\`scripts/bench compare RUN --base ${base} --head ${head}\``,
    time: formatDuration(run.seconds),
    results: null,
    suites: null,
    headline_rows: tally.headlineRows,
    gaps: tally.gaps,
    change: tally.change,
    inconclusive: tally.inconclusive,
    no_change: tally.noChange,
    note: [`paired, single look (two runtimes of one run)`, ...(tally.notComparable > 0 ? [`${tally.notComparable} of the gaps not comparable`] : []), ...(tally.uncalled.length > 0 ? [`not called a change: ${tally.uncalled.join("; ")}`] : [])].join("; "),
  };
}

/** The default run's rows: `scripts/bench setup`, `scripts/bench`, and compare of its newest Node and Bun. */
async function defaultRunRows(clone: string, env: NodeJS.ProcessEnv, fresh: boolean, keepResults: string | null): Promise<Record<string, Figure>[]> {
  const bench = join(clone, "scripts/bench");
  const setup = await timed(bench, ["setup"], clone, env);
  if (setup.code !== 0) throw new Error(`scripts/bench setup exited ${setup.code ?? setup.signal}:\n${tail(setup.stderr)}`);
  const run = await timed(bench, [], clone, env);
  const written = parseResultsWritten(run.stdout);
  if (written === null) throw new Error(`scripts/bench exited ${run.code ?? run.signal} without saying what it wrote:\n${tail(`${run.stdout}\n${run.stderr}`)}`);
  if (keepResults !== null) {
    await cp(written.folder, keepResults, { recursive: true, errorOnExist: true });
    log(`kept the run's results in ${keepResults}`);
  }
  const docs = readDocuments([written.folder], "the default run");
  const versions = [...new Set(docs.map((doc) => `${doc.runtime.name} ${doc.runtime.version}`))].sort();
  const counting = countingShare(docs, run.seconds);
  const warmups = serverWarmups(docs);
  const empty = { results: null, suites: null, counting: null, warmups: null, headline_rows: null, gaps: null, change: null, inconclusive: null, no_change: null };
  return [
    { command: "`scripts/bench setup`", time: formatDuration(setup.seconds), ...empty, note: `the first command on the clone: npm ci, the tools ${toolsInWords(toolBuilds(setup.lines, setup.seconds), fresh)}, runtimes from the shared cache` },
    {
      command: "`scripts/bench`",
      time: formatDuration(run.seconds),
      ...empty,
      results: written.results,
      suites: parseSuiteTimes(run.stdout).map((s) => `${s.suite} ${s.time}`).join(", ") || null,
      counting: `${formatDuration(counting.seconds)}: +${(counting.added * 100).toFixed(1)} % on the run without it`,
      warmups: `${formatDuration(warmups.seconds)} in ${warmups.trials} trials, ${warmups.neverSteady} never steady`,
      note: `exit ${run.code ?? run.signal}, the regressions feed, the findings and the site included (the site over the committed history as well); ${versions.join(", ")}`,
    },
    await compareRow(clone, env, written.folder),
  ];
}

const DEFAULT_RUN_COLUMNS = {
  command: "command",
  time: "wall time",
  results: "results",
  suites: "time per suite, as its summary printed it",
  counting: "the counting pass (its results' `counting_s`)",
  warmups: "the servers' warm-ups until steady (HTTP and WebSocket, every trial's)",
  headline_rows: "headline rows compared",
  gaps: `headline gaps of ${GAP_FACTOR}× or more`,
  change: "called a change",
  inconclusive: "inconclusive",
  no_change: "no significant change",
  note: "note",
};

function defaultRunEntry(old: MeasurementEntry | undefined, rows: Record<string, Figure>[], described: string, command: string, startLoad: number): MeasurementEntry {
  return {
    title: "The default run",
    benchmark: command,
    ...thisMachine(startLoad),
    summary: [
      { measure: "`scripts/bench` with no arguments on a fresh clone, after `scripts/bench setup`", row: 1, figure: "{time}, {results} results" },
      { measure: "the default run's counting pass (system calls, page faults, threads): its time, and what it adds to the run without it (target ≤ 15 %)", row: 1, figure: "{counting}" },
      { measure: `\`scripts/bench compare\` of that run's Node and Bun: headline gaps of ${GAP_FACTOR}× or more called a change`, row: 2, figure: "{change} of {gaps} ({inconclusive} inconclusive, {no_change} no significant change)" },
    ],
    columns: DEFAULT_RUN_COLUMNS,
    rows,
    notes: rolledNotes(
      old,
      `${OWN_NOTE} --default-run\` on a fresh clone of ${described}: the committed HEAD cloned (\`git clone\`) into an empty folder under the OS temp folder, then \`scripts/bench setup\` and \`scripts/bench\` there, each timed from its start to its exit, and \`scripts/bench compare RUN --base NODE --head BUN --json\` of the run's newest Node and Bun: of its rows on each cell's headline metric (the result's first), those whose medians are ${GAP_FACTOR}× or more apart, by verdict (each should be called a change). The clone is removed afterwards.`,
      OWN_NOTE,
    ),
  };
}

function printTable(columns: Record<string, string>, rows: readonly Record<string, Figure>[]): void {
  const keys = Object.keys(columns);
  process.stdout.write(`${formatTable(Object.values(columns), rows.map((row) => keys.map((key) => (row[key] === null || row[key] === undefined ? "" : String(row[key])))))}\n\n`);
}

async function measure(options: Options, clone: string, freshTools: string | null): Promise<void> {
  const { commit, branch } = await cloneHead(clone);
  const described = `${branch} (${commit})`;
  log(`cloned ${described} into ${clone}`);
  if (options.cloneOnly) return log(`the clone has ${(await readdir(clone)).length} entries at its top, .ci/run ${existsSync(join(clone, ".ci/run")) ? "among them" : "MISSING"}`);
  const env = cloneEnv(freshTools);
  const command = (part: string) => `scripts/benchmark fresh-clone ${part}${options.freshTools ? " --fresh-tools" : ""} --record`;
  if (options.tests) {
    const startLoad = loadNow();
    const row = await testsRow(clone, env, described, freshTools !== null);
    printTable(TESTS_COLUMNS, [row]);
    if (options.record) recordMeasurement("tests", (old) => testsEntry(old, row, command("--tests"), startLoad));
  }
  if (options.defaultRun) {
    const startLoad = loadNow();
    // With --tests before it, the tools are the ones the test run built.
    const rows = await defaultRunRows(clone, env, freshTools !== null && !options.tests, options.keepResults);
    printTable(DEFAULT_RUN_COLUMNS, rows);
    if (options.record) recordMeasurement("default-run", (old) => defaultRunEntry(old, rows, described, command("--default-run"), startLoad));
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const work = await mkdtemp(join(tmpdir(), "runtime-bench-fresh-clone-"));
  const cleaned = leavesUntilCleaned(`the fresh clone's folder ${work}`);
  const remove = async (): Promise<void> => {
    // Children are stopped first (on Ctrl-C by the interrupt handling, else they have exited); one may still be releasing a file.
    await rm(work, { recursive: true, force: true, maxRetries: 5 });
    cleaned();
  };
  installInterruptHandling(remove);
  try {
    const freshTools = options.freshTools ? join(work, "tools") : null;
    await measure(options, join(work, "clone"), freshTools);
  } finally {
    await remove();
    log(`removed ${work}`);
  }
}

try {
  await main();
  process.exit(0);
} catch (error) {
  // A command the interrupt stopped fails for that reason alone: the interrupt's exit status says so.
  if (isInterrupted()) {
    await interruptCleanup();
    process.exit(interruptExitCode());
  }
  throw error;
}
