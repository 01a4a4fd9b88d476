import { resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { findBenchmarked } from "../../releases/benchmarked.ts";
import { missingBackfillCells, type MeasuredVersions } from "../../releases/cells.ts";
import { benchmarkedVersions } from "../../results/store.ts";
import { plannedRows, toBenchmarkCalls, toMatrix } from "../../releases/matrix.ts";
import { basename } from "node:path";
import { assignScenarios, planWork, type ScenarioCatalog } from "../../releases/pools.ts";
import { publishedReleases, type Release } from "../../releases/published.ts";
import { chooseRunners, loadBenchConfig } from "../../releases/runners.ts";
import { DEFAULT_LINES, selectBenchmarks, type RuntimeRequest, type Window } from "../../releases/select.ts";
import { RUNTIME_NAMES, isRuntimeName, type Arch, type RuntimeName } from "../../runtimes/catalog.ts";
import { parseSpec } from "../../runtimes/spec.ts";
import { scenarioDirs } from "../../scenarios/manifest.ts";
import { SUITES } from "../../suites/index.ts";
import { formatTable } from "../../ui/table.ts";
import { defineCommand } from "../command.ts";

/** The suites and scenarios of this checkout, which the pools of .github/bench-runners.json share out. */
export function benchCatalog(): ScenarioCatalog {
  const suites = SUITES.map((suite) => suite.name);
  return {
    suites,
    scenarios: suites.flatMap((suite) => scenarioDirs(suite).map((dir) => `${suite}/${basename(dir)}`)),
    suitesWithApps: new Set(SUITES.filter((suite) => suite.options?.app).map((suite) => suite.name)),
  };
}

export function parseRuntimeRequest(text: string): RuntimeRequest {
  if (isRuntimeName(text)) return { kind: "window", name: text };
  const spec = parseSpec(text);
  if (spec.request.kind === "path") throw new UserError(`'${text}': releases lists registry versions, not binaries on disk`);
  return { kind: "spec", spec };
}

/** `backfillLines`: the window of --backfill (backfill_lines in .github/bench-runners.json), when given. */
export function parseWindow(since: string | undefined, lines: string | undefined, backfillLines?: number): Window {
  if ([since, lines, backfillLines].filter((given) => given !== undefined).length > 1) throw new UserError("releases: give one of --since, --lines and --backfill");
  if (backfillLines !== undefined) return { kind: "lines", count: backfillLines };
  if (since !== undefined) {
    const date = new Date(since);
    if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(date.getTime())) {
      throw new UserError(`--since '${since}': expected a date such as 2026-10-01 or 2026-10-01T12:00:00Z`);
    }
    return { kind: "since", date };
  }
  if (lines !== undefined) {
    const count = Number(lines);
    if (!Number.isInteger(count) || count < 1) throw new UserError(`--lines '${lines}': expected a whole number of at least 1`);
    return { kind: "lines", count };
  }
  return { kind: "since-last-benchmark", fallbackLines: DEFAULT_LINES };
}

