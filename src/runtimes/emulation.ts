import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { UserError } from "../core/errors.ts";
import { machineArch, type Arch } from "./catalog.ts";

/**
 * Runtimes of another architecture, run on this machine under qemu-user: to check that they run
 * at all (the arm64 smoke test), never for a figure. Chosen by RUNTIME_BENCH_ARCH; every result
 * of such a run says it was emulated, and neither `collect` nor the site takes it.
 */
export interface Emulation {
  /** The architecture of the runtimes, recorded as the result's `environment.arch`. */
  readonly arch: Arch;
  readonly host_arch: Arch;
  /** The program every runtime command goes through. */
  readonly emulator: string;
  /** Where the emulated binaries find their shared libraries. */
  readonly env: Readonly<Record<string, string>>;
}

/** Debian's qemu-user-static and cross libraries (scripts/lib/common.sh installs them for the tests). */
const QEMU: Record<Arch, { emulator: string; libraries: string }> = {
  arm64: { emulator: "qemu-aarch64-static", libraries: "/usr/aarch64-linux-gnu" },
  x86_64: { emulator: "qemu-x86_64-static", libraries: "/usr/x86_64-linux-gnu" },
};

export const ARCH_VARIABLE = "RUNTIME_BENCH_ARCH";

/** The architecture runtimes are provisioned for: RUNTIME_BENCH_ARCH, or this machine's. */
export function targetArch(env: NodeJS.ProcessEnv = process.env): Arch {
  const wanted = env[ARCH_VARIABLE];
  if (wanted === undefined || wanted === "") return machineArch();
  if (wanted === "x86_64" || wanted === "arm64") return wanted;
  throw new UserError(`${ARCH_VARIABLE}=${wanted}: use x86_64 or arm64`);
}

/** The emulation a run needs, or null when its runtimes are this machine's own. */
export function emulation(env: NodeJS.ProcessEnv = process.env): Emulation | null {
  const arch = targetArch(env);
  const host = machineArch();
  if (arch === host) return null;
  const { emulator, libraries } = QEMU[arch];
  return { arch, host_arch: host, emulator, env: { QEMU_LD_PREFIX: libraries } };
}

/** Why this machine cannot emulate, in one line, or null when it can. */
export function emulationProblem(emulated: Emulation, env: NodeJS.ProcessEnv = process.env): string | null {
  const onPath = (env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, emulated.emulator)));
  if (!onPath) return `cannot run ${emulated.arch} runtimes here: ${emulated.emulator} is not installed (Debian: qemu-user-static)`;
  const libraries = emulated.env.QEMU_LD_PREFIX!;
  if (!existsSync(join(libraries, "lib"))) return `cannot run ${emulated.arch} runtimes here: no ${emulated.arch} C library in ${libraries} (Debian: libc6-arm64-cross and its siblings)`;
  return null;
}

/** The argv of a runtime command, through the emulator when there is one. */
export function emulatedArgv(emulated: Emulation | null | undefined, argv: readonly string[]): string[] {
  return emulated ? [emulated.emulator, ...argv] : [...argv];
}
