import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { owedText, reportText } from "../../src/cli/commands/sweep/chains.ts";
import type { CompareRow } from "../../src/compare/types.ts";
import { RunnerCoverage } from "../../src/history/coverage.ts";
import { collectStaged, earlierRuns, keepRuns, sweepPaceFile } from "../../src/history/stage.ts";
import { UserError } from "../../src/core/errors.ts";
import { atLoadPoint } from "../../src/core/params.ts";
import { narrowingRuns, narrowStep, type StepJudgement } from "../../src/history/narrow.ts";
import { chainLinks, releasesBetween, selectReleases } from "../../src/history/select.ts";
import { nextRuns, paceOf, pendingJobs, runSweep, type SweepHooks, type SweepJob, type SweepPlan, type SweepStep, type TimedRun } from "../../src/history/sweep.ts";
import type { Release } from "../../src/releases/published.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { readIndexedDocuments } from "../../src/results/run-index.ts";
import { writeResult } from "../../src/results/store.ts";
import { linkRun, steppedLevel, TESTBED_AMD } from "../helpers/links.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

const release = (version: string, day = 1): Release => ({ version, published: new Date(Date.UTC(2025, 0, day)) });

describe("a sweep's selection of releases", () => {
  const published = ["1.0.0", "1.0.1", "1.0.2", "1.1.0", "1.1.1", "1.2.0", "1.2.1", "1.2.2", "2.0.0", "2.0.1", "2.1.0", "2.1.1", "2.1.2", "2.2.0-rc.1"].map((v, i) => release(v, i + 1));

  it("takes the newest of each minor, the first of each line and every release of the newest minor (Deno and Bun: a line is a minor)", () => {
    assert.deepEqual(selectReleases("deno", published, {}, "minor"), ["1.0.0", "1.0.2", "1.1.0", "1.1.1", "1.2.0", "1.2.2", "2.0.0", "2.0.1", "2.1.0", "2.1.1", "2.1.2"]);
  });

  it("for Node a line is a major: its first release, then the newest of each minor", () => {
    assert.deepEqual(selectReleases("node", published, {}, "minor"), ["1.0.0", "1.0.2", "1.1.1", "1.2.2", "2.0.0", "2.0.1", "2.1.0", "2.1.1", "2.1.2"]);
    assert.deepEqual(selectReleases("node", published, {}, "major"), ["1.0.0", "1.2.2", "2.0.0", "2.1.0", "2.1.1", "2.1.2"]);
    assert.equal(selectReleases("node", published, {}, "patch").length, 13, "every stable release");
  });

  it("keeps to the window: from a version, to a version, since a date", () => {
    assert.deepEqual(selectReleases("node", published, { from: "1.2.0", to: "2.0.1" }, "minor"), ["1.2.0", "1.2.2", "2.0.0", "2.0.1"]);
    assert.deepEqual(selectReleases("node", published, { since: new Date(Date.UTC(2025, 0, 12)) }, "minor"), ["2.1.1", "2.1.2"]);
  });

  it("chains each release to the one before it, and knows the releases between two", () => {
    assert.deepEqual(chainLinks("node", ["1.0.0", "1.2.2", "2.0.0"]), [
      { runtime: "node", from: "1.0.0", to: "1.2.2" },
      { runtime: "node", from: "1.2.2", to: "2.0.0" },
    ]);
    assert.deepEqual(releasesBetween(published, { from: "1.2.2", to: "2.1.0" }), ["2.0.0", "2.0.1"]);
  });
});

describe("narrowing a step by bisection", () => {
  const between = ["1", "2", "3", "4", "5", "6", "7"].map((n) => `22.${n}.0`);
  /** A judge that knows where the steps are: a pair shows one when a step lies within it. */
  const judgeOf = (steps: string[], calls: string[]) => async (from: string, to: string): Promise<StepJudgement> => {
    calls.push(`${from}→${to}`);
    const minor = (v: string) => Number(v.split(".")[1]);
    return steps.some((at) => minor(from) < minor(at) && minor(at) <= minor(to)) ? "step" : "none";
  };

  it("narrows a step planted between non-adjacent releases to the release that brought it, in 2 runs a level", async () => {
    const calls: string[] = [];
    const narrowed = await narrowStep("22.0.0", "22.8.0", between, judgeOf(["22.6.0"], calls));
    assert.deepEqual(narrowed, [{ from: "22.5.0", to: "22.6.0", adjacent: true, unmeasurable: [] }]);
    assert.equal(calls.length, narrowingRuns(between.length));
  });

  it("finds a step spread over two releases in both halves, and says when neither half shows it alone", async () => {
    assert.deepEqual(await narrowStep("22.0.0", "22.8.0", between, judgeOf(["22.2.0", "22.7.0"], [])), [
      { from: "22.1.0", to: "22.2.0", adjacent: true, unmeasurable: [] },
      { from: "22.6.0", to: "22.7.0", adjacent: true, unmeasurable: [] },
    ]);
    assert.deepEqual(await narrowStep("22.0.0", "22.8.0", between, async () => "none"), [{ from: "22.0.0", to: "22.8.0", adjacent: false, unmeasurable: [] }]);
  });

  it("leaves out a release between whose binary does not run, measures no pair that holds it, and names it in the step it lies within", async () => {
    const calls: string[] = [];
    const refused = new Set(["22.4.0", "22.5.0"]);
    const narrowed = await narrowStep("22.0.0", "22.8.0", between, judgeOf(["22.5.0"], calls), { runs: async (version) => !refused.has(version) });
    assert.deepEqual(narrowed, [{ from: "22.3.0", to: "22.6.0", adjacent: true, unmeasurable: ["22.4.0", "22.5.0"] }]);
    assert.ok(calls.every((pair) => ![...refused].some((version) => pair.includes(version))), calls.join(" "));
  });

  it("follows a bisection data/ holds, begun when the releases between were not the same, measuring none of its pairs again", async () => {
    // An earlier day's registry lacked 22.2.0, 22.3.0 and 22.7.0: its middles were 22.5.0 then 22.6.0.
    const earlier: string[] = [];
    await narrowStep("22.0.0", "22.8.0", ["22.1.0", "22.4.0", "22.5.0", "22.6.0"], judgeOf(["22.6.0"], earlier));
    assert.deepEqual(earlier, ["22.0.0→22.4.0", "22.4.0→22.8.0", "22.4.0→22.5.0", "22.5.0→22.8.0", "22.5.0→22.6.0", "22.6.0→22.8.0"]);
    const inData = new Set(earlier);
    const calls: string[] = [];
    const narrowed = await narrowStep("22.0.0", "22.8.0", between, judgeOf(["22.6.0"], calls), { measured: (from, to) => inData.has(`${from}→${to}`) });
    assert.deepEqual(narrowed, [{ from: "22.5.0", to: "22.6.0", adjacent: true, unmeasurable: [] }]);
    assert.deepEqual(calls.filter((pair) => !inData.has(pair)), [], "every pair judged was in data/");
  });
});

