/**
 * Is the load client the bottleneck? First, each runtime's native WebSocket app is put under a
 * short wsclient echo load and the fastest is kept. Against that server (pinned to its own CPU),
 * each client drives 50 connections in ping-pong (send, wait for the echo, send the next) from
 * the other CPU, the two clients in alternating order over the rounds: wsclient, and k6 with the
 * suite's echo script at RATE=0. Printed per client: messages/s, its CPU seconds and share of its
 * CPU, the server's CPU share, and messages per client CPU-second, the rate one client CPU would
 * reach if the client alone were the limit (its ceiling). Second, the suite's own trial()
 * (exactly as `scripts/bench run` calls it) on the echo scenario, `--trials` interleaved rounds
 * with the runtimes rotated each round: the spread (max/min) of messages_per_s per runtime.
 *
 *   scripts/benchmark websocket-ceiling [--runtime SPEC]... [--seconds N] [--rounds N] [--trials N]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { entryFile, loadApps } from "../src/apps/manifest.ts";
import { rotate } from "../src/orchestrate/order.ts";
import { installInterruptHandling } from "../src/process/children.ts";
import { runtimeEnv, scriptArgv } from "../src/runtimes/command.ts";
import type { IdentifiedRuntime } from "../src/runtimes/identify.ts";
import { prepareRuntimes } from "../src/runtimes/prepare.ts";
import { selectScenarios } from "../src/scenarios/select.ts";
import { median } from "../src/stats/summary.ts";
import { resolveScenarios } from "../src/suites/resolve.ts";
import type { SuiteScenario } from "../src/suites/suite.ts";
import { websocketSuite, type WebSocketConfig, type WebSocketProfile } from "../src/suites/websocket/index.ts";
import { k6Count, k6Version, runK6 } from "../src/suites/websocket/k6.ts";
import { runLoad, wsclientVersion, type EchoReport } from "../src/suites/websocket/wsclient.ts";
import { machineAssignment, pinned } from "../src/tools/cpu-split.ts";
import { groupUsage } from "../src/tools/proc-stats.ts";
import { HOST, RunningServer } from "../src/tools/server.ts";
import { formatTable } from "../src/ui/table.ts";

const { values } = parseArgs({ options: { runtime: { type: "string", multiple: true }, seconds: { type: "string" }, rounds: { type: "string" }, trials: { type: "string" } } });
const specs = values.runtime ?? ["node@22.11.0", "bun@1.2.0", "deno@2.1.4"];
const SECONDS = Number(values.seconds ?? 5);
const ROUNDS = Number(values.rounds ?? 2);
const TRIALS = Number(values.trials ?? 5);
const CONNECTIONS = 50;
const SIZE = 32;

installInterruptHandling();
const log = (line: string) => process.stderr.write(`${line}\n`);
const runtimes = await prepareRuntimes(specs, log);
const assignment = machineAssignment();
const split = assignment.separated ? assignment.sets : undefined;
const native = loadApps<{ servers: Record<string, string> }>("websocket").find((app) => app.name === "native")!;
const workDir = await mkdtemp(join(tmpdir(), "websocket-ceiling-"));

async function startNative(runtime: IdentifiedRuntime): Promise<RunningServer> {
  const start = native.manifest.runtimes[runtime.identity.name]!;
  return RunningServer.start({
    argv: [...pinned(split?.server), ...scriptArgv(runtime, start.flags ?? [], entryFile(native, runtime.identity.name))],
    cwd: native.dir,
    env: runtimeEnv(runtime, workDir),
    readyTimeoutMs: 30_000,
  });
}

const echoUrl = (server: RunningServer) => `ws://${HOST}:${server.port}/echo`;
const wsclientEcho = (server: RunningServer, warmupS: number, durationS: number) =>
  runLoad({ mode: "echo", url: echoUrl(server), connections: CONNECTIONS, size: SIZE, binary: false, warmupS, durationS }, pinned(split?.client)) as Promise<EchoReport>;

interface ClientRun {
  messagesPerS: number;
  clientCpuS: number;
  serverCpuS: number;
}

async function viaWsclient(server: RunningServer): Promise<ClientRun> {
  await wsclientEcho(server, 0, 1);
  const before = groupUsage(server.pid).cpuS;
  const report = await wsclientEcho(server, 0, SECONDS);
  const serverCpuS = groupUsage(server.pid).cpuS - before;
  if (report.mismatched > 0 || report.received !== report.sent) throw new Error(`wsclient: ${JSON.stringify(report.errors)}`);
  return { messagesPerS: report.messages_per_s, clientCpuS: report.client_cpu.user_s + report.client_cpu.system_s, serverCpuS };
}

async function viaK6(server: RunningServer): Promise<ClientRun> {
  const env = { URL: echoUrl(server), CONNECTIONS, RATE: 0, SIZE, BINARY: "false" };
  await runK6("echo.js", { ...env, DURATION_MS: 1000 }, pinned(split?.client), workDir, 60_000);
  const before = groupUsage(server.pid).cpuS;
  const outcome = await runK6("echo.js", { ...env, DURATION_MS: SECONDS * 1000 }, pinned(split?.client), workDir, (SECONDS + 60) * 1000);
  const serverCpuS = groupUsage(server.pid).cpuS - before;
  const received = k6Count(outcome, "echo_received");
  if (k6Count(outcome, "echo_mismatched") > 0 || received !== k6Count(outcome, "echo_sent")) throw new Error("k6: echoes lost or changed");
  // k6's CPU includes its start (about half a second of JavaScript setup), so its share is an upper bound.
  return { messagesPerS: received / SECONDS, clientCpuS: outcome.usage.userS + outcome.usage.systemS, serverCpuS };
}

try {
  const clientCpus = split?.client.length ?? 1;
  // The fastest server: a short wsclient echo load on each runtime's native app.
  const quick: [IdentifiedRuntime, number][] = [];
  for (const runtime of runtimes) {
    const server = await startNative(runtime);
    try {
      quick.push([runtime, (await wsclientEcho(server, 0.5, 2)).messages_per_s]);
    } finally {
      await server.stop();
    }
  }
  quick.sort((a, b) => b[1] - a[1]);
  const fastest = quick[0]![0];
  const name = `${fastest.identity.name}@${fastest.identity.version}`;
  log(`fastest server: ${name} (${quick.map(([r, v]) => `${r.identity.name} ${v.toFixed(0)}`).join(", ")} msg/s)`);

  const runs: Record<"wsclient" | "k6", ClientRun[]> = { wsclient: [], k6: [] };
  const server = await startNative(fastest);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order: ("wsclient" | "k6")[] = round % 2 === 0 ? ["wsclient", "k6"] : ["k6", "wsclient"];
      for (const client of order) {
        log(`ceiling round ${round + 1}/${ROUNDS}: ${client}`);
        runs[client].push(client === "wsclient" ? await viaWsclient(server) : await viaK6(server));
      }
    }
  } finally {
    await server.stop();
  }
  const versions = { wsclient: await wsclientVersion(), k6: await k6Version() };
  const ceilingRows = (["wsclient", "k6"] as const).map((client) => {
    const list = runs[client];
    const rate = median(list.map((r) => r.messagesPerS));
    const cpu = median(list.map((r) => r.clientCpuS));
    return [
      client,
      versions[client],
      rate.toFixed(0),
      cpu.toFixed(2),
      `${((100 * cpu) / (SECONDS * clientCpus)).toFixed(0)} %`,
      `${((100 * median(list.map((r) => r.serverCpuS))) / SECONDS).toFixed(0)} %`,
      median(list.map((r) => r.messagesPerS / (r.clientCpuS / SECONDS))).toFixed(0),
      list.map((r) => r.messagesPerS.toFixed(0)).join(" "),
    ];
  });

  // The spread of the suite's own messages_per_s over interleaved trials.
  const [selected] = resolveScenarios(selectScenarios({ suites: ["websocket"], scenarios: ["echo"] }), "quick");
  // The quick profile's warm-up until steady, with longer trials at this benchmark's connection count.
  const profile: WebSocketProfile = { ...(selected!.scenario.profileParams as WebSocketProfile), trials: TRIALS, duration_s: 3, connections: [CONNECTIONS], rate_duration_s: 1 };
  const scenario = { ...selected!.scenario, profileParams: profile } as SuiteScenario<WebSocketConfig, WebSocketProfile>;
  const session = websocketSuite.start({ profile: "quick", workDir, log, options: { apps: ["native"] } });
  const subjects = runtimes.map((runtime) => session.subjects(scenario, runtime)[0]!);
  for (const subject of subjects) {
    const checked = await session.check(subject);
    if (checked.status !== "ok") throw new Error(`${subject.runtime.identity.name}: ${checked.error}`);
  }
  const rates = new Map(subjects.map((s) => [s, [] as number[]]));
  const bound = new Map(subjects.map((s) => [s, 0]));
  for (let trial = 0; trial < TRIALS; trial++) {
    for (const subject of rotate(subjects, trial)) {
      log(`spread trial ${trial + 1}/${TRIALS} ${subject.runtime.identity.name}`);
      rates.get(subject)!.push((await session.trial(subject, trial)).samples.messages_per_s![0]!);
    }
  }
  for (const subject of subjects) bound.set(subject, Number((await session.finish!(subject)).details!.client_bound_trials));
  await session.close?.();
  const spreadRows = subjects.map((subject) => {
    const list = rates.get(subject)!;
    return [
      `${subject.runtime.identity.name}@${subject.runtime.identity.version}`,
      median(list).toFixed(0),
      (Math.max(...list) / Math.min(...list)).toFixed(3),
      String(bound.get(subject)),
      list.map((v) => v.toFixed(0)).join(" "),
    ];
  });

  process.stdout.write(
    `websocket ceiling: native echo, ${CONNECTIONS} connections in ping-pong, ${SIZE}-byte text, ${SECONDS} s per run, ${ROUNDS} rounds per client; ` +
      `server on CPU ${split?.server.join(",") ?? "any"}, client on CPU ${split?.client.join(",") ?? "any"}; fastest server ${name}; ${new Date().toISOString().slice(0, 10)}\n\n`,
  );
  process.stdout.write(
    `${formatTable(["client", "version", "msg/s (median)", "client CPU s", "client CPU share", "server CPU share", "msg per client CPU-second (ceiling)", "msg/s per round"], ceilingRows)}\n\n`,
  );
  process.stdout.write(`messages_per_s of the suite's trial() over ${TRIALS} interleaved trials (runtimes rotated each trial; warm-up 1 s, 3 s measured, 50 connections):\n\n`);
  process.stdout.write(`${formatTable(["runtime", "median msg/s", "spread max/min", "client-bound trials", "msg/s per trial"], spreadRows)}\n`);
} finally {
  await rm(workDir, { recursive: true, force: true });
}
process.exit(0);
