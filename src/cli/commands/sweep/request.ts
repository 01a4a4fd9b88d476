/** `scripts/bench sweep`'s options read into one request, and what every part of the sweep reads through it: the testbed, data/'s coverage. */
import { resolve } from "node:path";
import semver from "semver";
import { UserError } from "../../../core/errors.ts";
import { checkNamedFolder } from "../../../core/json-file.ts";
import { DEFAULT_DATA_DIR } from "../../../core/paths.ts";
import { readEnvironment } from "../../../env/fingerprint.ts";
import { parseMaxLoad } from "../../../env/machine-check.ts";
import { RunnerCoverage } from "../../../history/coverage.ts";
import { parseGranularity, type Granularity, type RuntimeRelease } from "../../../history/select.ts";
import { BENCH_RUNNERS_FILE, chooseTestbed, cpuModelMatches, loadBenchConfig, type BenchMachine, type ReferenceTestbed } from "../../../releases/runners.ts";
import type { Profile } from "../../../results/types.ts";
import { RUNTIME_NAMES, isRuntimeName, type RuntimeName } from "../../../runtimes/catalog.ts";
import { parseSpec } from "../../../runtimes/spec.ts";
import { commandLineSelection, type Selection } from "../../../suites/selection.ts";
import { parseDuration } from "../../../ui/duration.ts";
import type { ParsedValues } from "../../command.ts";
import { parseProfile, parseTrialBudget, parseTrials } from "../run.ts";

/**
 * What a sweep measures each link in by default: the quick profile at its own trials, with the
 * adaptive trials two releases of one runtime get, each link taking all its looks. Why, and what it
 * can detect: docs/history.md, "The profile".
 */
const SWEEP_PROFILE: Profile = "quick";

/** One runtime of a sweep: a window of its releases, or the releases named one by one. */
interface RuntimeChoice {
  readonly runtime: RuntimeName;
  /** Named releases (`--runtime node@22.11.0`, repeated), or null for the window's selection. */
  readonly versions: string[] | null;
}

export interface SweepRequest {
  readonly runtimes: readonly RuntimeChoice[];
  readonly since?: Date;
  readonly from: ReadonlyMap<RuntimeName, string>;
  readonly to: ReadonlyMap<RuntimeName, string>;
  readonly every: Granularity;
  readonly profile: Profile;
  readonly trials?: number;
  /** Extra trials the adaptive rule may add in each run of the sweep; undefined: each cell's cap. */
  readonly trialBudget?: number;
  readonly selection: Selection;
  readonly dataDir: string;
  readonly testbed: ReferenceTestbed;
  readonly machines: readonly BenchMachine[];
  readonly timeLimit?: number;
  readonly maxLoad: number;
  readonly narrow: boolean;
  readonly againBefore?: Date;
  /** One run of each runtime's newest release side by side instead of the chains. */
  readonly sideBySide: boolean;
}

/** `--runtime node` (the window's releases) or `--runtime node@22.11.0`, repeated: those releases. */
function parseRuntimes(texts: readonly string[]): RuntimeChoice[] {
  const choices = new Map<RuntimeName, string[] | null>();
  for (const text of texts) {
    if (isRuntimeName(text)) {
      if (choices.get(text)) throw new UserError(`sweep: --runtime ${text} and --runtime ${text}@VERSION: give the window or the releases, not both`);
      choices.set(text, null);
      continue;
    }
    const spec = parseSpec(text);
    if (spec.request.kind !== "exact") throw new UserError(`sweep: --runtime '${text}': give a runtime (node) or an exact release (node@22.11.0)`);
    if (choices.get(spec.name) === null) throw new UserError(`sweep: --runtime ${spec.name} and --runtime ${text}: give the window or the releases, not both`);
    choices.set(spec.name, [...(choices.get(spec.name) ?? []), spec.request.version]);
  }
  return [...choices].map(([runtime, versions]) => ({ runtime, versions: versions === null ? null : semver.sort([...new Set(versions)]) }));
}

/** `--from node@20.0.0`: a bound of one runtime's window. */
function parseBounds(texts: readonly string[] | undefined, option: string): Map<RuntimeName, string> {
  return new Map(
    (texts ?? []).map((text) => {
      const spec = parseSpec(text);
      if (spec.request.kind !== "exact") throw new UserError(`sweep: ${option} '${text}': give a runtime and a version, such as node@20.0.0`);
      return [spec.name, spec.request.version] as const;
    }),
  );
}

/** `--again-before`: a time already past, or every run this sweep measures would count as before it and be measured again on resuming. */
function parseAgainBefore(text: string | undefined, now: number): Date | undefined {
  if (text === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) throw new UserError(`sweep: --again-before '${text}': expected a date or a time in UTC, such as 2026-11-29 or 2026-11-29T00:20Z`);
  if (time > now) throw new UserError(`sweep: --again-before '${text}' is later than now: this sweep's own runs would count as earlier and be measured again each time it resumed`);
  return new Date(time);
}

