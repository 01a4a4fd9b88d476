import { readFileSync } from "node:fs";
import { toolVersion } from "./locate.ts";

/** Which CPUs the server and the load generator may use. */
export interface CpuSplit {
  readonly server: readonly number[];
  readonly client: readonly number[];
}

export function tasksetVersion(): Promise<string> {
  return toolVersion("taskset", ["--version"], "Debian package 'util-linux'");
}

export const TASKSET_TOOL = { name: "taskset", version: tasksetVersion } as const;

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

/** The CPUs this process may run on (a container or cgroup may allow fewer than the machine has). */
export function allowedCpus(status = readFileSync("/proc/self/status", "utf8")): number[] {
  const line = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1];
  if (line === undefined) throw new Error("/proc/self/status has no Cpus_allowed_list");
  return parseCpuList(line);
}

/**
 * A single-process server gets the first allowed CPU and oha all the others, so neither takes
 * time from the other. With one CPU there is nothing to split: null, and both share it.
 */
export function splitCpus(cpus: readonly number[]): CpuSplit | null {
  if (cpus.length < 2) return null;
  return { server: cpus.slice(0, 1), client: cpus.slice(1) };
}

/** The split of the CPUs this process may use now. */
export function machineSplit(): CpuSplit | null {
  return splitCpus(allowedCpus());
}

/** The argv prefix that runs a command on the given CPUs only. */
export function pinned(cpus: readonly number[] | undefined): string[] {
  return cpus ? ["taskset", "-c", cpus.join(",")] : [];
}