const RELEASES = Array.from({ length: 9 }, (_, minor) => release(`22.${minor}.0`, minor + 1));
const LEVEL = steppedLevel(100, "22.6.0", 1.1);
const SCENARIO = "startup/hello";

/** Run ids are unique per run, across every sweep of this file. */
let runIndex = 100;

/** A sweep on synthetic runs: each run writes a link's paired results to data/, and the clock moves by its cost. */
function fakeSweep(dataDir: string, options: { refused?: string[]; undecided?: { pairs: string[]; stopped: "futile" | "max trials" }; interruptAt?: number; cutShortAt?: number; loads?: number[]; chainShare?: number; narrowingShare?: number; scenarioVersion?: number; kept?: TimedRun[]; secondCell?: (version: string) => number; express?: (version: string) => number } = {}) {
  let clock = Date.UTC(2026, 0, 1);
  let measured = 0;
  const log: string[] = [];
  const runs: string[] = [];
  const loads = [...(options.loads ?? [])];
  const hooks: SweepHooks = {
    async measure(job) {
      measured += 1;
      // Every look taken: a run as long as its estimate at the cell caps (a narrowing run, `narrowingShare` of it).
      clock += 1_800_000 * (job.purpose === "narrowing" ? (options.narrowingShare ?? 1) : (options.chainShare ?? 1));
      if (measured === options.interruptAt) return "interrupted";
      const version = options.scenarioVersion !== undefined ? { scenarioVersion: options.scenarioVersion } : {};
      const pair = `${job.link.from}→${job.link.to}`;
      // A narrowing run on a noisy machine that left the step undecided: stopped for futility at 7 pairs (before narrowing runs took every look), or at the quick cap of 10.
      const short = job.purpose === "narrowing" && options.undecided?.pairs.includes(pair) ? options.undecided : undefined;
      const undecided = short === undefined ? {} : { trials: short.stopped === "futile" ? 7 : 10, noise: 0.3 };
      const stoppedBy = short === undefined ? {} : { sequential: { looks: [3, 7, 10], alpha: 0.0008, stopped: short.stopped } };
      // The time limit reached at the run's first look.
      const cutShort = measured === options.cutShortAt ? { sequential: { looks: [3, 7, 10], alpha: 0.0008, stopped: "budget" as const } } : {};
      const run = { machine: TESTBED_AMD, index: runIndex++, from: job.link.from, to: job.link.to, ...version, ...undecided };
      const cells = [linkRun({ ...run, level: LEVEL }), ...(options.secondCell !== undefined ? [linkRun({ ...run, level: options.secondCell, params: { size: 2 } })] : [])];
      if (options.express !== undefined) {
        // Two apps: a link measures both (as with --scenario), a narrowing run its job's apps, else the selection's (native).
        const apps = job.purpose === "chain" ? ["native", "express"] : job.apps.length > 0 ? job.apps : ["native"];
        cells.splice(0, cells.length, ...apps.map((app) => linkRun({ ...run, app, level: app === "express" ? options.express! : () => 100 })));
      }
      // A narrowing run measures its step's load points only (run --load-point).
      for (const doc of cells.flat().filter((one) => atLoadPoint(one.params, job.params))) await writeResult(dataDir, { ...doc, ...stoppedBy, ...cutShort });
      runs.push(pair);
      return measured === options.cutShortAt ? "cut short" : "measured";
    },
    cost: () => ({ seconds: 600, maxSeconds: 1800 }),
    coverage: () => RunnerCoverage.read(dataDir, TESTBED_AMD.runner, { acceptCutShort: false }),
    load: () => loads.shift() ?? 0.1,
    sleep: async (ms) => void (clock += ms),
    now: () => clock,
    log: (line) => void log.push(line),
    interrupted: () => false,
    earlierRuns: () => options.kept ?? [],
    keepRuns: (kept) => void options.kept?.splice(0, options.kept.length, ...kept),
    runs: async (_runtime, version) => !(options.refused ?? []).includes(version),
  };
  return { hooks, log, runs };
}

/** A step's narrowest pairs as `from→to`, `?` after one not narrowed to adjacent releases; `open` where the sweep stopped first. */
const narrowedText = (s: SweepStep) => s.narrowed?.map((n) => `${n.from}→${n.to}${n.adjacent ? "" : "?"}`).join(" ") ?? "open";

/** A second cell 10 % slower from 22.2.0 to 22.5.0 and back after: a link over them shows nothing there, its halves do. */
const RETURNING_CELL = (version: string) => (["22.2.0", "22.3.0", "22.4.0", "22.5.0"].includes(version) ? 110 : 100);

const PLAN: SweepPlan = {
  chains: [{ links: chainLinks("node", ["22.0.0", "22.4.0", "22.8.0"]), scenarios: [SCENARIO] }],
  between: (link) => releasesBetween(RELEASES, link),
  narrow: true,
  scenarioVersion: () => 1,
  narrowingCap: () => 10,
};

