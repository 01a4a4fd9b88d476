import { appOption, appsOption, dependencyVersions, entryFile, installApp, listingOf, loadApps, selectApps, type App, unsupportedApp } from "../../apps/manifest.ts";
import { UserError } from "../../core/errors.ts";
import { once } from "../../core/once.ts";
import type { ParamValue } from "../../core/params.ts";
import { runtimeEnv, scriptArgv } from "../../runtimes/command.ts";
import type { IdentifiedRuntime } from "../../runtimes/identify.ts";
import { cpusOf, describeAssignment, machineAssignment, pinned, TASKSET_TOOL, type CpuAssignment } from "../../tools/cpu-split.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { CPU_RESOLUTION_S, groupThreads, groupUsage } from "../../tools/proc-stats.ts";
import { HOST, RunningServer, ServerFailure, serverFailureDetails, serverTrial } from "../../tools/server.ts";
import { expectedWarmUpS, UnsteadyTrials, warmUntilSteady, warmUpFigures, warmUpRule, type WarmUp, type WarmUpProfile } from "../../tools/warm-up.ts";
import { isSteady } from "../../../apps/inprocess/steady.js";
import { STRACE_TOOL } from "../../tools/strace.ts";
import { countedScenario, TrialFailure, defineSuite, type CheckOutcome, type Subject, type SuiteContext, type SuiteScenario } from "../suite.ts";
import { countedIn, countSeconds, countWebSocket, WEBSOCKET_COUNT_METRICS } from "./counts.ts";
import { K6_TOOL, k6Count, runK6 } from "./k6.ts";
import { verifyServer } from "./verify.ts";
import { ClientError, runLoad, WSCLIENT_TOOL, type BroadcastReport, type EchoReport, type LoadSpec } from "./wsclient.ts";

/** The `websocket` block of a scenario manifest (schemas/suites/websocket.schema.json#/$defs/config). */
export interface WebSocketConfig {
  mode: "echo" | "broadcast";
  message_bytes: number;
  binary: boolean;
}

/** A profile of a WebSocket scenario (schemas/suites/websocket.schema.json#/$defs/profile). */
export interface WebSocketProfile extends WarmUpProfile {
  trials: number;
  duration_s: number;
  connections: number[];
  window: number;
  rate: number;
  rate_connections: number;
  rate_duration_s: number;
  [key: string]: unknown;
}

/** What each runtime's server is, in words, for the result (schemas/suites/websocket.schema.json#/$defs/app). */
type WebSocketApp = App<{ servers: Record<string, string> }>;
type WebSocketSubject = Subject<WebSocketConfig, WebSocketProfile>;

const READY_TIMEOUT_MS = 30_000;
/** A client counts as client-bound when its CPU time reaches this share of (wall time × its CPUs). */
export const CLIENT_BOUND_SHARE = 0.9;
/** A fixed rate counts as sustained when at least this share of it was echoed. */
const RATE_SUSTAINED_SHARE = 0.95;
/** The metrics only k6's fixed-rate run gives: a scenario that records them gets that run. */
const FIXED_RATE_METRICS = ["rate_rtt_p50_ms", "rate_rtt_p99_ms"];

const ms = (us: number) => Math.round(us) / 1000;
const round2 = (value: number) => Math.round(value * 100) / 100;
const round3 = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Warm-up until steady, as the HTTP suite's: half-second windows of the measured load; steady
 * when two windows agree within 5 % (quick) or 3 % (full) with each other and with those
 * before; at most 10 s (20 s).
 */
const WARM_UP_WINDOW_S = 0.5;
const QUICK_WARM_UP: WarmUpProfile = { warmup_window_s: WARM_UP_WINDOW_S, warmup_block: 2, warmup_tolerance: 0.05, warmup_max_s: 10 };
const FULL_WARM_UP: WarmUpProfile = { warmup_window_s: WARM_UP_WINDOW_S, warmup_block: 2, warmup_tolerance: 0.03, warmup_max_s: 20 };