function parseSince(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const date = new Date(text.length === 7 ? `${text}-01` : text);
  if (!/^\d{4}-\d{2}(-\d{2})?/.test(text) || Number.isNaN(date.getTime())) throw new UserError(`sweep: --since '${text}': expected a month or a date, such as 2024-06 or 2024-06-15`);
  return date;
}

export const SWEEP_OPTIONS = {
  plan: { type: "boolean" },
  runtime: { type: "string", multiple: true },
  since: { type: "string" },
  from: { type: "string", multiple: true },
  to: { type: "string", multiple: true },
  every: { type: "string" },
  profile: { type: "string" },
  trials: { type: "string" },
  "trial-budget": { type: "string" },
  suite: { type: "string", multiple: true },
  scenario: { type: "string", multiple: true },
  data: { type: "string" },
  testbed: { type: "string" },
  runners: { type: "string" },
  "time-limit": { type: "string" },
  "max-load": { type: "string" },
  "no-narrow": { type: "boolean" },
  "again-before": { type: "string" },
  "side-by-side": { type: "boolean" },
} as const;

export function parseRequest(values: ParsedValues<typeof SWEEP_OPTIONS>): SweepRequest {
  const config = loadBenchConfig(values.runners === undefined ? BENCH_RUNNERS_FILE : resolve(values.runners));
  const profile = parseProfile(values.profile ?? SWEEP_PROFILE);
  if (profile === "smoke") throw new UserError("sweep: the smoke profile runs one trial, and a link's paired verdict needs two: use quick or full");
  // Its default may be absent (the first sweep makes it); a named one absent would be priced as if nothing were measured.
  checkNamedFolder("sweep: --data", values.data, "make it first to start a history there");
  const scenarios = values.scenario ?? [];
  const trials = parseTrials(values.trials, profile);
  const runtimes = parseRuntimes(values.runtime ?? [...RUNTIME_NAMES]);
  const from = parseBounds(values.from, "--from");
  const sideBySide = values["side-by-side"] ?? false;
  if (sideBySide && (values.every !== undefined || values["no-narrow"])) throw new UserError("sweep: --side-by-side measures each runtime's newest release once, with no chain to sample (--every) or narrow (--no-narrow)");
  const unbounded = values.since === undefined && !sideBySide ? runtimes.find((choice) => choice.versions === null && !from.has(choice.runtime)) : undefined;
  if (unbounded !== undefined) {
    const name = unbounded.runtime;
    throw new UserError(`sweep: ${name}: give a window (--since DATE or --from ${name}@VERSION) or name its releases (--runtime ${name}@VERSION, repeated): all its releases would be hundreds of links`);
  }
  return {
    runtimes,
    since: parseSince(values.since),
    from,
    to: parseBounds(values.to, "--to"),
    every: parseGranularity(values.every),
    profile,
    ...(trials !== undefined ? { trials } : {}),
    ...(values["trial-budget"] !== undefined ? { trialBudget: parseTrialBudget(values["trial-budget"]) } : {}),
    // The default selection, as the release job measures it, unless scenarios are named.
    selection: commandLineSelection({ ...values, "default-selection": scenarios.length === 0 }),
    dataDir: resolve(values.data ?? DEFAULT_DATA_DIR),
    testbed: chooseTestbed(config.testbeds, values.testbed),
    machines: [...config.runners, ...config.testbeds],
    ...(values["time-limit"] !== undefined ? { timeLimit: parseDuration(values["time-limit"], "--time-limit") } : {}),
    maxLoad: parseMaxLoad(values["max-load"], "sweep"),
    narrow: !values["no-narrow"],
    ...(values["again-before"] !== undefined ? { againBefore: parseAgainBefore(values["again-before"], Date.now()) } : {}),
    sideBySide,
  };
}

/** Runs cut short by a budget count as measured only where the sweep asks for one itself. */
export const acceptsCutShort = (request: SweepRequest) => request.trialBudget !== undefined;

/** What data/ holds of the testbed's links. */
export const readCoverage = (request: SweepRequest) =>
  RunnerCoverage.read(request.dataDir, request.testbed.name, { acceptCutShort: acceptsCutShort(request), ...(request.againBefore ? { countedFrom: request.againBefore } : {}) });
/** Refuses to measure on a machine whose results collect would refuse. */
export function checkOnTestbed(testbed: ReferenceTestbed): void {
  const { arch, cpu_model: model } = readEnvironment();
  if (arch !== testbed.arch || !cpuModelMatches(model, testbed.cpu_models)) {
    throw new UserError(`sweep: this machine (${arch}, ${model}) is not the reference testbed ${testbed.name} (${testbed.arch}, ${testbed.cpu_models.join(" or ")}; .github/bench-runners.json): collect would refuse its results`);
  }
}
export const specOf = (release: RuntimeRelease) => `${release.runtime}@${release.version}`;