describe("a sweep: each link, then its steps narrowed", () => {
  it("measures each link once, narrows the step planted between 22.5.0 and 22.6.0, and decides the same from data/ when run again", async () => {
    const data = tempDir("sweep");
    const first = fakeSweep(data);
    const report = await runSweep(PLAN, first.hooks, { maxLoad: 1 });
    assert.deepEqual(first.runs, ["22.0.0→22.4.0", "22.4.0→22.8.0", "22.4.0→22.6.0", "22.6.0→22.8.0", "22.4.0→22.5.0", "22.5.0→22.6.0"]);
    assert.equal(report.stopped, null);
    assert.deepEqual(report.steps.map((s) => [s.link.from, s.link.to, s.step.scenario, s.step.verdict, s.narrowed]), [
      ["22.4.0", "22.8.0", SCENARIO, "slower", [{ from: "22.5.0", to: "22.6.0", adjacent: true, unmeasurable: [] }]],
    ]);
    const again = fakeSweep(data);
    const second = await runSweep(PLAN, again.hooks, { maxLoad: 1 });
    assert.deepEqual([again.runs, second.measured, second.skipped], [[], 0, 2], "nothing measured twice");
    assert.deepEqual(second.steps.map((s) => s.narrowed), report.steps.map((s) => s.narrowed));
  });

  const HALVES = ["22.4.0→22.6.0", "22.6.0→22.8.0"];
  const NARROWED = ["22.4.0→22.6.0", "22.6.0→22.8.0", "22.4.0→22.5.0", "22.5.0→22.6.0"];
  const stepsOf = (report: { steps: SweepStep[] }) => report.steps.map(narrowedText);

  it("measures once more, to its cap, a narrowing half that left the step undecided where it stopped for futility", async () => {
    const data = tempDir("sweep-futile");
    const first = fakeSweep(data, { undecided: { pairs: HALVES, stopped: "futile" } });
    assert.deepEqual(stepsOf(await runSweep(PLAN, first.hooks, { maxLoad: 1 })), ["22.4.0→22.8.0?"], "neither undecided half shows the step");
    const again = fakeSweep(data);
    assert.deepEqual(stepsOf(await runSweep(PLAN, again.hooks, { maxLoad: 1 })), ["22.5.0→22.6.0"]);
    assert.deepEqual(again.runs, NARROWED, "each undecided half once, then the bisection it opens");
    const third = fakeSweep(data);
    await runSweep(PLAN, third.hooks, { maxLoad: 1 });
    assert.deepEqual(third.runs, [], "a half measured to its cap is not measured again");
  });

  it("measures again, to a higher cap (--trials), a half its cap left undecided, and no half a verdict decided", async () => {
    const data = tempDir("sweep-cap");
    const first = fakeSweep(data, { undecided: { pairs: HALVES, stopped: "max trials" } });
    await runSweep(PLAN, first.hooks, { maxLoad: 1 });
    const atTheSameCap = fakeSweep(data);
    assert.deepEqual(stepsOf(await runSweep(PLAN, atTheSameCap.hooks, { maxLoad: 1 })), ["22.4.0→22.8.0?"]);
    assert.deepEqual(atTheSameCap.runs, [], "undecided at its cap: the same cap would leave it so again");
    const higher = { ...PLAN, narrowingCap: () => 30 };
    const again = fakeSweep(data);
    assert.deepEqual(stepsOf(await runSweep(higher, again.hooks, { maxLoad: 1 })), ["22.5.0→22.6.0"]);
    assert.deepEqual(again.runs, NARROWED);
    const third = fakeSweep(data);
    await runSweep(higher, third.hooks, { maxLoad: 1 });
    assert.deepEqual(third.runs, [], "each half decided on 10 pairs: none measured again for the higher cap");
  });

  it("after its scenario's version changes, measures every link again and narrows with runs of the new version only", async () => {
    const data = tempDir("sweep-version");
    const first = fakeSweep(data);
    await runSweep(PLAN, first.hooks, { maxLoad: 1 });
    const later = fakeSweep(data, { scenarioVersion: 2 });
    const report = await runSweep({ ...PLAN, scenarioVersion: () => 2 }, later.hooks, { maxLoad: 1 });
    assert.deepEqual(later.runs, first.runs, "version 1's runs stand in for none of version 2's");
    assert.deepEqual(report.steps.map((s) => [s.step.rows[0]!.scenario_version, s.narrowed]), [[2, [{ from: "22.5.0", to: "22.6.0", adjacent: true, unmeasurable: [] }]]]);
    const again = fakeSweep(data, { scenarioVersion: 2 });
    assert.deepEqual([again.runs, (await runSweep({ ...PLAN, scenarioVersion: () => 2 }, again.hooks, { maxLoad: 1 })).skipped], [[], 2]);
  });

  it("leaves the regressions feed one confirmed step, at the release that brought it, with its notes, its commits and its paired comparison", async () => {
    const data = tempDir("sweep-feed");
    await runSweep(PLAN, fakeSweep(data).hooks, { maxLoad: 1 });
    const { changes } = detectRegressions(readIndexedDocuments(data));
    assert.deepEqual(changes.map((c) => [c.status, c.kind, c.from_version, c.to_version]), [["confirmed", "regression", "22.5.0", "22.6.0"]]);
    const [step] = changes;
    assert.ok(step!.ratio > 1.08 && step!.ratio < 1.12 && step!.ci95[0] > 1, `paired ratio ${step!.ratio} ${step!.ci95}`);
    assert.deepEqual(step!.release_notes, { changelog: "https://nodejs.org/en/blog/release/v22.6.0", compare: "https://github.com/nodejs/node/compare/v22.5.0...v22.6.0" });
    assert.match(step!.compare_command!, /^scripts\/bench compare \d{8}T\d{6}Z-[0-9a-f]{6} --base node-22\.5\.0 --head node-22\.6\.0$/);
  });

  it("narrows, within the half a bisection measured, a step the half shows on another cell that the link did not", async () => {
    const data = tempDir("sweep-half-step");
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.0.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(data, { secondCell: RETURNING_CELL });
    const report = await runSweep(plan, sweep.hooks, { maxLoad: 1 });
    const steps = report.steps.map((s) => [`${s.link.from}→${s.link.to}`, s.step.verdict, s.step.cells.join(","), narrowedText(s)]);
    assert.deepEqual(steps, [
      ["22.0.0→22.8.0", "slower", "- - wall_ms", "22.5.0→22.6.0"],
      ["22.0.0→22.4.0", "slower", "- size=2 wall_ms", "22.1.0→22.2.0"],
      ["22.4.0→22.8.0", "faster", "- size=2 wall_ms", "22.5.0→22.6.0"],
    ]);
    assert.equal(new Set(sweep.runs).size, sweep.runs.length, `no pair measured twice: ${sweep.runs.join(" ")}`);
    assert.deepEqual(sweep.runs, ["22.0.0→22.8.0", "22.0.0→22.4.0", "22.4.0→22.8.0", "22.4.0→22.6.0", "22.6.0→22.8.0", "22.4.0→22.5.0", "22.5.0→22.6.0", "22.0.0→22.2.0", "22.2.0→22.4.0", "22.0.0→22.1.0", "22.1.0→22.2.0"], "the second cell's way back needed no run of its own: its halves were measured");
    // The second cell's own narrowing runs measured its load point alone: the first cell's step was narrowed already.
    const held = RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort: false });
    const quarter = { runtime: "node" as const, from: "22.0.0", to: "22.2.0" };
    assert.deepEqual([held.measured(quarter, SCENARIO, undefined, ["- size=2"]), held.measured(quarter, SCENARIO, undefined, ["- -"])], [true, false]);
    const again = fakeSweep(data, { secondCell: RETURNING_CELL });
    await runSweep(plan, again.hooks, { maxLoad: 1 });
    assert.deepEqual(again.runs, [], "run again, it decides the same from data/ and measures nothing");
  });

  it("reports a link's step narrowed to its release, and the other step within the link as not narrowed yet, when a time limit or Ctrl-C stops the other's narrowing", async () => {
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.0.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    // Ctrl-C in the ninth run, 22.2.0 → 22.4.0: the half's own step is open, the link's is narrowed.
    const sweep = fakeSweep(tempDir("sweep-half-step-stopped"), { secondCell: RETURNING_CELL, interruptAt: 9 });
    const report = await runSweep(plan, sweep.hooks, { maxLoad: 1 });
    assert.equal(report.stopped, "interrupted");
    assert.deepEqual(report.steps.map((s) => [`${s.link.from}→${s.link.to}`, narrowedText(s)]), [["22.0.0→22.8.0", "22.5.0→22.6.0"], ["22.0.0→22.4.0", "open"]]);
    assert.match(reportText(report, []), /node +startup\/hello .* 22\.0\.0 → 22\.8\.0 +22\.5\.0 → 22\.6\.0 /);
    assert.match(reportText(report, []), /node +startup\/hello .* 22\.0\.0 → 22\.4\.0 +not narrowed yet: the sweep stopped first\n/);
  });

  it("narrows a step of an app beyond the sweep's selection with runs of that app", async () => {
    const data = tempDir("sweep-app-step");
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.0.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(data, { express: LEVEL });
    const report = await runSweep(plan, sweep.hooks, { maxLoad: 1 });
    const steps = report.steps.map((s) => [s.step.cells.join(","), narrowedText(s)]);
    assert.deepEqual(steps, [["express - wall_ms", "22.5.0→22.6.0"]]);
    assert.deepEqual(sweep.runs, ["22.0.0→22.8.0", "22.0.0→22.4.0", "22.4.0→22.8.0", "22.4.0→22.6.0", "22.6.0→22.8.0", "22.4.0→22.5.0", "22.5.0→22.6.0"]);
    const apps = RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort: false });
    assert.ok(apps.measured({ runtime: "node", from: "22.4.0", to: "22.6.0" }, SCENARIO, undefined, ["express -"]));
    assert.ok(!apps.measured({ runtime: "node", from: "22.4.0", to: "22.6.0" }, SCENARIO, undefined, ["native -"]), "a narrowing run measures its step's app only");
    const again = fakeSweep(data, { express: LEVEL });
    await runSweep(plan, again.hooks, { maxLoad: 1 });
    assert.deepEqual(again.runs, [], "run again, it measures nothing");
  });

  it("tells --plan, measuring nothing, the first runs of each step data/ holds that is not narrowed yet", async () => {
    const data = tempDir("sweep-owed");
    const owed = async () => (await nextRuns(PLAN, RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort: false }), () => ({ seconds: 1, maxSeconds: 1 }))).map((job) => `${job.purpose} ${job.link.from}→${job.link.to}`);
    assert.deepEqual(await owed(), ["chain 22.0.0→22.4.0", "chain 22.4.0→22.8.0"]);
    await runSweep({ ...PLAN, narrow: false }, fakeSweep(data).hooks, { maxLoad: 1 });
    assert.deepEqual(await owed(), ["narrowing 22.4.0→22.6.0", "narrowing 22.6.0→22.8.0"]);
    const refusing = await nextRuns(PLAN, RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort: false }), () => ({ seconds: 1, maxSeconds: 1 }), async (_runtime, version) => version !== "22.6.0");
    assert.deepEqual(refusing.map((job) => `${job.link.from}→${job.link.to}`), ["22.4.0→22.5.0", "22.5.0→22.8.0"], "a release that does not run here is split around, as the sweep does");
    await runSweep(PLAN, fakeSweep(data).hooks, { maxLoad: 1 });
    assert.deepEqual(await owed(), []);
  });

  it("narrows a link's step right after the link, so that a sweep its time limit stops leaves the step narrowed", async () => {
    const data = tempDir("sweep-narrow-first");
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.5.0", "22.7.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(data);
    const start = sweep.hooks.now();
    // Room for the first link and its two narrowing runs, not for the second link.
    const report = await runSweep(plan, sweep.hooks, { maxLoad: 1, deadline: start + 4 * 1_800_000 - 1 });
    assert.deepEqual(sweep.runs, ["22.5.0→22.7.0", "22.5.0→22.6.0", "22.6.0→22.7.0"]);
    assert.equal(report.stopped, "time limit");
    assert.deepEqual(report.steps.map((s) => s.narrowed), [[{ from: "22.5.0", to: "22.6.0", adjacent: true, unmeasurable: [] }]]);
  });

  it("leaves out of the narrowing a release whose binary does not run, and names it beside the step", async () => {
    const data = tempDir("sweep-narrow-refused");
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.4.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(data, { refused: ["22.6.0"] });
    const report = await runSweep(plan, sweep.hooks, { maxLoad: 1 });
    assert.ok(sweep.runs.every((pair) => !pair.includes("22.6.0")), sweep.runs.join(" "));
    assert.deepEqual(report.steps.map((s) => s.narrowed), [[{ from: "22.5.0", to: "22.7.0", adjacent: true, unmeasurable: ["22.6.0"] }]]);
  });

  it("stops at Ctrl-C, and measured again goes on with what is missing, measuring no link twice", async () => {
    const data = tempDir("sweep-interrupted");
    const interrupted = fakeSweep(data, { interruptAt: 2 });
    const report = await runSweep(PLAN, interrupted.hooks, { maxLoad: 1 });
    assert.deepEqual([report.stopped, report.measured, interrupted.runs], ["interrupted", 1, ["22.0.0→22.4.0"]]);
    const resumed = fakeSweep(data);
    const done = await runSweep(PLAN, resumed.hooks, { maxLoad: 1 });
    assert.equal(resumed.runs[0], "22.4.0→22.8.0", "the interrupted link first, and the measured one not again");
    assert.ok(!resumed.runs.includes("22.0.0→22.4.0"));
    assert.equal(done.skipped, 1);
    assert.deepEqual(done.steps[0]!.narrowed, [{ from: "22.5.0", to: "22.6.0", adjacent: true, unmeasurable: [] }]);
  });

  it("stops after a run the time limit cut short, names it, takes no pace from it, and measures it again when run again", async () => {
    const data = tempDir("sweep-cut-short-run");
    const kept: TimedRun[] = [];
    const cut = fakeSweep(data, { cutShortAt: 1, kept });
    const report = await runSweep(PLAN, cut.hooks, { maxLoad: 1 });
    assert.deepEqual([report.stopped, report.measured, report.cutShort, report.steps], ["time limit", 1, ["node 22.0.0 → 22.4.0 on startup/hello"], []]);
    assert.deepEqual(kept, [], "a run the limit ended sets no pace");
    assert.match(reportText(report, []), /cut short by the time limit .*: node 22\.0\.0 → 22\.4\.0 on startup\/hello\n.*what was cut short is/);
    const resumed = fakeSweep(data, { kept });
    const again = await runSweep(PLAN, resumed.hooks, { maxLoad: 1 });
    assert.deepEqual([resumed.runs[0], again.cutShort], ["22.0.0→22.4.0", []]);
  });

  it("waits, saying why, while the load is too high, and stops at the time limit before a run that would not fit with all its looks", async () => {
    const data = tempDir("sweep-limits");
    const busy = fakeSweep(data, { loads: [3, 3, 3, 0.2] });
    const start = busy.hooks.now();
    const report = await runSweep(PLAN, busy.hooks, { maxLoad: 1, deadline: start + 3 * 1000 + 1_800_000 + 900_000 });
    assert.match(busy.log.find((line) => line.includes("waiting")) ?? "", /waiting: the load average is 3\.00, not below 1 \(--max-load\): something else is running/);
    assert.deepEqual([report.stopped, busy.runs], ["time limit", ["22.0.0→22.4.0"]]);
    assert.ok(busy.log.some((line) => /time limit: node 22\.4\.0 → 22\.8\.0 may take up to 30 min 00 s with all its looks/.test(line)), busy.log.join("\n"));
  });

  it("stops at once, without waiting for the load to fall, when the next run could not fit in the time left", async () => {
    const busy = fakeSweep(tempDir("sweep-no-wait"), { loads: [3, 3, 3, 3, 3] });
    const start = busy.hooks.now();
    const report = await runSweep(PLAN, busy.hooks, { maxLoad: 1, deadline: start + 1_200_000 });
    assert.deepEqual([report.stopped, busy.runs, busy.hooks.now() - start], ["time limit", [], 0]);
    assert.ok(!busy.log.some((line) => line.includes("waiting")), busy.log.join("\n"));
  });

  it("stops the wait for a quiet machine as soon as the next run no longer fits, not at the deadline", async () => {
    // 32 min left for a 30-min link, and a load that stays high for 5 min: the wait ends after 2.
    const busy = fakeSweep(tempDir("sweep-wait-overrun"), { loads: Array.from({ length: 300 }, () => 3) });
    const start = busy.hooks.now();
    const report = await runSweep(PLAN, busy.hooks, { maxLoad: 1, deadline: start + 1_800_000 + 120_000 });
    assert.deepEqual([report.stopped, busy.runs], ["time limit", []]);
    const waited = busy.hooks.now() - start;
    assert.ok(waited > 119_000 && waited <= 121_000, `waited ${waited} ms`);
    assert.ok(busy.log.some((line) => line.includes("waiting")), busy.log.join("\n"));
    assert.ok(busy.log.some((line) => /time limit: node 22\.0\.0 → 22\.4\.0 may take up to 30 min 00 s with all its looks, and 29 min 59 s is left/.test(line)), busy.log.join("\n"));
  });

  it("prices a link at the pace of the links before it, not of the narrowing runs, which miss their estimates by another factor", async () => {
    const data = tempDir("sweep-pace");
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.5.0", "22.7.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(data, { narrowingShare: 0.5 });
    const start = sweep.hooks.now();
    // The first link (30 min) and its two narrowing runs (15 min each), then 21 min: the second link, at its own
    // kind's pace (1), needs 30; at the pace of every run so far (60 of 90 min estimated) it would have been given 20.
    const report = await runSweep(plan, sweep.hooks, { maxLoad: 1, deadline: start + 3_600_000 + 1_260_000 });
    assert.deepEqual([report.stopped, sweep.runs], ["time limit", ["22.5.0→22.7.0", "22.5.0→22.6.0", "22.6.0→22.7.0"]]);
    assert.ok(sweep.log.some((line) => /time limit: node 22\.7\.0 → 22\.8\.0 may take up to 30 min 00 s with all its looks/.test(line)), sweep.log.join("\n"));
    assert.ok(sweep.log.some((line) => /narrowing .*× 1\.00, no narrowing run of node on startup\/hello measured yet: the estimate's own pace\)/.test(line)), "the first narrowing run at pace 1");
    assert.ok(sweep.log.some((line) => /× 0\.50, the pace of the latest narrowing run of node on startup\/hello\)/.test(line)), "the second at the first's");
  });

  it("starts at the pace of the latest links of earlier sweeps, so that a sweep run again in chunks takes a link that fits", async () => {
    const data = tempDir("sweep-pace-kept");
    const kept: TimedRun[] = [];
    const plan: SweepPlan = { ...PLAN, narrow: false };
    const first = fakeSweep(data, { chainShare: 0.5, kept });
    await runSweep({ ...plan, chains: [{ links: chainLinks("node", ["22.0.0", "22.4.0"]), scenarios: [SCENARIO] }] }, first.hooks, { maxLoad: 1 });
    assert.deepEqual([first.runs, kept], [["22.0.0→22.4.0"], [{ purpose: "chain", subject: "node", measured: 900, estimated: 1800 }]]);
    // 20 min: too little for a link at its estimate, enough at the pace the first sweep kept.
    const second = fakeSweep(data, { chainShare: 0.5, kept });
    const report = await runSweep(plan, second.hooks, { maxLoad: 1, deadline: second.hooks.now() + 1_200_000 });
    assert.deepEqual([report.stopped, second.runs], [null, ["22.4.0→22.8.0"]]);
    assert.ok(second.log.some((line) => /up to 15 min 00 s; .*× 0\.50, the pace of the latest link of node\)/.test(line)), second.log.join("\n"));
    const fresh = fakeSweep(tempDir("sweep-pace-none"), { chainShare: 0.5 });
    const refused = await runSweep(plan, fresh.hooks, { maxLoad: 1, deadline: fresh.hooks.now() + 1_200_000 });
    assert.deepEqual([refused.stopped, fresh.runs], ["time limit", []], "without earlier runs, the estimate's own pace");
  });

  it("reads back the runs it kept, and says in one line when the file holds anything else, starting at the estimates' own pace", () => {
    const saved = process.env.RUNTIME_BENCH_CACHE;
    process.env.RUNTIME_BENCH_CACHE = tempDir("sweep-pace-cache");
    try {
      const data = tempDir("sweep-pace-file");
      const lines: string[] = [];
      assert.deepEqual(earlierRuns(data, (line) => lines.push(line)), [], "none before the first sweep");
      const runs: TimedRun[] = [{ purpose: "chain", subject: "deno", measured: 1500, estimated: 1800 }, { purpose: "narrowing", subject: "deno workers/throughput", measured: 60, estimated: 100 }];
      keepRuns(data, runs);
      assert.deepEqual(earlierRuns(data, (line) => lines.push(line)), runs);
      // A run of a sweep before subjects were kept: its runtime is unknown, so it prices nothing and is left out.
      writeFileSync(sweepPaceFile(data), JSON.stringify([{ purpose: "narrowing", measured: 1300, estimated: 290 }, ...runs]));
      assert.deepEqual(earlierRuns(data, (line) => lines.push(line)), runs);
      assert.equal(lines.length, 0);
      for (const forged of ["{", '[{"purpose":"chain","measured":1e999,"estimated":1}]', '[{"purpose":"rm -rf","measured":1,"estimated":1}]', '[{"purpose":"chain","subject":7,"measured":1,"estimated":1}]']) {
        writeFileSync(sweepPaceFile(data), forged);
        assert.deepEqual(earlierRuns(data, (line) => lines.push(line)), [], forged);
      }
      assert.equal(lines.length, 4);
      assert.match(lines[0]!, /^sweep: .*\.pace\.json does not hold the times of earlier runs; starting at the estimates' own pace/);
    } finally {
      if (saved === undefined) delete process.env.RUNTIME_BENCH_CACHE;
      else process.env.RUNTIME_BENCH_CACHE = saved;
    }
  });

  it("keeps the latest five runs of each kind, so that a new host's pace replaces the old one's within five links", async () => {
    const data = tempDir("sweep-pace-latest");
    // Seven links of an earlier sweep at twice their estimate; this one's take half of theirs.
    const kept: TimedRun[] = Array.from({ length: 7 }, () => ({ purpose: "chain" as const, subject: "node", measured: 3600, estimated: 1800 }));
    const plan: SweepPlan = { ...PLAN, narrow: false, chains: [{ links: chainLinks("node", RELEASES.slice(0, 7).map((r) => r.version)), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(data, { chainShare: 0.5, kept });
    await runSweep(plan, sweep.hooks, { maxLoad: 1 });
    const paces = sweep.log.filter((line) => line.includes("up to")).map((line) => /× (\d\.\d\d)/.exec(line)![1]);
    assert.deepEqual(paces, ["2.00", "2.00", "2.00", "2.00", "2.00", "0.50"], "the slowest of the five, until the new host's five replace them");
    assert.deepEqual(kept.map((run) => [run.subject, run.measured]), Array.from({ length: 5 }, () => ["node", 900]));
  });

  it("prices a narrowing run at its runtime's runs of that scenario, before one at its runtime's of any, never at another runtime's; and keeps five of each", async () => {
    const data = tempDir("sweep-pace-subject");
    // Five narrowing runs of another runtime at a fifth of their estimate, one of node on another suite's scenario at
    // half of its own; then node's of startup/hello take three times theirs.
    const bun = Array.from({ length: 5 }, () => ({ purpose: "narrowing" as const, subject: "bun startup/hello", measured: 360, estimated: 1800 }));
    const kept: TimedRun[] = [...bun, { purpose: "narrowing", subject: "node http/json", measured: 900, estimated: 1800 }, { purpose: "chain", subject: "node", measured: 1800, estimated: 1800 }];
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.4.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(data, { narrowingShare: 3, kept });
    await runSweep(plan, sweep.hooks, { maxLoad: 1 });
    const narrowing = sweep.log.filter((line) => line.includes("up to") && line.includes("narrowing"));
    assert.equal(narrowing.length, 4, sweep.log.join("\n"));
    assert.match(narrowing[0]!, /up to 15 min 00 s; .*× 0\.50, no narrowing run of node on startup\/hello measured yet: the pace of the latest narrowing run of node\)/);
    assert.match(narrowing[1]!, /up to 1 h 30 min; .*× 3\.00, the pace of the latest narrowing run of node on startup\/hello\)/);
    assert.match(narrowing[3]!, /× 3\.00, the slowest pace of the latest 3 narrowing runs of node on startup\/hello\)/);
    assert.deepEqual(
      kept.map((run) => run.subject),
      [...bun.map(() => "bun startup/hello"), "node http/json", "node", "node", ...Array.from({ length: 4 }, () => "node startup/hello")],
      "bun's five narrowing runs kept beside node's: each subject keeps its latest five",
    );
  });

  it("prices a narrowing run of a scenario not yet narrowed at its runtime's runs on the same suite before those on another", async () => {
    // node's latest narrowing runs, of http/json, took three times their estimate; one of startup/typescript half of its own.
    const http = Array.from({ length: 5 }, () => ({ purpose: "narrowing" as const, subject: "node http/json", measured: 5400, estimated: 1800 }));
    const kept: TimedRun[] = [{ purpose: "narrowing", subject: "node startup/typescript", measured: 900, estimated: 1800 }, ...http];
    const plan: SweepPlan = { ...PLAN, chains: [{ links: chainLinks("node", ["22.4.0", "22.8.0"]), scenarios: [SCENARIO] }] };
    const sweep = fakeSweep(tempDir("sweep-pace-suite"), { kept });
    await runSweep(plan, sweep.hooks, { maxLoad: 1 });
    const first = sweep.log.find((line) => line.includes("up to") && line.includes("narrowing"));
    assert.match(first ?? "", /× 0\.50, no narrowing run of node on startup\/hello measured yet: the pace of the latest narrowing run of node on the startup suite\)/, sweep.log.join("\n"));
  });

  it("gives the pace a link is priced at to `--plan` too: its runtime's latest links, 1 before any", () => {
    const kept: TimedRun[] = [
      ...Array.from({ length: 6 }, (_, i) => ({ purpose: "chain" as const, subject: "node", measured: i === 0 ? 9000 : 900, estimated: 1800 })),
      { purpose: "narrowing", subject: "node startup/hello", measured: 3600, estimated: 1800 },
    ];
    const link = (runtime: "node" | "deno") => ({ link: { runtime, from: "1.0.0", to: "1.1.0" }, scenarios: [SCENARIO], apps: [], params: {}, purpose: "chain" as const });
    assert.deepEqual(paceOf(kept, link("node")), { factor: 0.5, text: "the slowest pace of the latest 5 links of node" });
    assert.deepEqual(paceOf(kept, link("deno")), { factor: 1, text: "no link of deno measured yet: the estimate's own pace" });
  });

  it("gives `--plan`'s owed narrowing runs their time at the sweep's pace beside the time at the cap, and the sum of each", () => {
    const kept: TimedRun[] = [1060, 1130].map((measured) => ({ purpose: "narrowing" as const, subject: "deno workers/throughput", measured, estimated: 200 }));
    const owed = (runtime: "deno" | "bun"): Required<SweepJob> => ({ link: { runtime, from: "2.0.4", to: "2.1.0" }, scenarios: ["workers/throughput"], apps: ["worker-threads"], params: {}, purpose: "narrowing" });
    const [header, table] = owedText([owed("deno"), owed("bun")], () => ({ seconds: 100, maxSeconds: 600 }), kept);
    assert.match(header!, /these 2 runs first \(20 min 00 s at the cap, 1 h 7 min at the sweep's pace\)/);
    assert.match(table!, /deno 2\.0\.4 → 2\.1\.0 .* 10 min 00 s +56 min 30 s\n/, "deno's at 5.65 times, the slowest of its own");
    assert.match(table!, /bun 2\.0\.4 → 2\.1\.0 .* 10 min 00 s +10 min 00 s$/, "bun's at its estimate: no run of bun measured yet");
    assert.deepEqual(owedText([], () => ({ seconds: 0, maxSeconds: 0 }), kept), ["No step in data/ waits for narrowing: every confirmed step of a link measured is narrowed as far as it goes."]);
  });

  it("prices a run at the slowest of the latest runs of its kind, so that runs whose cells decided early do not price one at the cap below what it takes", () => {
    // As Deno's narrowing runs of workers/throughput in chunk 71: 23 min when every cell went to its cap, 12.5 when the 1 MiB cells decided at 6 pairs.
    const kept: TimedRun[] = [1380, 750, 1380, 750, 1380].map((measured) => ({ purpose: "narrowing" as const, subject: "deno workers/throughput", measured, estimated: 300 }));
    const job: Required<SweepJob> = { link: { runtime: "deno", from: "2.1.14", to: "2.2.0" }, scenarios: ["workers/throughput"], apps: [], params: {}, purpose: "narrowing" };
    assert.deepEqual(paceOf(kept, job), { factor: 4.6, text: "the slowest pace of the latest 5 narrowing runs of deno on workers/throughput" });
  });

  it("plans only the scenarios of a link that data/ lacks", async () => {
    const data = tempDir("sweep-pending");
    for (const doc of linkRun({ machine: TESTBED_AMD, index: 1, from: "22.0.0", to: "22.4.0", level: LEVEL })) await writeResult(data, doc);
    const chains = [{ links: chainLinks("node", ["22.0.0", "22.4.0", "22.8.0"]), scenarios: [SCENARIO, "startup/typescript"] }];
    const coverage = RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort: false });
    const pending = pendingJobs(chains, coverage, () => 1);
    assert.deepEqual(pending.map((job: Required<SweepJob>) => [job.link.from, job.scenarios]), [
      ["22.0.0", ["startup/typescript"]],
      ["22.4.0", [SCENARIO, "startup/typescript"]],
    ]);
    // At another version of hello, its run of the first link measured something else.
    const later = pendingJobs(chains, coverage, (scenario) => (scenario === SCENARIO ? 2 : 1));
    assert.deepEqual(later[0]!.scenarios, [SCENARIO, "startup/typescript"]);
  });

  it("measures again a link whose run stopped a cell for budget, unless the sweep caps the trials itself", async () => {
    const data = tempDir("sweep-cut-short");
    const [from, to] = linkRun({ machine: TESTBED_AMD, index: 1, from: "22.0.0", to: "22.4.0", level: LEVEL });
    // Bun's first chain: each run given a share of a time limit, so each cell stopped at its first look.
    await writeResult(data, from!);
    await writeResult(data, { ...to!, sequential: { looks: [3, 7, 10], alpha: 0.0008, stopped: "budget" } });
    const chains = [{ links: chainLinks("node", ["22.0.0", "22.4.0"]), scenarios: [SCENARIO] }];
    const pending = (acceptCutShort: boolean) => pendingJobs(chains, RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort }), () => 1);
    assert.deepEqual(pending(false).map((job: Required<SweepJob>) => [job.link.from, job.scenarios]), [["22.0.0", [SCENARIO]]]);
    assert.deepEqual(pending(true), []);
  });

  it("measures again a link whose run started before --again-before, and counts the newer run", async () => {
    const data = tempDir("sweep-again");
    // linkRun's run 1 starts on 2026-01-02, run 3 on 2026-01-04.
    for (const doc of linkRun({ machine: TESTBED_AMD, index: 1, from: "22.0.0", to: "22.4.0", level: LEVEL })) await writeResult(data, doc);
    const chains = [{ links: chainLinks("node", ["22.0.0", "22.4.0"]), scenarios: [SCENARIO] }];
    const pending = (countedFrom?: Date) => pendingJobs(chains, RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort: false, ...(countedFrom ? { countedFrom } : {}) }), () => 1);
    const fix = new Date("2026-01-03T00:00Z");
    assert.deepEqual(pending(), []);
    assert.deepEqual(pending(fix).map((job: Required<SweepJob>) => [job.link.from, job.scenarios]), [["22.0.0", [SCENARIO]]]);
    for (const doc of linkRun({ machine: TESTBED_AMD, index: 3, from: "22.0.0", to: "22.4.0", level: LEVEL })) await writeResult(data, doc);
    assert.deepEqual(pending(fix), []);
    const counted = RunnerCoverage.read(data, TESTBED_AMD.runner, { acceptCutShort: false, countedFrom: fix }).pairRuns(chains[0]!.links[0]!, SCENARIO);
    assert.deepEqual(counted.map((run) => run.from[0]?.run.started_at), ["2026-01-04T00:00:00.000Z"]);
  });
});

