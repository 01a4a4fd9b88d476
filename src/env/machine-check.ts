import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { UserError } from "../core/errors.ts";
import { formatCpuList, parseCpuList } from "../tools/cpu-split.ts";
import { instructionsReadable } from "../tools/perf.ts";
import type { Environment } from "./fingerprint.ts";

/**
 * What makes a machine quiet or noisy, read before every run and kept in each result's
 * environment. `unmet` names every setting that differs from docs/machine-tuning.md: a dedicated
 * runner's results are only published when it is empty.
 */
export interface MachineCheck {
  /** `isolcpus`: CPUs the scheduler leaves to tasks pinned there ("" when none). */
  isolated_cpus: string;
  /** `nohz_full`: CPUs without the periodic tick; null where the kernel has no such list. */
  nohz_full_cpus: string | null;
  /** kernel.randomize_va_space: 0 off, 1 stack and libraries, 2 also the heap. */
  aslr: number | null;
  /** 1, 5 and 15 minutes. */
  load_average: [number, number, number];
  memory_available_bytes: number | null;
  swap_total_bytes: number | null;
  swap_used_bytes: number | null;
  /** Whether `perf stat` can count instructions retired, and if not why. */
  perf_counters: { readable: true } | { readable: false; reason: string };
  unmet: string[];
}

/** A machine's readings, apart from where they came from, so that the rules can be tested on any machine. */
export interface MachineReadings {
  governor: string | null;
  turbo: string | null;
  smt: string | null;
  cpus: number;
  isolated: readonly number[];
  nohzFull: readonly number[] | null;
  aslr: number | null;
  loadAverage: readonly [number, number, number];
  memoryAvailableBytes: number | null;
  swapUsedBytes: number | null;
}

/** The 1-minute load average a quiet machine stays under before a run: nothing else should be running. */
export const QUIET_LOAD = 0.5;
/** Memory a run needs free (the database suite's PostgreSQL and an install's tree are the largest). */
export const MIN_AVAILABLE_BYTES = 2 * 1024 ** 3;
const SMT_OFF = ["off", "forceoff", "notsupported", "notimplemented"];

