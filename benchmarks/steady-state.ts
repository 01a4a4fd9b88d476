/**
 * Does the harness measure a server at its steady speed? For http/json on the native app, per
 * runtime, interleaved rounds (runtimes rotated each round): one harness trial in the quick
 * profile and one in the full (each the HTTP suite's own trial(), exactly as `scripts/bench run`
 * calls it: a fresh server, warmed up until steady, then measured), and oha by hand against a
 * fresh server of the same app on the same CPUs, warmed up for a fixed 10 s, then measured, at
 * each profile's connection count. The hand figure is the steady state; harness / hand per
 * profile, as the geometric mean of the per-round ratios with its 95 % interval, says how close
 * the harness comes to it (the aim: within 10 %). The harness trials' warm-up figures (seconds
 * and requests to 90 % of the steady level, the first second's throughput) and the server's
 * threads are printed beside them.
 *
 *   scripts/benchmark steady-state [--runtime SPEC]... [--rounds N] [--unpinned] [--default-run DIR]
 *
 * `--unpinned` measures everything with CPU sets off (RUNTIME_BENCH_CPU_SETS=off): how far a
 * server pinned to one CPU, sharing it with its own GC and JIT threads, is from one the scheduler
 * places. `--default-run DIR` reads that run's http/json native results and holds its bun/node
 * ratio against the hand figures of this machine. Writes the entry "steady-state" of
 * docs/measurements.json (its pinned or unpinned rows), with when, where and the load.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { entryFile, loadApps } from "../src/apps/manifest.ts";
import type { Figure } from "../src/core/measurements.ts";
import { rotate } from "../src/orchestrate/order.ts";
import { installInterruptHandling, runCommand } from "../src/process/children.ts";
import { readDocuments } from "../src/results/store.ts";
import type { SuiteProfile } from "../src/results/types.ts";
import { runtimeEnv, scriptArgv } from "../src/runtimes/command.ts";
import { DEFAULT_RUNTIMES, prepareRuntimes } from "../src/runtimes/prepare.ts";
import { selectScenarios } from "../src/scenarios/select.ts";
import { median } from "../src/stats/summary.ts";
import { httpSuite, type HttpConfig, type HttpProfile } from "../src/suites/http/index.ts";
import { resolveScenarios } from "../src/suites/resolve.ts";
import type { Subject, SuiteScenario } from "../src/suites/suite.ts";
import { CPU_SETS_VARIABLE, machineAssignment, pinned } from "../src/tools/cpu-split.ts";
import { RunningServer } from "../src/tools/server.ts";
import { formatTable } from "../src/ui/table.ts";
import { loadNow, MEASURED_AT_COLUMN, measuredAt, pairedRow, recordMeasurement, thisMachine } from "./lib/measurements.ts";

const { values } = parseArgs({
  options: { runtime: { type: "string", multiple: true }, rounds: { type: "string" }, unpinned: { type: "boolean" }, "default-run": { type: "string" } },
});
/** Seconds oha runs by hand before it measures: far past the point where every runtime here stops climbing. */
const HAND_WARMUP_S = 10;
const HAND_MEASURE_S = 3;
const PROFILES: readonly SuiteProfile[] = ["quick", "full"];
const ROUNDS = Number(values.rounds ?? 5);
const pinning = values.unpinned ? "unpinned" : "pinned";
if (values.unpinned) process.env[CPU_SETS_VARIABLE] = "off";
const startLoad = loadNow();

installInterruptHandling();
const runtimes = await prepareRuntimes(values.runtime ?? [...DEFAULT_RUNTIMES], (line) => process.stderr.write(`${line}\n`));
const workDir = await mkdtemp(join(tmpdir(), "steady-state-"));
const assignment = machineAssignment();
const split = assignment.separated ? assignment.sets : undefined;
const native = loadApps("http").find((app) => app.name === "native")!;
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Each profile's session and its subject per runtime: the suite's own code, as `run` drives it. */
const harness = PROFILES.map((profile) => {
  const [selected] = resolveScenarios(selectScenarios({ suites: ["http"], scenarios: ["json"] }), profile);
  // The registry erases a suite's types; this benchmark knows it drives the HTTP suite.
  const scenario = selected!.scenario as SuiteScenario<HttpConfig, HttpProfile>;
  const session = httpSuite.start({ profile, workDir, log, options: { apps: ["native"] } });
  const subjects = runtimes.map((runtime) => session.subjects(scenario, runtime)[0]!);
  return { profile, session, subjects, connections: Number(subjects[0]!.params.connections) };
});