describe("the sweep's report", () => {
  it("names a release the selection left out where it lies between a step's two releases", () => {
    const row = { metric: "wall_ms", unit: "ms", better: "lower", ratio: 0.607 } as CompareRow;
    const step = { scenario: "fileio/read-many", verdict: "faster" as const, cells: [], rows: [row] };
    const report = { measured: 0, skipped: 17, stopped: null, cutShort: [], steps: [{ link: { runtime: "deno" as const, from: "2.2.0", to: "2.3.1" }, step, narrowed: [{ from: "2.2.15", to: "2.3.1", adjacent: true, unmeasurable: [] }] }] };
    const text = reportText(report, [{ runtime: "deno", version: "2.3.0" }, { runtime: "bun", version: "1.2.13" }, { runtime: "deno", version: "2.4.1" }]);
    assert.match(text, /2\.2\.15 → 2\.3\.1 \(2\.3\.0 between cannot be measured here\)/);
    assert.doesNotMatch(text, /1\.2\.13|2\.4\.1/, "only the runtime's releases between the two");
    assert.match(reportText(report, []), /2\.2\.15 → 2\.3\.1 +https:/, "nothing named where none was left out");
  });

  it("shows a step by its largest cell, and how many cells it has", () => {
    const rows = [0.97, 0.62, 0.9].map((ratio) => ({ metric: "wall_ms", unit: "ms", better: "lower", ratio }) as CompareRow);
    const step = { scenario: "fileio/read-many", verdict: "faster" as const, cells: [], rows };
    const report = { measured: 1, skipped: 0, stopped: null, cutShort: [], steps: [{ link: { runtime: "deno" as const, from: "2.2.0", to: "2.3.1" }, step, narrowed: [{ from: "2.2.15", to: "2.3.1", adjacent: true, unmeasurable: [] }] }] };
    assert.match(reportText(report, []), /wall_ms faster ×0\.620 \(the largest of 3 cells\)/);
    assert.match(reportText({ ...report, steps: [{ ...report.steps[0]!, step: { ...step, rows: [rows[0]!] } }] }, []), /wall_ms faster ×0\.970 +2\.2\.0/, "one cell, no count");
    const memory = { ...report.steps[0]!, step: { ...step, rows: [{ metric: "peak_rss_mb", unit: "MB", better: "lower", ratio: 0.8 } as CompareRow] } };
    assert.match(reportText({ ...report, steps: [memory] }, []), /peak_rss_mb lower \(better\) ×0\.800/, "a memory is not faster");
  });
});