export const releasesSubcommand = defineCommand({
  name: "releases",
  summary: "List published runtime versions to benchmark on the dedicated runners, as a table or a GitHub Actions matrix.",
  usage:
    "releases [--missing] [--json | --calls] [--data DIR] [--runtime NAME|SPEC]... [--runner NAME]... [--suite S... | --scenario SUITE/NAME...] [--app A]... [--since DATE | --lines N | --backfill] [--prereleases] [--with-predecessor | --canary]",
  help: [
    "  --runtime NAME|SPEC  node, deno or bun: the releases in the window (default: all three);",
    "                       node@22.11.0, deno@2.1 or bun@latest: that one version, whatever the window (repeatable)",
    "  --runner NAME        a runner from .github/bench-runners.json (repeatable); default: all of them",
    "  --suite S            only runners that run suite S (repeatable; a pool member runs its share of the scenarios)",
    "  --scenario SUITE/NAME  only runners that run the scenario, and only that scenario (repeatable)",
    "  --app A              narrow the jobs of suites with apps to app A (repeatable)",
    "  --missing            only versions that have no result yet on that runner in --data (a pool member: in its scenarios);",
    "                       with --scenario, only the (scenario, runner, version) cells without one, each job narrowed to them",
    "  --data DIR           the results store to compare with (default: data/)",
    "  --since DATE         window: releases published on or after DATE",
    `  --lines N            window: the newest release of each of the newest N release lines (node: major; deno, bun: major.minor)`,
    "  --backfill           window: --lines with backfill_lines of .github/bench-runners.json (a merged scenario's history)",
    "  --prereleases        include pre-releases (skipped by default)",
    "  --with-predecessor   give each version its predecessor, measured beside it in the same job: the newest",
    "                       stable release below it (the previous of its line, or the newest of the line before)",
    "  --canary             each selected release is the baseline of its runtime's newest nightly or canary build",
    "                       (the job's version becomes the setup action's input for that build; with --json)",
    "  --json               print {\"include\": [{runtime, version, runner, arch, labels, suites, scenarios, apps,",
    "                       channel, predecessor}, ...]} for strategy.matrix",
    "  --calls              print {\"include\": [{call, runners, runtimes}, ...]}: the benchmark.yml calls (with missing-only)",
    "                       that run exactly those jobs, one per set of runners",
    "",
    "Default window: per runner, the releases published after the newest one it has results for, on the",
    "oldest line it has results for and every newer line; on a runner with no result of a runtime yet,",
    `the newest release of each of its newest ${DEFAULT_LINES} lines.`,
    "Versions come from the registry metadata of each architecture's binary package.",
  ],
  options: {
    missing: { type: "boolean" },
    json: { type: "boolean" },
    calls: { type: "boolean" },
    data: { type: "string" },
    runtime: { type: "string", multiple: true },
    runner: { type: "string", multiple: true },
    suite: { type: "string", multiple: true },
    scenario: { type: "string", multiple: true },
    app: { type: "string", multiple: true },
    since: { type: "string" },
    lines: { type: "string" },
    backfill: { type: "boolean" },
    prereleases: { type: "boolean" },
    "with-predecessor": { type: "boolean" },
    canary: { type: "boolean" },
  },
  async run(values) {
    if (values.json && values.calls) throw new UserError("releases: give --json or --calls, not both");
    if (values.canary && !values.json) throw new UserError("releases: --canary gives a matrix: add --json");
    if (values.canary && values["with-predecessor"]) throw new UserError("releases: a canary's baseline is the newest release: give --canary or --with-predecessor, not both");
    const config = loadBenchConfig();
    const catalog = benchCatalog();
    const request = { suites: values.suite ?? [], scenarios: values.scenario ?? [], apps: values.app ?? [] };
    const work = planWork(assignScenarios(config.runners, catalog), request, catalog);
    const runners = chooseRunners(config.runners, values.runner ?? []).filter((runner) => work.has(runner.name));
    const requests = (values.runtime ?? [...RUNTIME_NAMES]).map(parseRuntimeRequest);
    const window = parseWindow(values.since, values.lines, values.backfill ? config.backfillLines : undefined);
    const wanted = new Set(requests.map((r) => (r.kind === "window" ? r.name : r.spec.name)));
    const arches = new Set(runners.map((r) => r.arch));
    const published = new Map<string, readonly Release[]>();
    await Promise.all(
      [...wanted].flatMap((runtime) =>
        [...arches].map(async (arch) => published.set(`${runtime}/${arch}`, await publishedReleases(runtime, arch))),
      ),
    );
    const byCell = (values.missing ?? false) && request.scenarios.length > 0;
    const selection = selectBenchmarks({
      runners,
      requests,
      releases: (runtime: RuntimeName, arch: Arch) => published.get(`${runtime}/${arch}`) ?? [],
      benchmarked: findBenchmarked(resolve(values.data ?? DEFAULT_DATA_DIR), runners.map((r) => r.name), (name) =>
        runners.find((r) => r.name === name)?.pool === undefined ? null : work.get(name)!.covers,
      ),
      window,
      prereleases: values.prereleases ?? false,
      // Named scenarios (a backfill) are judged cell by cell below, not version by version.
      missingOnly: (values.missing ?? false) && !byCell,
      withPredecessor: values["with-predecessor"] ?? false,
    });
    const planned = byCell ? missingBackfillCells(selection.planned, work, measuredIn(resolve(values.data ?? DEFAULT_DATA_DIR))) : selection.planned;
    for (const note of selection.notes) process.stderr.write(`runtime-bench: ${note}\n`);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(toMatrix(planned, work, values.canary ? "canary" : "release"))}\n`);
    } else if (values.calls) {
      process.stdout.write(`${JSON.stringify(toBenchmarkCalls(planned))}\n`);
    } else if (planned.length === 0) {
      process.stdout.write("nothing to benchmark\n");
    } else {
      process.stdout.write(`${formatTable(["runtime", "version", "published", "predecessor", "runner", "labels", "runs"], plannedRows(planned, work))}\n`);
    }
    return 0;
  },
});

/** The versions each (runner, scenario) has a result for, read once each from file names. */
function measuredIn(dataDir: string): MeasuredVersions {
  const read = new Map<string, ReturnType<typeof benchmarkedVersions>>();
  return (runner, scenario, runtime) => {
    const key = `${runner} ${scenario}`;
    if (!read.has(key)) read.set(key, benchmarkedVersions(dataDir, runner, [scenario]));
    return read.get(key)!.get(runtime) ?? new Set();
  };
}
