import { UserError, errorMessage } from "../../core/errors.ts";
import { publishedReleases, type Release } from "../../releases/published.ts";
import { predecessorOf } from "../../releases/select.ts";
import type { Profile } from "../../results/types.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import { targetArch } from "../../runtimes/emulation.ts";
import { publishedVersions } from "../../runtimes/provision.ts";
import { DEFAULT_RUNTIMES, splitLabel } from "../../runtimes/prepare.ts";
import { parseSpec, pickVersion, type RuntimeSpec } from "../../runtimes/spec.ts";
import { planRun, type SuitePlan } from "../../orchestrate/estimate.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { resolveScenarios } from "../../suites/resolve.ts";
import { commandLineSelection, DEFAULT_SELECTION_HELP, suiteOptionArgs } from "../../suites/selection.ts";
import { formatDuration } from "../../ui/duration.ts";
import { formatTable } from "../../ui/table.ts";
import { defineCommand } from "../command.ts";
import { checkSuiteOptions, parseLoadPointFilter, parseProfile, parseTrials } from "./run.ts";

/**
 * The release job's subjects: each spec's version followed by its predecessor (the newest stable
 * release below it), as the release watch measures them in one run. `releasesOf` lists a runtime's
 * published releases; a version without a predecessor is measured alone, as its job would be.
 */
export function withPredecessors(specs: readonly RuntimeSpec[], releasesOf: (runtime: RuntimeName) => readonly Release[]): { specs: RuntimeSpec[]; notes: string[] } {
  const notes: string[] = [];
  const paired = specs.flatMap((spec) => {
    if (spec.request.kind === "path") throw new UserError(`--with-predecessor: '${spec.text}' is a binary on disk, which has no published predecessor`);
    const releases = releasesOf(spec.name);
    const version = pickVersion(spec, releases.map((r) => r.version));
    const predecessor = predecessorOf(version, releases);
    if (predecessor === null) notes.push(`${spec.name}@${version} has no earlier release: measured alone`);
    return [`${spec.name}@${version}`, ...(predecessor === null ? [] : [`${spec.name}@${predecessor}`])].map(parseSpec);
  });
  return { specs: paired, notes };
}

/**
 * Refuses a version the registry does not list, as run would when it provisions it (the same list), so that no
 * plan prices a release that does not exist. Reads only the package lists (nothing is
 * downloaded); where the registry cannot be read, says so and prices the versions unchecked.
 */
async function checkPublished(specs: readonly RuntimeSpec[]): Promise<void> {
  const registered = specs.filter((spec) => spec.request.kind !== "path");
  const names = [...new Set(registered.map((spec) => spec.name))];
  let versions: Map<RuntimeName, readonly string[]>;
  try {
    versions = new Map(await Promise.all(names.map(async (name) => [name, await publishedVersions(name)] as const)));
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    process.stderr.write(`runtime-bench: plan: the versions are priced unchecked: ${errorMessage(error)}\n`);
    return;
  }
  for (const spec of registered) pickVersion(spec, versions.get(spec.name)!);
}

/** `releases`: with --with-predecessor, how many releases the runtimes are (each beside its predecessor in one job). */
export function planTable(plans: readonly SuitePlan[], profile: Profile, runtimes: number, releases?: number): string {
  const known = plans.filter((p) => p.seconds !== null);
  const total = known.reduce((sum, p) => sum + p.seconds!, 0);
  const rows = plans.map((p) =>
    p.seconds === null ? [p.suite, String(p.scenarios), "?", "?", "no estimate"] : [p.suite, String(p.scenarios), String(p.cells), String(p.trials), formatDuration(p.seconds)],
  );
  rows.push(["total", "", String(known.reduce((n, p) => n + p.cells, 0)), String(known.reduce((n, p) => n + p.trials, 0)), formatDuration(total)]);
  const lines = [formatTable(["suite", "scenarios", "cells", "trials", "estimated time"], rows), ""];
  if (releases === undefined) {
    lines.push(`Profile ${profile}, ${runtimes} runtime version${runtimes === 1 ? "" : "s"}, one machine: about ${formatDuration(total / Math.max(runtimes, 1))} per runtime version.`);
  } else {
    const perJob = (seconds: number) => formatDuration(seconds / Math.max(releases, 1));
    const max = known.reduce((sum, p) => sum + p.maxSeconds!, 0);
    lines.push(`Profile ${profile}, ${releases} release${releases === 1 ? "" : "s"} each beside its predecessor (${runtimes} runtime versions), one machine: about ${perJob(total)} per release job.`);
    lines.push(
      `Adaptive trials add rounds while a pair is undecided: with every cell at its cap, ${perJob(max)}; the release job's \`run --time-limit 6h\` gives them only what the estimate leaves of 6 h.`,
    );
  }
  lines.push("Trials and checks only: provisioning runtimes and installing apps add a few minutes the first time.");
  const missing = plans.filter((p) => p.seconds === null).map((p) => p.suite);
  if (missing.length > 0) lines.push(`No estimate for ${missing.join(", ")}: the total leaves them out.`);
  return lines.join("\n");
}