describe("what data/ holds of a side-by-side run", () => {
  const result = (name: "node" | "deno", version: string, id: string, scenarioVersion = 1) =>
    makeResult({ run: { id, started_at: "2026-11-01T00:00:00.000Z" }, scenario_version: scenarioVersion, runtime: { name, version, spec: `${name}@${version}` } });
  const releases = [
    { runtime: "node", version: "26.12.1" },
    { runtime: "deno", version: "2.9.6" },
  ] as const;

  it("is a run that measured every release of the scenario together, at its version", () => {
    const apart = new RunnerCoverage([result("node", "26.12.1", "20261101T000000Z-aaaaaa"), result("deno", "2.9.6", "20261101T000000Z-bbbbbb")], { acceptCutShort: false });
    assert.equal(apart.together(releases, SCENARIO, 1), false, "each release measured, but in runs of their own");
    const together = new RunnerCoverage([result("node", "26.12.1", "20261101T000000Z-cccccc"), result("deno", "2.9.6", "20261101T000000Z-cccccc")], { acceptCutShort: false });
    assert.equal(together.together(releases, SCENARIO, 1), true);
    assert.equal(together.together(releases, SCENARIO, 2), false, "another version of the scenario");
    assert.equal(together.together([releases[0], { runtime: "deno", version: "2.9.5" }], SCENARIO, 1), false, "another release");
  });
});

