import { readFileSync } from "node:fs";
import { join } from "node:path";
import { toolVersion } from "./locate.ts";

export function tasksetVersion(): Promise<string> {
  return toolVersion("taskset", ["--version"], "Debian package 'util-linux'");
}

export const TASKSET_TOOL = { name: "taskset", version: tasksetVersion } as const;

/** The machine's CPUs as the assignment sees them. */
export interface Topology {
  /** The CPUs this process may run on (a container or cgroup may allow fewer than the machine has). */
  readonly allowed: readonly number[];
  /** Each physical core as its logical CPUs (SMT siblings of one another). */
  readonly cores: readonly (readonly number[])[];
  /** CPUs the kernel schedules nothing on unless pinned there (`isolcpus`). */
  readonly isolated: readonly number[];
}

/** Which CPUs each party of a measurement may use. */
export interface CpuSets {
  /** The process under test: the server, or the runtime of an in-process suite (file I/O, database). */
  readonly server: readonly number[];
  /** The load generator (oha, k6, the WebSocket client). */
  readonly client: readonly number[];
  /** PostgreSQL. */
  readonly database: readonly number[];
  /** The install suite's package registry. */
  readonly registry: readonly number[];
  /** The package manager the install suite times, which extracts on several threads: every core but the registry's. */
  readonly installer: readonly number[];
  /** A runtime that measures parallelism (the workers suite): every usable core, always the same ones. */
  readonly parallel: readonly number[];
}

export type CpuAssignment =
  | { readonly separated: true; readonly sets: CpuSets; readonly isolated: readonly number[]; readonly note?: string }
  | { readonly separated: false; readonly reason: string };

export type CpuRole = keyof CpuSets;

/** `0-2,5` → [0, 1, 2, 5]. */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(",").filter(Boolean)) {
    const [first, last] = part.split("-").map(Number);
    if (first === undefined || !Number.isInteger(first)) throw new Error(`not a CPU list: '${text}'`);
    for (let cpu = first; cpu <= (last ?? first); cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** [0, 1, 2, 5] → `0-2,5`, the kernel's own form. */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...cpus].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(",");
}

/** The CPUs this process may run on. */
export function allowedCpus(status = readFileSync("/proc/self/status", "utf8")): number[] {
  const line = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1];
  if (line === undefined) throw new Error("/proc/self/status has no Cpus_allowed_list");
  return parseCpuList(line);
}

function readList(path: string): number[] | null {
  try {
    return parseCpuList(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** The topology of the allowed CPUs, read from /sys (or a copy of its layout under `cpuDir`). */
export function readTopology(cpuDir = "/sys/devices/system/cpu", allowed: readonly number[] = allowedCpus()): Topology {
  const cores = new Map<string, number[]>();
  for (const cpu of allowed) {
    // Without topology files (some containers) every CPU counts as its own core.
    const siblings = readList(join(cpuDir, `cpu${cpu}`, "topology", "thread_siblings_list")) ?? [cpu];
    cores.set(formatCpuList(siblings), siblings);
  }
  return { allowed, cores: [...cores.values()], isolated: readList(join(cpuDir, "isolated")) ?? [] };
}

/**
 * Disjoint CPU sets from a topology. The unit is the physical core, so SMT siblings always land on
 * one side; isolated cores come first, so the server under test gets one the kernel keeps quiet.
 * The server gets one core; PostgreSQL and the registry (never in one suite together) a second; the
 * load generator the rest. On two cores the services share the load generator's core, never the
 * server's. The package manager of the install suite gets every core but the registry's. On one
 * core there is nothing to separate.
 */
export function assignCpus(topology: Topology): CpuAssignment {
  const allowed = new Set(topology.allowed);
  const isolated = new Set(topology.isolated);
  const cores = topology.cores.map((core) => core.filter((cpu) => allowed.has(cpu))).filter((core) => core.length > 0);
  if (cores.length < 2) {
    const cpus = cores.flat();
    return {
      separated: false,
      reason: cpus.length === 1 ? "one CPU: every process shares it" : `one physical core (CPUs ${formatCpuList(cpus)} are SMT siblings): every process shares it`,
    };
  }
  const quiet = (core: readonly number[]) => core.every((cpu) => isolated.has(cpu));
  const ordered = [...cores.filter(quiet), ...cores.filter((core) => !quiet(core))];
  const [server, second, ...rest] = ordered as [number[], number[], ...number[][]];
  const client = rest.length > 0 ? rest.flat() : second;
  return {
    separated: true,
    sets: { server, client, database: second, registry: second, installer: [...server, ...rest.flat()], parallel: ordered.flat() },
    isolated: topology.isolated.filter((cpu) => allowed.has(cpu)),
    ...(rest.length === 0 ? { note: "two cores: PostgreSQL and the registry share the load generator's core" } : {}),
  };
}

/** Set to `off`, no process is pinned: the switch that measures what the CPU sets buy. */
export const CPU_SETS_VARIABLE = "RUNTIME_BENCH_CPU_SETS";

/** The assignment on this machine now, or none when the CPU sets are switched off. */
export function machineAssignment(env: NodeJS.ProcessEnv = process.env): CpuAssignment {
  if (env[CPU_SETS_VARIABLE] === "off") return { separated: false, reason: `CPU sets switched off (${CPU_SETS_VARIABLE}=off)` };
  return assignCpus(readTopology());
}

/** The CPUs a role gets, or undefined when nothing is pinned. */
export function cpusOf(assignment: CpuAssignment, role: CpuRole): readonly number[] | undefined {
  return assignment.separated ? assignment.sets[role] : undefined;
}

/** What a result records of the assignment: the roles its suite runs, or why nothing was pinned. */
export function describeAssignment(assignment: CpuAssignment, roles: readonly CpuRole[]): Record<string, string> | string {
  if (!assignment.separated) return `none: ${assignment.reason}`;
  return {
    ...Object.fromEntries(roles.map((role) => [role, formatCpuList(assignment.sets[role])])),
    ...(assignment.isolated.length > 0 ? { isolated: formatCpuList(assignment.isolated) } : {}),
    // The note is about a service sharing the load generator's core: only where both run.
    ...(assignment.note && roles.includes("client") && roles.some((role) => role === "database" || role === "registry") ? { note: assignment.note } : {}),
  };
}

/** The argv prefix that runs a command on the given CPUs only. */
export function pinned(cpus: readonly number[] | undefined): string[] {
  return cpus ? ["taskset", "-c", formatCpuList(cpus)] : [];
}
