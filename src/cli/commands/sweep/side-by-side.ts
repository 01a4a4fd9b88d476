/** `sweep --side-by-side`: the newest release of each runtime in one run, as the overview draws them together. */
import { UserError } from "../../../core/errors.ts";
import { liveMachine, waitForQuiet } from "../../../env/machine-check.ts";
import { RunnerCoverage } from "../../../history/coverage.ts";
import { windowed, type RuntimeRelease } from "../../../history/select.ts";
import { sideBySideJob } from "../../../history/stage.ts";
import type { Chain } from "../../../history/sweep.ts";
import { planRun } from "../../../orchestrate/estimate.ts";
import { isInterrupted } from "../../../process/children.ts";
import { publishedReleases } from "../../../releases/published.ts";
import type { RuntimeName } from "../../../runtimes/catalog.ts";
import { parseSpec } from "../../../runtimes/spec.ts";
import { selectScenarios } from "../../../scenarios/select.ts";
import { resolveScenarios } from "../../../suites/resolve.ts";
import { formatDuration } from "../../../ui/duration.ts";
import { count } from "../../../ui/words.ts";
import { setupAll } from "../setup.ts";
import { readCoverage, specOf, type SweepRequest } from "./request.ts";
import { firstRefused, measureStaged } from "./measure.ts";

/**
 * The newest release of each runtime in its window (or the one named) whose binary runs here: what
 * `--side-by-side` measures. A window's newest release that is refused is left out, saying why, for the one before it.
 */
async function newestReleases(request: SweepRequest, { verify }: { verify: boolean }): Promise<RuntimeRelease[]> {
  const note = (line: string) => void process.stderr.write(`sweep: ${line}\n`);
  const newest: RuntimeRelease[] = [];
  for (const { runtime, versions } of request.runtimes) {
    if (versions !== null && versions.length > 1) throw new UserError(`sweep --side-by-side: name one release of ${runtime}, not ${versions.length}: the run measures one release of each runtime`);
    const window = { since: request.since, from: request.from.get(runtime), to: request.to.get(runtime) };
    const published = await publishedReleases(runtime, request.testbed.arch);
    const unknown = versions?.find((version) => !published.some((release) => release.version === version));
    if (unknown !== undefined) throw new UserError(`sweep: ${runtime}@${unknown} is not published for ${request.testbed.arch}`);
    const candidates = versions ?? windowed(published, window).reverse();
    if (!verify) {
      if (candidates[0] === undefined) throw new UserError(`sweep --side-by-side: ${runtime}: no release in the window`);
      newest.push({ runtime, version: candidates[0] });
      continue;
    }
    let chosen: RuntimeRelease | undefined;
    for (const version of candidates) {
      const refused = await firstRefused([{ runtime, version }], new Set(), note);
      if (refused === null) {
        chosen = { runtime, version };
        break;
      }
      if (versions !== null) throw new UserError(`sweep: ${refused.why}`);
      note(`left out ${runtime} ${version}: ${refused.why}; the release before it stands in`);
    }
    if (chosen === undefined) throw new UserError(`sweep --side-by-side: ${runtime}: no release in the window runs here`);
    newest.push(chosen);
  }
  return newest;
}

interface SideBySideWork {
  readonly missing: string[];
  readonly atCap: number;
}

/** What a side-by-side run of the releases owes: the scenarios data/ holds no such run of at their version, and their time with every cell at its cap. */
function sideBySideWork(request: SweepRequest, releases: readonly RuntimeRelease[], coverage: RunnerCoverage): SideBySideWork {
  const scenarios = selectScenarios({ suites: request.selection.suites, scenarios: request.selection.scenarios }).flatMap((s) => {
    const on = releases.filter((release) => s.manifest.runtimes[release.runtime] !== undefined);
    return on.length === 0 ? [] : [{ id: `${s.suite}/${s.name}`, measured: coverage.together(on, `${s.suite}/${s.name}`, s.manifest.version) }];
  });
  if (scenarios.length === 0) throw new UserError(`sweep --side-by-side: none of the chosen scenarios runs on ${releases.map(specOf).join(", ")}`);
  const missing = scenarios.filter((s) => !s.measured).map((s) => s.id);
  if (missing.length === 0) return { missing, atCap: 0 };
  const plans = planRun(resolveScenarios(selectScenarios({ suites: [], scenarios: missing }), request.profile, request.trials), releases.map((r) => parseSpec(specOf(r))), request.selection.suiteOptions);
  return { missing, atCap: plans.reduce((sum, plan) => sum + (plan.maxSeconds ?? 0), 0) };
}