/** oha as a person would run it: its documented flags, its JSON read for requestsPerSec. */
async function ohaByHand(url: string, connections: number, durationS: number): Promise<number> {
  const argv = [...pinned(split?.client), "oha", "--no-tui", "--output-format", "json", "-z", `${durationS}s`, "-c", String(connections), "--worker-threads", String(split?.client.length ?? 1), "-H", "Accept-Encoding: identity", url];
  const result = await runCommand(argv[0]!, argv.slice(1), { timeoutMs: (durationS + 60) * 1000 });
  if (result.code !== 0) throw new Error(`oha by hand failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { summary: { requestsPerSec: number } }).summary.requestsPerSec;
}

/** A fresh server warmed up by hand for HAND_WARMUP_S, then measured: its steady requests per second. */
async function byHand(subject: Subject, connections: number): Promise<number> {
  const server = await RunningServer.start({
    argv: [...pinned(split?.server), ...scriptArgv(subject.runtime, subject.flags, entryFile(native, subject.runtime.identity.name))],
    cwd: native.dir,
    env: runtimeEnv(subject.runtime, workDir),
    readyTimeoutMs: 30_000,
  });
  try {
    await ohaByHand(`${server.url}/json`, connections, HAND_WARMUP_S);
    return await ohaByHand(`${server.url}/json`, connections, HAND_MEASURE_S);
  } finally {
    await server.stop();
  }
}

interface Measured {
  harness: number[];
  hand: number[];
  reach90S: number[];
  firstSecondRps: number[];
  warmupS: number[];
  steady: boolean[];
  threads: string;
}

const measured = new Map<string, Measured>();
const keyOf = (runtime: number, profile: SuiteProfile) => `${runtime} ${profile}`;

try {
  for (const { session, subjects } of harness) {
    for (const subject of subjects) {
      const checked = await session.check(subject);
      if (checked.status !== "ok") throw new Error(`${subject.runtime.identity.name}: ${checked.error}`);
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of rotate(runtimes.map((_, i) => i), round)) {
      for (const { profile, session, subjects, connections } of harness) {
        const subject = subjects[r]!;
        log(`round ${round + 1}/${ROUNDS} ${subject.runtime.identity.name} ${profile}`);
        const m = measured.get(keyOf(r, profile)) ?? { harness: [], hand: [], reach90S: [], firstSecondRps: [], warmupS: [], steady: [], threads: "" };
        measured.set(keyOf(r, profile), m);
        const viaHarness = async () => {
          const trial = await session.trial(subject, round);
          const facts = trial.details?.[`trial_${round + 1}`] as { warmup: { steady: boolean; seconds: number }; server_threads: { name: string; threads: number; cpu_s: number }[] };
          m.harness.push(trial.samples.rps![0]!);
          m.reach90S.push(trial.samples.reach_90_s![0]!);
          m.firstSecondRps.push(trial.samples.first_second_rps![0]!);
          m.warmupS.push(facts.warmup.seconds);
          m.steady.push(facts.warmup.steady);
          m.threads = facts.server_threads.slice(0, 4).map((t) => `${t.name} ×${t.threads} ${t.cpu_s.toFixed(2)} s`).join(", ");
        };
        const viaHand = async () => m.hand.push(await byHand(subject, connections));
        for (const measure of round % 2 === 0 ? [viaHarness, viaHand] : [viaHand, viaHarness]) await measure();
      }
    }
  }
  const rows = runtimes.flatMap((runtime, r) =>
    harness.map(({ profile, connections }): Record<string, Figure> => {
      const m = measured.get(keyOf(r, profile))!;
      return {
        ...pairedRow(`${runtime.identity.name}@${runtime.identity.version}`, m.harness, m.hand, 0),
        profile: `${profile} (${connections} connections)`,
        cpus: pinning,
        warmup_s: Number(median(m.warmupS).toFixed(1)),
        never_steady: m.steady.filter((s) => !s).length,
        reach_90_s: Number(median(m.reach90S).toFixed(1)),
        first_second_rps: Math.round(median(m.firstSecondRps)),
        threads: m.threads,
      };
    }),
  );
  const defaultRun = values["default-run"] === undefined ? [] : [defaultRunRow(values["default-run"], rows)];
  const columns = { runtime: "runtime", profile: "profile", cpus: "CPUs", harness: "harness rps (median)", by_hand: `steady rps by hand after ${HAND_WARMUP_S} s (median)`, ratio: "harness / hand", ci95_low: "95 % low", ci95_high: "95 % high", warmup_s: "harness warm-up, s (median)", never_steady: "trials never steady", reach_90_s: "to 90 % of steady, s (median)", first_second_rps: "first second's rps (median)", threads: "server threads (busiest, CPU s in one trial)" };
  const keys = Object.keys(columns) as (keyof typeof columns)[];
  process.stdout.write(`steady state: http/json native, ${ROUNDS} interleaved rounds, CPUs ${pinning}, ${new Date().toISOString().slice(0, 10)}\n\n`);
  process.stdout.write(`${formatTable(Object.values(columns), [...rows, ...defaultRun].map((row) => keys.map((key) => String(row[key] ?? ""))))}\n`);
  const here = thisMachine(startLoad);
  const measuredAtNow = measuredAt(here);
  recordMeasurement("steady-state", (entry) => ({
    title: "HTTP figures at steady state: the harness against a server warmed up by hand",
    ...here,
    benchmark: `scripts/benchmark steady-state --rounds ${ROUNDS}${values.unpinned ? " --unpinned" : ""}`,
    columns: { ...columns, measured_at: MEASURED_AT_COLUMN },
    // The other pinning's rows stay as they were measured (each row says when); this run's replace their own.
    rows: [...(entry?.rows ?? []).filter((row) => row.cpus !== pinning && row.runtime !== "default run bun/node"), ...[...rows, ...defaultRun].map((row) => ({ ...row, measured_at: measuredAtNow }))],
    notes: [
      `Per round and runtime, for each profile: one harness trial (the HTTP suite's own \`trial()\`: a fresh server warmed up until steady by the profile's rule, then measured) and oha by hand against a fresh server, ${HAND_WARMUP_S} s of load, then ${HAND_MEASURE_S} s measured, at the profile's connection count; the two in alternating order; ${ROUNDS} rounds. Server on CPU ${split?.server.join(",") ?? "any"}, oha on CPU ${split?.client.join(",") ?? "any"}.`,
    ],
  }));
} finally {
  for (const { session } of harness) await session.close?.();
  await rm(workDir, { recursive: true, force: true });
}
process.exit(0);

