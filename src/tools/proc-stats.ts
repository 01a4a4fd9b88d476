import { readdirSync, readFileSync } from "node:fs";

// Linux reports utime and stime in USER_HZ ticks, which the kernel ABI fixes at 100 per second.
const TICKS_PER_SECOND = 100;
/** The resolution of a CPU time read from /proc, or from GNU time (which prints hundredths). */
export const CPU_RESOLUTION_S = 1 / TICKS_PER_SECOND;

/** CPU time and peak memory of a process group (a server and every process it started). */
export interface GroupUsage {
  /** User + system CPU seconds, summed over the group's live processes and all their threads. */
  readonly cpuS: number;
  /** Sum of each live process's peak resident set (VmHWM), in MB (10^6 bytes). */
  readonly peakRssMb: number;
  readonly pids: readonly number[];
}

export interface ProcStat {
  /** R running, S sleeping, D waiting on I/O, T stopped, Z zombie (proc(5)). */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly cpuTicks: number;
  /** CPU of children the process has waited for (cutime + cstime): where an exited child's time goes. */
  readonly reapedTicks: number;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
export function parseStat(text: string): ProcStat {
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After ")": state(3) ppid(4) pgrp(5) ... utime(14) stime(15) cutime(16) cstime(17); fields[0] is field 3.
  return {
    state: fields[0]!,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    cpuTicks: Number(fields[11]) + Number(fields[12]),
    reapedTicks: Number(fields[13]) + Number(fields[14]),
  };
}

/** VmHWM of /proc/<pid>/status in MB; 0 for a process with no memory of its own (a zombie). */
export function parsePeakRssMb(status: string): number {
  const kib = /^VmHWM:\s*(\d+)\s*kB/m.exec(status)?.[1];
  return kib === undefined ? 0 : (Number(kib) * 1024) / 1e6;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null; // the process ended while we looked
  }
}

/** What one process is doing: for a trial that hung. */
export interface ProcessState {
  readonly pid: number;
  readonly command: string;
  readonly state: string;
  readonly cpuS: number;
  /** Each thread's name, state and CPU seconds, where there is more than one (a worker spinning while the main thread waits). */
  readonly threads: readonly { readonly name: string; readonly state: string; readonly cpuS: number }[];
}

const commandName = (stat: string) => stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));

/** Each thread of a process: its name, state and CPU seconds (none when the process has ended). */
function taskStates(pid: string): ProcessState["threads"] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    const stat = readOrNull(`/proc/${pid}/task/${task}/stat`);
    if (stat === null) return [];
    const parsed = parseStat(stat);
    return [{ name: commandName(stat), state: parsed.state, cpuS: parsed.cpuTicks / TICKS_PER_SECOND }];
  });
}

/** A process's threads where it has more than one (a worker spinning while the main thread waits). */
function threadsOf(pid: string): ProcessState["threads"] {
  const threads = taskStates(pid);
  return threads.length < 2 ? [] : threads;
}

/** Threads of one name in a process group: how many, and the CPU seconds they used so far. */
export interface ThreadGroup {
  readonly name: string;
  readonly threads: number;
  readonly cpu_s: number;
}

/**
 * A process group's threads by name, busiest first: what a server pinned to one CPU shares it
 * with (V8's garbage collector and compiler threads, a runtime's I/O pool).
 */
export function groupThreads(pgid: number): ThreadGroup[] {
  const byName = new Map<string, { threads: number; ticks: number }>();
  for (const { pid, parsed } of processStats()) {
    if (parsed.pgrp !== pgid) continue;
    for (const thread of taskStates(pid)) {
      const group = byName.get(thread.name) ?? { threads: 0, ticks: 0 };
      group.threads += 1;
      group.ticks += Math.round(thread.cpuS * TICKS_PER_SECOND);
      byName.set(thread.name, group);
    }
  }
  return [...byName].map(([name, g]) => ({ name, threads: g.threads, cpu_s: g.ticks / TICKS_PER_SECOND })).sort((a, b) => b.cpu_s - a.cpu_s || a.name.localeCompare(b.name));
}

