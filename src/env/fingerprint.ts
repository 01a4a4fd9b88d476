import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import { machineArch, type Arch } from "../runtimes/catalog.ts";
import { emulation } from "../runtimes/emulation.ts";
import type { MachineCheck } from "./machine-check.ts";

/** The machine a result was measured on. Results are only ever compared within one fingerprint. */
export interface Environment {
  arch: Arch;
  os: string;
  kernel: string;
  cpu_model: string;
  cpus: number;
  memory_bytes: number;
  governor: string | null;
  smt: string | null;
  turbo: string | null;
  loopback_mtu: number | null;
  fingerprint: string;
  /** Present when the runtimes were another architecture's (`arch`), run under an emulator on this machine: never a figure to publish. */
  emulated?: { emulator: string; host_arch: Arch };
  /** The machine check before the run (absent from results of harnesses older than it). */
  machine?: MachineCheck;
}

function readTrimmed(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

function osName(): string {
  const release = readTrimmed("/etc/os-release") ?? "";
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(release)?.[1];
  return pretty ?? process.platform;
}

function turboState(): string | null {
  const noTurbo = readTrimmed("/sys/devices/system/cpu/intel_pstate/no_turbo");
  if (noTurbo !== null) return noTurbo === "1" ? "off" : "on";
  const boost = readTrimmed("/sys/devices/system/cpu/cpufreq/boost");
  if (boost !== null) return boost === "1" ? "on" : "off";
  return null;
}

export function readEnvironment(): Environment {
  const cpuList = cpus();
  const mtu = readTrimmed("/sys/class/net/lo/mtu");
  const emulated = emulation();
  const pinned = {
    // The runtimes' architecture: this machine's, unless they run under an emulator.
    arch: emulated?.arch ?? machineArch(),
    os: osName(),
    kernel: release(),
    cpu_model: (cpuList[0]?.model ?? "unknown").trim(),
    cpus: cpuList.length,
    memory_bytes: totalmem(),
    governor: readTrimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
    smt: readTrimmed("/sys/devices/system/cpu/smt/control"),
    turbo: turboState(),
    loopback_mtu: mtu === null ? null : Number(mtu),
  };
  // The kernel and OS change with updates; the fingerprint pins the hardware and its tuning only.
  const hardware = [pinned.arch, pinned.cpu_model, pinned.cpus, pinned.memory_bytes, pinned.governor, pinned.smt, pinned.turbo];
  const fingerprint = createHash("sha256").update(JSON.stringify(hardware)).digest("hex").slice(0, 16);
  return { ...pinned, fingerprint, ...(emulated ? { emulated: { emulator: emulated.emulator, host_arch: emulated.host_arch } } : {}) };
}