const SUITE_OPTIONS = suiteOptionArgs();

export const planSubcommand = defineCommand({
  name: "plan",
  summary: "Show the cells a run would measure and its estimated time per suite, from the profiles' parameters; measures nothing.",
  usage: `plan [--profile quick|full|smoke] [--trials N] [--suite S]... [--scenario X]... [--default-selection] [--runtime SPEC]... [--with-predecessor] [--param NAME=VALUE]... [--load-point NAME=VALUE,…]...${SUITE_OPTIONS.usage}`,
  help: [
    "  --profile P       quick (default), full, or smoke (quick with one trial and one window of server warm-up)",
    "  --trials N        each scenario's minimum trials, instead of its profile's (as for run)",
    "  --suite S         a suite (repeatable); default: every suite",
    "  --scenario X      a scenario, as NAME or SUITE/NAME (repeatable); default: every scenario of the suites",
    ...DEFAULT_SELECTION_HELP,
    `  --runtime SPEC    as for run (repeatable; its version checked in the registry, nothing provisioned); default: ${DEFAULT_RUNTIMES.join(" ")}`,
    "  --with-predecessor  each runtime beside its predecessor, as the release watch's job measures it (the",
    "                    previous release of its line, or the newest of the line before; read from the registry)",
    "  --param NAME=VALUE  only the cells whose load point has this value (repeatable, as for run)",
    "  --load-point NAME=VALUE,NAME=VALUE  only the cells at exactly these values (repeatable, as for run)",
    ...SUITE_OPTIONS.help,
    "",
    "Each suite estimates its own cost from the scenario's profile (load durations, runs, trials) and its",
    "per-step costs; `scripts/bench plan --profile full --runtime node@latest --with-predecessor --default-selection`",
    "is one release job's cost on one machine; `scripts/bench sweep --plan` prices a history sweep (docs/history.md).",
  ],
  options: {
    profile: { type: "string" },
    trials: { type: "string" },
    suite: { type: "string", multiple: true },
    scenario: { type: "string", multiple: true },
    "default-selection": { type: "boolean" },
    runtime: { type: "string", multiple: true },
    "with-predecessor": { type: "boolean" },
    param: { type: "string", multiple: true },
    "load-point": { type: "string", multiple: true },
    ...SUITE_OPTIONS.options,
  },
  async run(values) {
    const { suites, scenarios: chosen, suiteOptions } = commandLineSelection(values);
    const profile = parseProfile(values.profile);
    const requested = (values.runtime ?? [...DEFAULT_RUNTIMES]).map((text) => parseSpec(splitLabel(text).spec));
    const twice = requested.find((spec, i) => requested.findIndex((other) => other.text === spec.text) !== i);
    if (twice) throw new UserError(`plan: ${twice.text} is given twice, and run refuses to measure one binary beside itself`);
    const scenarios = resolveScenarios(selectScenarios({ suites, scenarios: chosen }), profile, parseTrials(values.trials, profile));
    checkSuiteOptions(suiteOptions, [...new Set(scenarios.map((s) => s.suite))]);
    let specs = requested;
    if (values["with-predecessor"]) {
      const names = [...new Set(requested.map((spec) => spec.name))];
      const published = new Map(await Promise.all(names.map(async (name) => [name, await publishedReleases(name, targetArch())] as const)));
      const paired = withPredecessors(requested, (name) => published.get(name)!);
      for (const note of paired.notes) process.stderr.write(`runtime-bench: ${note}\n`);
      specs = paired.specs;
    } else {
      await checkPublished(requested);
    }
    const releases = values["with-predecessor"] ? requested.length : undefined;
    process.stdout.write(`${planTable(planRun(scenarios, specs, suiteOptions, { judged: profile !== "smoke", params: parseLoadPointFilter(values.param ?? [], values["load-point"] ?? []) }), profile, specs.length, releases)}\n`);
    return 0;
  },
});