/** Each setting that differs from docs/machine-tuning.md, as one phrase naming it, what it is and what it should be. */
export function unmetSettings(m: MachineReadings): string[] {
  const unmet: string[] = [];
  if (m.governor !== null && m.governor !== "performance") unmet.push(`CPU governor is ${m.governor} (want performance)`);
  if (m.turbo === "on") unmet.push("turbo/boost is on (want off)");
  if (m.smt !== null && !SMT_OFF.includes(m.smt)) unmet.push(`SMT is ${m.smt} (want off)`);
  if (m.isolated.length === 0) unmet.push("no isolated CPUs (want isolcpus= on the kernel command line)");
  const tickless = new Set(m.nohzFull ?? []);
  const ticking = m.isolated.filter((cpu) => !tickless.has(cpu));
  if (m.isolated.length > 0 && ticking.length > 0) unmet.push(`isolated CPUs ${formatCpuList(ticking)} are not nohz_full (want nohz_full= to match isolcpus=)`);
  if (m.aslr !== 0) unmet.push(`ASLR is ${m.aslr ?? "unknown"} (want kernel.randomize_va_space = 0)`);
  if (m.loadAverage[0] > QUIET_LOAD) unmet.push(`load average is ${m.loadAverage[0].toFixed(2)} (want at most ${QUIET_LOAD}: nothing else running)`);
  if (m.memoryAvailableBytes !== null && m.memoryAvailableBytes < MIN_AVAILABLE_BYTES) {
    unmet.push(`${(m.memoryAvailableBytes / 1024 ** 3).toFixed(1)} GiB of memory available (want at least ${MIN_AVAILABLE_BYTES / 1024 ** 3} GiB)`);
  }
  if (m.swapUsedBytes !== null && m.swapUsedBytes > 0) unmet.push(`${(m.swapUsedBytes / 1024 ** 2).toFixed(0)} MiB of swap in use (want none: swapoff -a)`);
  return unmet;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

/** One field of /proc/meminfo in bytes. */
export function meminfoBytes(meminfo: string, field: string): number | null {
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(meminfo)?.[1];
  return kib === undefined ? null : Number(kib) * 1024;
}

/** The 1-minute, 5-minute and 15-minute load averages now, rounded as a result records them. */
export function loadAverages(): [number, number, number] {
  // Rounded before it is judged, so that the result's figure and its verdict agree.
  const [one = 0, five = 0, fifteen = 0] = loadavg().map((load) => Math.round(load * 100) / 100);
  return [one, five, fifteen];
}

/**
 * The 1-minute load at or above which a measurement waits (`--max-load`): half the CPUs unless given.
 * Something else holds a whole CPU of a 2-vCPU testbed above it; the 1-minute average also carries
 * the previous run's own work for about a minute, which the wait lets fade.
 */
export function parseMaxLoad(text: string | undefined, command: string): number {
  if (text === undefined) return cpus().length / 2;
  const load = Number(text);
  if (!Number.isFinite(load) || load <= 0) throw new UserError(`${command}: --max-load must be a positive number, not '${text}'`);
  return load;
}

/** What waiting for a quiet machine reads and does, so that a test can drive it with a clock of its own. */
export interface QuietWait<Stop> {
  load(): number;
  now(): number;
  sleep(ms: number): Promise<void>;
  log(line: string): void;
  /** Why to give up waiting now (Ctrl-C, a deadline), or null to go on. */
  stop(): Stop | null;
}

/** What waiting for a quiet machine reads and does on this machine: its load, its clock, a real sleep. */
export const liveMachine: Pick<QuietWait<never>, "load" | "now" | "sleep"> = {
  load: () => loadAverages()[0],
  now: () => Date.now(),
  sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
};

const QUIET_POLL_MS = 1000;
const QUIET_SAY_EVERY_MS = 60_000;

/**
 * Waits while the 1-minute load average is at or above `maxLoad`, saying why once a minute: null once
 * it is below (a run started at 1.00 on two CPUs is not one taken with nothing else running), or the
 * reason `stop` gave to end the wait.
 */
export async function waitForQuiet<Stop>(command: string, maxLoad: number, wait: QuietWait<Stop>): Promise<Stop | null> {
  let said = -Infinity;
  for (let load = wait.load(); load >= maxLoad; load = wait.load()) {
    const stop = wait.stop();
    if (stop !== null) return stop;
    if (wait.now() - said >= QUIET_SAY_EVERY_MS) {
      said = wait.now();
      wait.log(`${command}: waiting: the load average is ${load.toFixed(2)}, not below ${maxLoad} (--max-load): something else is running, and a run beside it would carry its noise`);
    }
    await wait.sleep(QUIET_POLL_MS);
  }
  return null;
}

/**
 * Reads the machine's settings now (the perf probe is asked once per process), but for the load,
 * which a caller reads before its own work (`loadAverage`, by default now).
 */
export async function checkMachine(environment: Pick<Environment, "governor" | "turbo" | "smt" | "cpus">, loadAverage = loadAverages()): Promise<MachineCheck> {
  const cpuDir = "/sys/devices/system/cpu";
  const meminfo = readText("/proc/meminfo") ?? "";
  const nohz = readText(`${cpuDir}/nohz_full`);
  const aslr = readText("/proc/sys/kernel/randomize_va_space");
  const swapTotal = meminfoBytes(meminfo, "SwapTotal");
  const swapFree = meminfoBytes(meminfo, "SwapFree");
  const [one, five, fifteen] = loadAverage;
  const readings: MachineReadings = {
    ...environment,
    isolated: parseCpuList(readText(`${cpuDir}/isolated`) ?? ""),
    // The kernel writes "(null)" when nohz_full was not given.
    nohzFull: nohz === null || nohz === "(null)" ? null : parseCpuList(nohz),
    aslr: aslr === null ? null : Number(aslr),
    loadAverage: [one, five, fifteen],
    memoryAvailableBytes: meminfoBytes(meminfo, "MemAvailable"),
    swapUsedBytes: swapTotal === null || swapFree === null ? null : swapTotal - swapFree,
  };
  const counter = await instructionsReadable();
  return {
    isolated_cpus: formatCpuList(readings.isolated),
    nohz_full_cpus: readings.nohzFull === null ? null : formatCpuList(readings.nohzFull),
    aslr: readings.aslr,
    load_average: [one, five, fifteen],
    memory_available_bytes: readings.memoryAvailableBytes,
    swap_total_bytes: swapTotal,
    swap_used_bytes: readings.swapUsedBytes,
    perf_counters: "value" in counter ? { readable: true } : { readable: false, reason: counter.unavailable },
    unmet: unmetSettings(readings),
  };
}

/** The check as the person at the terminal reads it: one line of settings, one per setting to fix. */
export function describeMachine(environment: Pick<Environment, "governor" | "turbo" | "smt">, check: MachineCheck): string {
  const gib = (bytes: number | null) => (bytes === null ? "unknown" : `${(bytes / 1024 ** 3).toFixed(1)} GiB`);
  const settings = [
    `governor ${environment.governor ?? "none"}`,
    `turbo ${environment.turbo ?? "unknown"}`,
    `SMT ${environment.smt ?? "unknown"}`,
    `isolated CPUs ${check.isolated_cpus || "none"}`,
    `nohz_full ${check.nohz_full_cpus || "none"}`,
    `ASLR ${check.aslr ?? "unknown"}`,
    `load ${check.load_average.join(" ")}`,
    `memory available ${gib(check.memory_available_bytes)}`,
    `swap used ${gib(check.swap_used_bytes)}`,
    `perf counters ${check.perf_counters.readable ? "readable" : `unreadable (${check.perf_counters.reason})`}`,
  ];
  const lines = [`machine: ${settings.join("; ")}`];
  if (check.unmet.length > 0) lines.push(`machine: not tuned for benchmarking (docs/machine-tuning.md): ${check.unmet.join("; ")}`);
  return lines.join("\n");
}