/** Every process on the machine with its /proc/<pid>/stat, raw and parsed (those that end meanwhile are skipped). */
export function* processStats(): Generator<{ readonly pid: string; readonly stat: string; readonly parsed: ProcStat }> {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = readOrNull(`/proc/${pid}/stat`);
    if (stat !== null) yield { pid, stat, parsed: parseStat(stat) };
  }
}

/** Every live process of a process group, with its state and the CPU seconds it used. */
export function groupStates(pgid: number): ProcessState[] {
  const states: ProcessState[] = [];
  for (const { pid: entry, stat, parsed } of processStats()) {
    if (parsed.pgrp !== pgid) continue;
    const command = (readOrNull(`/proc/${entry}/cmdline`) ?? "").replace(/\0/g, " ").trim();
    states.push({ pid: Number(entry), command: command || commandName(stat), state: parsed.state, cpuS: parsed.cpuTicks / TICKS_PER_SECOND, threads: threadsOf(entry) });
  }
  return states;
}

export function groupUsage(pgid: number): GroupUsage {
  let ticks = 0;
  let peakRssMb = 0;
  const pids: number[] = [];
  for (const { pid: entry, parsed } of processStats()) {
    if (parsed.pgrp !== pgid) continue;
    const status = readOrNull(`/proc/${entry}/status`);
    ticks += parsed.cpuTicks;
    peakRssMb += status === null ? 0 : parsePeakRssMb(status);
    pids.push(Number(entry));
  }
  return { cpuS: ticks / TICKS_PER_SECOND, peakRssMb, pids };
}

/**
 * CPU seconds of a process and all its descendants, including those that already exited and were
 * waited for. For servers whose children leave the process group (PostgreSQL puts each in its own session).
 */
export function treeCpuS(rootPid: number): number {
  const stats = new Map<number, ProcStat>();
  for (const { pid, parsed } of processStats()) stats.set(Number(pid), parsed);
  const root = stats.get(rootPid);
  if (root === undefined) return Number.NaN;
  let ticks = root.reapedTicks;
  const inTree = new Set([rootPid]);
  // Parents precede children in no guaranteed order: sweep until the tree stops growing.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!inTree.has(pid) && inTree.has(stat.ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of inTree) ticks += stats.get(pid)!.cpuTicks;
  return ticks / TICKS_PER_SECOND;
}

/** What a process group holds at one moment: its threads, open file descriptors and resident memory. */
export interface GroupHoldings {
  readonly threads: number;
  readonly fds: number;
  /** Sum of each process's VmRSS, in MB (10^6 bytes). */
  readonly rssMb: number;
}

/** VmRSS and Threads of /proc/<pid>/status. */
export function parseStatus(status: string): { rssMb: number; threads: number } {
  const kib = /^VmRSS:\s*(\d+)\s*kB/m.exec(status)?.[1];
  const threads = /^Threads:\s*(\d+)/m.exec(status)?.[1];
  return { rssMb: kib === undefined ? 0 : (Number(kib) * 1024) / 1e6, threads: threads === undefined ? 0 : Number(threads) };
}

/** The threads, open file descriptors and resident memory of every live process of a group. */
export function groupHoldings(pgid: number): GroupHoldings {
  let threads = 0;
  let fds = 0;
  let rssMb = 0;
  for (const { pid, parsed } of processStats()) {
    if (parsed.pgrp !== pgid) continue;
    const status = readOrNull(`/proc/${pid}/status`);
    if (status === null) continue;
    const held = parseStatus(status);
    threads += held.threads;
    rssMb += held.rssMb;
    try {
      fds += readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      // ended while we looked
    }
  }
  return { threads, fds, rssMb };
}

/** The live processes of a group. */
export function groupPids(pgid: number): number[] {
  return [...processStats()].filter(({ parsed }) => parsed.pgrp === pgid).map(({ pid }) => Number(pid));
}