describe("a sweep's stage", () => {
  it("refuses, naming the file, a staged job it did not write, before collecting anything", async () => {
    const work = tempDir("stage-forged");
    mkdirSync(join(work, "jobs"));
    for (const [name, text] of [["broken", "{"], ["forged", '{"runner": 1}']] as const) {
      writeFileSync(join(work, "jobs", `${name}.json`), text);
      await assert.rejects(collectStaged(work, tempDir("stage-data"), { runners: [], declared: new Map() }), (error: Error) => error instanceof UserError && new RegExp(`${name}\\.json`).test(error.message));
      rmSync(join(work, "jobs", `${name}.json`));
    }
  });
});

describe("scripts/bench sweep, given bad input", () => {
  const refused = async (args: string[], message: RegExp) => {
    const out = await bench(["sweep", ...args]);
    assert.equal(out.code, 2, out.stderr);
    assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
    assert.match(out.stderr, message);
  };

  it("says in one line what is wrong, before asking the registry anything", async () => {
    await refused(["--runtime", "bun"], /^runtime-bench: sweep: bun: give a window \(--since DATE or --from bun@VERSION\) or name its releases/);
    await refused(["--runtime", "node@22", "--plan"], /--runtime 'node@22': give a runtime \(node\) or an exact release \(node@22\.11\.0\)/);
    await refused(["--runtime", "node", "--runtime", "node@22.1.0"], /give the window or the releases, not both/);
    await refused(["--from", "node@20.0.0", "--runtime", "node", "--every", "weekly"], /^runtime-bench: sweep: --every 'weekly': use major, minor or patch\n$/);
    await refused(["--runtime", "node@22.10.0", "--runtime", "node@22.11.0", "--profile", "smoke"], /a link's paired verdict needs two/);
    await refused(["--runtime", "node@22.10.0", "--runtime", "node@22.11.0", "--testbed", "nope"], /unknown reference testbed 'nope'/);
    await refused(["--runtime", "node@22.10.0", "--runtime", "node@22.11.0", "--again-before", "yesterday"], /--again-before 'yesterday': expected a date or a time in UTC/);
    await refused(["--runtime", "node@22.10.0", "--runtime", "node@22.11.0", "--again-before", "2999-01-01"], /--again-before '2999-01-01' is later than now/);
    await refused(["--side-by-side", "--every", "minor"], /--side-by-side measures each runtime's newest release once, with no chain to sample \(--every\)/);
    await refused(["--side-by-side", "--plan", "--runtime", "node@22.10.0", "--runtime", "node@22.11.0"], /--side-by-side: name one release of node, not 2/);
  });
});