/** The default run's bun/node ratio of http/json native rps, against the same ratio of the hand figures at its connection count. */
function defaultRunRow(dir: string, rows: readonly Record<string, Figure>[]): Record<string, Figure> {
  const docs = readDocuments([dir], "--default-run").filter((d) => d.suite === "http" && d.scenario === "json" && d.app === "native" && d.status === "ok");
  const rps = (name: string) => docs.find((d) => d.runtime.name === name)?.metrics.rps?.median;
  const hand = (name: string) => rows.find((row) => String(row.runtime).startsWith(`${name}@`) && String(row.profile).startsWith(docs[0]?.run.profile ?? "quick"))?.by_hand;
  const [bun, node, handBun, handNode] = [rps("bun"), rps("node"), hand("bun"), hand("node")];
  if (bun === undefined || node === undefined || handBun === undefined || handNode === undefined) throw new Error(`${dir} has no http/json native result of both bun and node, or this run measured neither`);
  const ratio = bun / node;
  const handRatio = Number(handBun) / Number(handNode);
  return { runtime: "default run bun/node", profile: docs[0]!.run.profile, cpus: pinning, harness: Number(ratio.toFixed(2)), by_hand: Number(handRatio.toFixed(2)), ratio: Number((ratio / handRatio).toFixed(3)) };
}
