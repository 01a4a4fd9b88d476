/**
 * Does the harness measure what oha measures? For the native app on each runtime, interleaved
 * rounds (runtimes rotated each round): one harness trial (the HTTP runner's own trial(), exactly
 * as `scripts/bench run` calls it) and oha run by hand against a fresh server of the same app on
 * the same pinned CPUs, the two in alternating order so that drift of the machine favours neither.
 * Prints, per runtime, harness rps / hand rps as the geometric mean of the per-round ratios with
 * its 95 % interval (should be ≥ 0.95; pairing within a round cancels the slow drift of a shared
 * machine, not each run's own noise, hence the interval) and the spread (max/min) of the
 * harness's rps over 5 interleaved trials: for each consecutive block of 5 rounds, its median and
 * range over the blocks.
 *
 *   scripts/benchmark http-overhead [--runtime SPEC]... [--rounds N] [--seconds N]
 *
 * Writes its figures into the entry "http-overhead" of docs/measurements.json, with when, where and
 * the load, and regenerates the documents made from it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { prepareRuntimes } from "../src/runtimes/prepare.ts";
import { entryFile, loadApps } from "../src/apps/manifest.ts";
import { rotate } from "../src/orchestrate/order.ts";
import { installInterruptHandling, runCommand } from "../src/process/children.ts";
import { runtimeEnv, scriptArgv } from "../src/runtimes/command.ts";
import { selectScenarios } from "../src/scenarios/select.ts";
import { formatPairedRatio, formatRoundRatios, pairedRatio } from "../src/stats/paired.ts";
import { median } from "../src/stats/summary.ts";
import { httpSuite, type HttpConfig, type HttpProfile } from "../src/suites/http/index.ts";
import { resolveScenarios } from "../src/suites/resolve.ts";
import type { Subject, SuiteScenario } from "../src/suites/suite.ts";
import { machineAssignment, pinned } from "../src/tools/cpu-split.ts";
import { RunningServer } from "../src/tools/server.ts";
import { loadNow, pairedRow, recordMeasurement, thisMachine } from "./lib/measurements.ts";
import { formatTable } from "../src/ui/table.ts";

const { values } = parseArgs({ options: { runtime: { type: "string", multiple: true }, rounds: { type: "string" }, seconds: { type: "string" } } });
const specs = values.runtime ?? ["node@22.11.0", "bun@1.2.0", "deno@2.1.4"];
const TRIALS = Number(values.rounds ?? 5);
const startLoad = loadNow();
const seconds = Number(values.seconds ?? 3);

installInterruptHandling();
const runtimes = await prepareRuntimes(specs, (line) => process.stderr.write(`${line}\n`));
const [selected] = resolveScenarios(selectScenarios({ suites: ["http"], scenarios: ["json"] }), "full");
const SPREAD_TRIALS = 5;
const profile: HttpProfile = { trials: TRIALS, warmup_s: 1, duration_s: seconds, connections: [10], keepalive: [true], rate: 1000, rate_duration_s: 1 };
// The registry erases a suite's types; this benchmark knows it drives the HTTP suite.
const scenario = { ...selected!.scenario, profileParams: profile } as SuiteScenario<HttpConfig, HttpProfile>;
const workDir = await mkdtemp(join(tmpdir(), "http-overhead-"));
const session = httpSuite.start({ profile: "full", workDir, log: (line) => process.stderr.write(`${line}\n`), options: { apps: ["native"] } });
const assignment = machineAssignment();
const split = assignment.separated ? assignment.sets : undefined;
const native = loadApps("http").find((app) => app.name === "native")!;

/** The command a person would type: oha's documented flags, its JSON read for requestsPerSec. */
function handOha(url: string, durationS: number): string[] {
  return [...pinned(split?.client), "oha", "--no-tui", "--output-format", "json", "-z", `${durationS}s`, "-c", "10",
    "--worker-threads", String(split?.client.length ?? 1), "-H", "Accept-Encoding: identity", url];
}

async function byHand(subject: Subject): Promise<number> {
  const entry = entryFile(native, subject.runtime.identity.name);
  const server = await RunningServer.start({
    argv: [...pinned(split?.server), ...scriptArgv(subject.runtime, subject.flags, entry)],
    cwd: native.dir,
    env: runtimeEnv(subject.runtime, workDir),
    readyTimeoutMs: 30_000,
  });
  try {
    const run = async (durationS: number) => {
      const [command, ...args] = handOha(`${server.url}/json`, durationS);
      const result = await runCommand(command!, args, { timeoutMs: (durationS + 60) * 1000 });
      if (result.code !== 0) throw new Error(`oha by hand failed: ${result.stderr}`);
      return (JSON.parse(result.stdout) as { summary: { requestsPerSec: number } }).summary.requestsPerSec;
    };
    await run(profile.warmup_s); // the same warm-up under load the harness gives
    return await run(seconds);
  } finally {
    await server.stop();
  }
}