function path(config: WebSocketConfig): string {
  return config.mode === "echo" ? "/echo" : "/broadcast";
}

function wantsFixedRate(scenario: SuiteScenario<WebSocketConfig, WebSocketProfile>): boolean {
  return FIXED_RATE_METRICS.some((name) => name in scenario.metrics);
}

/** The load points of a scenario, one result each per app: its connection (or receiver) counts. */
function pointsOf(scenario: SuiteScenario<WebSocketConfig, WebSocketProfile>): Record<string, ParamValue>[] {
  const profile = scenario.profileParams;
  return profile.connections.map((count) => ({
    ...(scenario.config.mode === "echo" ? { connections: count } : { receivers: count, window: profile.window }),
    ...(wantsFixedRate(scenario) ? { rate: profile.rate } : {}),
  }));
}

/**
 * What a trial costs beyond its load phases: start a server and wait until it answers, start the
 * clients, stop the server's process tree. A verification is a server's start and stop with the
 * scenario's checks; k6 starts once more for the fixed-rate run. Measured bare on the shared
 * 2-core machine: a server from spawn to ready to stopped took 0.20 s (mean of 3 each of both
 * apps on node@22.11.0, bun@1.2.0 and deno@2.1.4), k6 starting and exiting 0.08 s (hyperfine).
 * The first quick run of the suite (174 s) left about 1 s per trial and per verification beyond
 * its load phases: that is what counts here.
 */
const SERVER_LIFECYCLE_S = 1;
const K6_START_S = 0.1;
const VERIFICATION_S = 1;