/** What `sweep --side-by-side --plan` prints. A plan downloads nothing: a newest release whose binary is refused is found by the run. */
export async function sideBySidePlanText(request: SweepRequest): Promise<string> {
  const releases = await newestReleases(request, { verify: false });
  return sideBySideText(request, releases, sideBySideWork(request, releases, readCoverage(request)));
}

/** What data/ holds of the releases side by side, and what a run of them would cost. */
function sideBySideText(request: SweepRequest, releases: readonly RuntimeRelease[], { missing, atCap }: SideBySideWork): string {
  const what = `${releases.map(specOf).join(", ")} side by side on ${request.testbed.name}`;
  if (missing.length === 0) return `${what}: in data/ already, on every scenario at its version; nothing to measure`;
  return `${what}: one run of ${count(missing.length, "scenario")} (${missing.join(", ")}), up to ${formatDuration(atCap)} with every cell at its cap of adaptive trials, profile ${request.profile}`;
}

/**
 * Where a sweep's chains end at releases of several runtimes that data/ holds no run of side by
 * side: the overview draws a machine's newest releases together, and nothing measures them so but
 * `--side-by-side`, which the line names with these releases. Nothing for a sweep of one runtime.
 */
export function sideBySideHint(request: SweepRequest, chains: readonly (Chain & { runtime: RuntimeName })[], coverage: RunnerCoverage): string[] {
  if (chains.length < 2) return [];
  const newest = chains.map((chain) => ({ runtime: chain.runtime, version: chain.links.at(-1)!.to }));
  const work = sideBySideWork(request, newest, coverage);
  if (work.missing.length === 0) return [`The newest releases of the chains, ${newest.map(specOf).join(", ")}, are in data/ side by side.`];
  const command = ["scripts/bench sweep --side-by-side", ...newest.map((release) => `--runtime ${specOf(release)}`)].join(" ");
  return [`The overview draws the newest releases together: ${sideBySideText(request, newest, work)}. Measure them with ${command}.`];
}

/**
 * `sweep --side-by-side`: the newest release of each runtime in one run of the selection, as the
 * overview draws them together (docs/history.md), on the scenarios where data/ holds no such run
 * at the scenario's version yet. What it did, in words.
 */
export async function measureSideBySide(request: SweepRequest, workDir: string, refused: string[]): Promise<string> {
  const started = Date.now();
  const releases = await newestReleases(request, { verify: true });
  const specs = releases.map(specOf);
  const { missing, atCap } = sideBySideWork(request, releases, readCoverage(request));
  if (missing.length === 0) return `sweep: ${specs.join(", ")} side by side are in data/ already, on every scenario at its version`;
  await setupAll([], [...new Set(missing.map((scenario) => scenario.split("/")[0]!))]);
  const say = (line: string) => void process.stderr.write(`${line}\n`);
  if ((await waitForQuiet("sweep", request.maxLoad, { ...liveMachine, log: say, stop: () => (isInterrupted() ? "interrupted" : null) })) !== null) return "sweep: stopped (interrupted) before the run";
  const left = request.timeLimit === undefined ? undefined : request.timeLimit - (Date.now() - started) / 1000;
  if (left !== undefined && atCap > left) return `sweep: time limit: ${specs.join(", ")} side by side may take up to ${formatDuration(atCap)} with all its looks, and ${formatDuration(Math.max(0, left))} is left`;
  say(`sweep: ${specs.join(", ")} side by side on ${count(missing.length, "scenario")}: up to ${formatDuration(atCap)} (the estimate at every look)`);
  const run = { specs, scenarios: missing, suiteOptions: request.selection.suiteOptions, timeLimit: left, futility: false };
  const outcome = await measureStaged(request, workDir, sideBySideJob(releases, request.testbed, missing), run, refused);
  if (outcome.interrupted) return "sweep: stopped (interrupted): run the same command again to go on; nothing measured is measured again";
  return `sweep: ${specs.join(", ")} measured side by side on ${count(missing.length, "scenario")}, added to ${request.dataDir}`;
}