/** max/min of each consecutive block of `size` trials (a partial last block is left out). */
function blockSpreads(values: readonly number[], size: number): number[] {
  const spreads: number[] = [];
  for (let start = 0; start + size <= values.length; start += size) {
    const block = values.slice(start, start + size);
    spreads.push(Math.max(...block) / Math.min(...block));
  }
  return spreads;
}

try {
  const subjects = runtimes.map((runtime) => session.subjects(scenario, runtime)[0]!);
  for (const subject of subjects) {
    const checked = await session.check(subject);
    if (checked.status !== "ok") throw new Error(`${subject.runtime.identity.name}: ${checked.error}`);
  }
  const harness = new Map<Subject, number[]>(subjects.map((s) => [s, []]));
  const hand = new Map<Subject, number[]>(subjects.map((s) => [s, []]));
  for (let trial = 0; trial < TRIALS; trial++) {
    for (const subject of rotate(subjects, trial)) {
      process.stderr.write(`round ${trial + 1}/${TRIALS} ${subject.runtime.identity.name}\n`);
      const viaHarness = async () => harness.get(subject)!.push((await session.trial(subject, trial)).samples.rps![0]!);
      const viaHand = async () => hand.get(subject)!.push(await byHand(subject));
      for (const measure of trial % 2 === 0 ? [viaHarness, viaHand] : [viaHand, viaHarness]) await measure();
    }
  }
  const spreadCell = (spreads: number[]) =>
    spreads.length === 0 ? `needs ${SPREAD_TRIALS} rounds` : `${median(spreads).toFixed(3)} (${Math.min(...spreads).toFixed(3)}–${Math.max(...spreads).toFixed(3)}, ${spreads.length} blocks)`;
  const rows = subjects.map((subject) => {
    const ours = harness.get(subject)!;
    const theirs = hand.get(subject)!;
    const paired = pairedRatio(ours, theirs);
    return [
      `${subject.runtime.identity.name}@${subject.runtime.identity.version}`,
      median(ours).toFixed(0),
      median(theirs).toFixed(0),
      formatPairedRatio(paired),
      formatRoundRatios(paired),
      spreadCell(blockSpreads(ours, SPREAD_TRIALS)),
      ours.map((v) => v.toFixed(0)).join(" "),
      theirs.map((v) => v.toFixed(0)).join(" "),
    ];
  });
  process.stdout.write(
    `http overhead: native /json, ${TRIALS} interleaved rounds, ${seconds} s each, 10 connections, ` +
      `server on CPU ${split?.server.join(",") ?? "any"}, oha on CPU ${split?.client.join(",") ?? "any"}, ${new Date().toISOString().slice(0, 10)}\n\n`,
  );
  process.stdout.write(`${formatTable(["runtime", "harness rps (median)", "hand rps (median)", "harness/hand (95 % interval)", "median ratio (range)", `harness spread max/min over ${SPREAD_TRIALS} trials: median (range over blocks)`, "harness rps per round", "hand rps per round"], rows)}\n`);
  recordMeasurement("http-overhead", (entry) => ({
    ...entry!,
    ...thisMachine(startLoad),
    benchmark: `scripts/benchmark http-overhead --rounds ${TRIALS} --seconds ${seconds}`,
    rows: subjects.map((subject) => ({
      ...pairedRow(`${subject.runtime.identity.name}@${subject.runtime.identity.version}`, harness.get(subject)!, hand.get(subject)!, 0),
      spread: spreadCell(blockSpreads(harness.get(subject)!, SPREAD_TRIALS)),
    })),
    notes: [
      `\`native\` \`/json\`, 10 connections, keep-alive, server on CPU ${split?.server.join(",") ?? "any"} and oha on CPU ${split?.client.join(",") ?? "any"}; per round one harness trial (the runner's own \`trial()\`) and oha by hand against a fresh server, ${seconds} s each after a 1 s warm-up under load; ${TRIALS} rounds.`,
    ],
  }));
} finally {
  await rm(workDir, { recursive: true, force: true });
}
process.exit(0);