async function launch(subject: WebSocketSubject, app: WebSocketApp, context: SuiteContext, cpus: readonly number[] | undefined): Promise<RunningServer> {
  return RunningServer.start({
    argv: [...pinned(cpus), ...scriptArgv(subject.runtime, subject.flags, entryFile(app, subject.runtime.identity.name))],
    cwd: app.dir,
    env: runtimeEnv(subject.runtime, context.workDir),
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
}

const wsUrl = (server: RunningServer) => `ws://${HOST}:${server.port}`;


/** Starts a fresh server, checks its echoes, broadcast and close handshake, stops it. */
async function verifyFresh(subject: WebSocketSubject, app: WebSocketApp, context: SuiteContext): Promise<CheckOutcome> {
  let server: RunningServer | undefined;
  try {
    server = await launch(subject, app, context, undefined);
    const verification = await verifyServer(wsUrl(server), subject.scenario.config.mode === "broadcast", context.workDir);
    if (verification.status === "passed") return { status: "ok", verification };
    const exited = server.exited;
    const error = String(verification.error);
    return { status: "failed", error: exited ? `${error}; the server ${exited}` : error, verification, details: serverFailureDetails(undefined, server) };
  } catch (error) {
    if (!(error instanceof ServerFailure) && !(error instanceof ClientError)) throw error;
    return { status: "failed", error: error.message, verification: { status: "failed", error: error.message }, details: serverFailureDetails(error, server) };
  } finally {
    await server?.stop();
  }
}


/** The result's load description: everything that shapes what the server sees. */
function loadDetails(subject: WebSocketSubject, app: WebSocketApp, split: CpuAssignment): Record<string, unknown> {
  const { config, profileParams: profile } = subject.scenario;
  return {
    path: path(config),
    mode: config.mode,
    message_bytes: config.message_bytes,
    message_type: config.binary ? "binary" : "text",
    ...(config.mode === "echo" ? { connections: subject.params.connections } : { receivers: subject.params.receivers, senders: 1, window: profile.window }),
    warmup: `windows of ${profile.warmup_window_s} s until the last ${profile.warmup_block} agree within ${profile.warmup_tolerance * 100} % with one another and with the ${profile.warmup_block} before, at most ${profile.warmup_max_s} s`,
    duration_s: profile.duration_s,
    load_client: "wsclient",
    ...(wantsFixedRate(subject.scenario) ? { fixed_rate_client: "k6", rate: profile.rate, rate_connections: profile.rate_connections, rate_duration_s: profile.rate_duration_s } : {}),
    compression: "none (permessage-deflate never offered)",
    cpu_split: describeAssignment(split, ["server", "client"]),
    server: app.manifest.servers[subject.runtime.identity.name],
    app_dependencies: dependencyVersions(app),
  };
}

/** The load spec of a subject for one wsclient invocation. */
function loadSpec(subject: WebSocketSubject, server: RunningServer, durationS: number): LoadSpec {
  const { config, profileParams: profile } = subject.scenario;
  const common = { url: wsUrl(server) + path(config), size: config.message_bytes, binary: config.binary, warmupS: 0, durationS };
  return config.mode === "echo"
    ? { mode: "echo", connections: Number(subject.params.connections), ...common }
    : { mode: "broadcast", receivers: Number(subject.params.receivers), window: profile.window, ...common };
}

/** Messages that arrived intact, out of those that should have; and what went wrong otherwise. */
function tally(report: EchoReport | BroadcastReport): { good: number; expected: number; problems: string[] } {
  const problems = Object.entries(report.errors).map(([error, count]) => `${count} × ${error}`);
  if (report.mode === "echo") {
    const good = report.received - report.mismatched;
    if (report.mismatched + report.warmup_mismatched > 0) {
      const first = report.first_mismatch!;
      problems.push(
        `${report.mismatched + report.warmup_mismatched} echoes differ from what was sent (the first: connection ${first.connection}, message ${first.sequence}, sent ${first.sent_bytes} bytes, got ${first.got_bytes} bytes of ${first.got_type} differing from byte ${first.first_differing_byte})`,
      );
    }
    if (report.received < report.sent) problems.push(`${report.sent - report.received} of ${report.sent} messages never echoed`);
    return { good, expected: report.sent, problems };
  }
  const good = report.received - report.mismatched;
  const wrong = report.mismatched + report.warmup_mismatched;
  if (wrong > 0) problems.push(`${wrong} deliveries duplicated, out of order or changed`);
  if (report.received < report.expected_deliveries) problems.push(`${report.expected_deliveries - report.received} of ${report.expected_deliveries} deliveries missing`);
  if (report.sender_received > 0) problems.push(`${report.sender_received} messages sent back to the sender`);
  return { good, expected: report.expected_deliveries, problems };
}

/** A phase's wsclient report held to the scenario: the server still up, some message sent and every one arrived intact, or the trial fails naming the phase. */
function checkReport(server: RunningServer, phase: string, report: EchoReport | BroadcastReport) {
  if (server.exited) throw new ServerFailure(`server ${server.exited} during ${phase}`, server.output());
  const counted = tally(report);
  if (counted.problems.length > 0 || counted.expected === 0) {
    throw new TrialFailure(`${phase}: ${counted.problems.join("; ") || "no message was sent"}`, { [`${phase}_report`]: report, ...serverFailureDetails(undefined, server) });
  }
  return counted;
}

/**
 * Warms a started server up, the same for a load point's trials and its counting pass (whose counts
 * are of the steady state the trials measure): windows of wsclient's load at full speed until they
 * agree (src/tools/warm-up.ts).
 */
function warmServer(subject: WebSocketSubject, server: RunningServer, pin: readonly string[]): Promise<WarmUp> {
  const profile = subject.scenario.profileParams;
  return warmUntilSteady(warmUpRule(profile), isSteady, async () => {
    const window = await runLoad(loadSpec(subject, server, profile.warmup_window_s), pin);
    return { seconds: window.duration_s, count: checkReport(server, "warmup", window).good };
  });
}

async function measure(subject: WebSocketSubject, context: SuiteContext, server: RunningServer, split: CpuAssignment) {
  const profile = subject.scenario.profileParams;
  const pin = pinned(cpusOf(split, "client"));
  const clientCpus = cpusOf(split, "client")?.length ?? 1;
  const gate = (phase: string, report: EchoReport | BroadcastReport) => checkReport(server, phase, report);

  const warm = await warmServer(subject, server, pin);
  const reached = warmUpFigures(warm, profile.warmup_block);

  const spec = loadSpec(subject, server, profile.duration_s);
  const before = groupUsage(server.pid);
  const report = await runLoad(spec, pin);
  const after = groupUsage(server.pid);
  const counted = gate("throughput", report);
  const clientCpuS = report.client_cpu.user_s + report.client_cpu.system_s;
  const wsclientBound = clientCpuS >= CLIENT_BOUND_SHARE * report.duration_s * clientCpus;
  const times = report.mode === "echo" ? report.rtt_us : report.delivery_us;

  const samples: Record<string, number[]> = {
    messages_per_s: [report.messages_per_s],
    rtt_p50_ms: [ms(times.p50)],
    rtt_p99_ms: [ms(times.p99)],
    success_rate: [counted.good / counted.expected],
    server_peak_rss_mb: [after.peakRssMb],
    server_cpu_s: [round2(after.cpuS - before.cpuS)],
    client_cpu_s: [round2(clientCpuS)],
    reach_90_s: [round3(reached.reach90S)],
    reach_90_messages: [reached.reach90Count],
    first_second_msgs_per_s: [reached.firstSecondRate],
  };
  const facts: Record<string, unknown> = {
    warmup: { steady: warm.steady, seconds: round3(warm.seconds), window_msgs_per_s: warm.windows.map((w) => Math.round(w.count / w.seconds)), level_msgs_per_s: Math.round(reached.level) },
    server_threads: groupThreads(server.pid),
    throughput: {
      messages: counted.good,
      seconds: report.duration_s,
      client_cpu_s: clientCpuS,
      client_bound: wsclientBound,
      close_answered: report.close_answered,
      rtt_us: times,
    },
  };
  const boundBy = wsclientBound ? ["wsclient"] : [];

  if (wantsFixedRate(subject.scenario)) {
    const { config } = subject.scenario;
    const outcome = await runK6(
      "echo.js",
      { URL: wsUrl(server) + path(config), CONNECTIONS: profile.rate_connections, RATE: profile.rate, SIZE: config.message_bytes, BINARY: String(config.binary), DURATION_MS: Math.round(profile.rate_duration_s * 1000) },
      pin,
      context.workDir,
      (profile.rate_duration_s + 60) * 1000,
    );
    if (server.exited) throw new ServerFailure(`server ${server.exited} during fixed-rate`, server.output());
    const [sent, received, mismatched, unanswered] = ["echo_sent", "echo_received", "echo_mismatched", "echo_unanswered"].map((name) => k6Count(outcome, name));
    if (sent === 0 || mismatched! > 0 || unanswered! > 0 || received !== sent) {
      throw new TrialFailure(`fixed-rate: of ${sent} messages k6 sent, ${received} were echoed, ${mismatched} wrong, ${unanswered} unanswered`, serverFailureDetails(undefined, server));
    }
    const rtt = outcome.metrics.echo_rtt ?? {};
    const k6CpuS = outcome.usage.userS + outcome.usage.systemS;
    const k6Bound = k6CpuS >= CLIENT_BOUND_SHARE * outcome.usage.elapsedS * clientCpus;
    if (k6Bound) boundBy.push("k6");
    const achieved = received! / profile.rate_duration_s;
    samples.rate_rtt_p50_ms = [rtt["p(50)"]!];
    samples.rate_rtt_p99_ms = [rtt["p(99)"]!];
    samples.success_rate = [(counted.good + received!) / (counted.expected + sent!)];
    facts.fixed_rate = {
      target_per_s: profile.rate,
      achieved_per_s: Math.round(achieved),
      sustained: achieved >= RATE_SUSTAINED_SHARE * profile.rate,
      k6_cpu_s: round2(k6CpuS),
      k6_wall_s: outcome.usage.elapsedS,
      client_bound: k6Bound,
      rtt_resolution_ms: 1,
    };
  }
  return { samples, boundBy, facts, steady: warm.steady };
}

/**
 * WebSocket servers under wsclient (throughput and round trips) and k6 (broadcast delivery check,
 * latency at a fixed rate). A subject is one app on one runtime at one connection (or receiver)
 * count; each trial starts a fresh server pinned to its own CPU, warms it up under load, measures,
 * reads the server's CPU and memory from /proc, and stops the whole process tree.
 */
export const websocketSuite = defineSuite<WebSocketConfig, WebSocketProfile, { apps: readonly string[] }>({
  name: "websocket",
  metrics: {
    messages_per_s: { unit: "msg/s", better: "higher", client_limited: "wsclient" },
    rtt_p50_ms: { unit: "ms", better: "lower" },
    rtt_p99_ms: { unit: "ms", better: "lower" },
    // k6 reports whole milliseconds.
    rate_rtt_p50_ms: { unit: "ms", better: "lower", resolution: 1 },
    rate_rtt_p99_ms: { unit: "ms", better: "lower", resolution: 1 },
    success_rate: { unit: "fraction", better: "higher" },
    server_peak_rss_mb: { unit: "MB", better: "lower" },
    server_cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    client_cpu_s: { unit: "s", better: "lower", resolution: CPU_RESOLUTION_S },
    // How fast a fresh server reaches its speed (src/tools/warm-up.ts), known to a window's length.
    reach_90_s: { unit: "s", better: "lower", resolution: WARM_UP_WINDOW_S },
    reach_90_messages: { unit: "messages", better: "lower" },
    first_second_msgs_per_s: { unit: "msg/s", better: "higher", client_limited: "wsclient" },
    ...WEBSOCKET_COUNT_METRICS,
  },
  profiles: {
    quick: { trials: 2, ...QUICK_WARM_UP, duration_s: 1, connections: [50], window: 1, rate: 1000, rate_connections: 10, rate_duration_s: 1 },
    full: { trials: 3, ...FULL_WARM_UP, duration_s: 5, connections: [100, 1000], window: 1, rate: 1000, rate_connections: 10, rate_duration_s: 5 },
  },
  tools: [WSCLIENT_TOOL, K6_TOOL, GNU_TIME_TOOL, TASKSET_TOOL, STRACE_TOOL],
  options: { app: appOption("websocket") },
  parseOptions: appsOption,
  // Each runtime's own server: the ws package on all three is measured by `run` and the profiles.
  // Text echo and broadcast on each runtime's own server; echo-binary is measured by `run` (the default run keeps within 10 minutes).
  defaultRun: { scenarios: ["echo", "broadcast"], options: { app: ["native"] } },

  estimate(scenario, runtime, options, keeps) {
    const profile = scenario.profileParams;
    const apps = selectApps(loadApps<{ servers: Record<string, string> }>("websocket"), options.apps).filter((app) => app.manifest.runtimes[runtime]);
    const loadPoints = pointsOf(scenario).filter(keeps).length;
    const fixedRateS = wantsFixedRate(scenario) ? K6_START_S + profile.rate_duration_s : 0;
    const trialS = SERVER_LIFECYCLE_S + expectedWarmUpS(profile) + profile.duration_s + fixedRateS;
    // Each app is verified once before its load points and once after, whatever their number.
    const countingSeconds = countedIn(scenario) ? apps.length * loadPoints * countSeconds(profile) : 0;
    const verificationS = loadPoints > 0 ? 2 * VERIFICATION_S : 0;
    return { cells: apps.length * loadPoints, seconds: apps.length * (loadPoints * profile.trials * trialS + verificationS) + countingSeconds, countingSeconds };
  },


  async prepare(note) {
    for (const app of loadApps<{ servers: Record<string, string> }>("websocket")) {
      const failed = await installApp(app, "websocket", note);
      if (failed) throw new UserError(failed);
    }
  },

  listApps() {
    return listingOf(loadApps("websocket"));
  },

  start(context) {
    const apps = loadApps<{ servers: Record<string, string> }>("websocket");
    const appOf = (subject: WebSocketSubject) => apps.find((app) => app.name === subject.app)!;
    const installs = new Map<string, Promise<string | null>>();
    // Every load point of one app on one runtime shares the server code: verified once per phase.
    const verifications = new Map<string, Promise<CheckOutcome>>();
    const verifyOnce = (phase: "before" | "after", subject: WebSocketSubject) =>
      once(verifications, [phase, subject.scenario.dir, subject.runtime.identity.sha256, subject.app].join("\0"), () => verifyFresh(subject, appOf(subject), context));
    // Which client used all of its CPU, per trial: a result is client-bound if any trial was.
    const boundTrials = new Map<WebSocketSubject, string[][]>();
    const unsteady = new UnsteadyTrials<WebSocketSubject>(context.log);

    return {
      subjects(scenario: SuiteScenario<WebSocketConfig, WebSocketProfile>, runtime: IdentifiedRuntime) {
        const subjects: WebSocketSubject[] = [];
        for (const app of selectApps(apps, context.options.apps)) {
          const start = app.manifest.runtimes[runtime.identity.name];
          const flags = [...(scenario.manifest.runtimes[runtime.identity.name]?.flags ?? []), ...(start?.flags ?? [])];
          // An app that does not run here is one unsupported cell, outside every series of load points.
          const view = countedScenario(scenario, WEBSOCKET_COUNT_METRICS, countedIn(scenario));
          for (const params of start ? pointsOf(scenario) : [{}]) subjects.push({ scenario: view, runtime, app: app.name, params, flags });
        }
        return subjects;
      },

      async check(subject) {
        const app = appOf(subject);
        const unsupported = unsupportedApp(app, subject.runtime);
        if (unsupported !== null) return { status: "unsupported", error: unsupported };
        const installError = await once(installs, app.dir, () => installApp(app, "websocket", context.log));
        if (installError) return { status: "failed", error: installError };
        const outcome = await verifyOnce("before", subject);
        return outcome.status === "ok" ? { ...outcome, details: loadDetails(subject, app, machineAssignment()) } : outcome;
      },

      async trial(subject, trialIndex) {
        const split = machineAssignment();
        const measured = await serverTrial(
          () => launch(subject, appOf(subject), context, cpusOf(split, "server")),
          (server) => measure(subject, context, server, split),
          [ClientError],
        );
        boundTrials.set(subject, [...(boundTrials.get(subject) ?? []), measured.boundBy]);
        const cell = `websocket/${subject.scenario.name} ${subject.app} ${subject.runtime.identity.name}@${subject.runtime.identity.version} trial ${trialIndex + 1}`;
        unsteady.note(subject, measured.steady, cell, subject.scenario.profileParams.warmup_max_s);
        return { samples: measured.samples, details: { [`trial_${trialIndex + 1}`]: measured.facts } };
      },

      count: (subject) =>
        countWebSocket(subject, context.workDir, {
          start: (split) => launch(subject, appOf(subject), context, cpusOf(split, "server")),
          url: (server) => wsUrl(server) + path(subject.scenario.config),
          load: (server, durationS) => loadSpec(subject, server, durationS),
          warm: (server, pin) => warmServer(subject, server, pin),
        }),

      recheck: (subject) => verifyOnce("after", subject),

      async finish(subject) {
        const trials = boundTrials.get(subject) ?? [];
        const by = [...new Set(trials.flat())].sort();
        return {
          details: { client_bound: by.length > 0, client_bound_by: by, client_bound_trials: trials.filter((t) => t.length > 0).length, never_steady_trials: unsteady.count(subject) },
        };
      },
    };
  },
});
