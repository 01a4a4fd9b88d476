import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { once } from "../core/once.ts";
import { runCommand, tail, type CommandOptions, type CommandResult } from "../process/children.ts";
import { toolVersion } from "./locate.ts";

export const GNU_TIME = "/usr/bin/time";

/**
 * GNU time's version. Debian's build prints "UNKNOWN" for it (its version string is not set when
 * built), so there the version is the Debian package's upstream version, read from dpkg.
 */
export async function gnuTimeVersion(): Promise<string> {
  const reported = await toolVersion(GNU_TIME, ["--version"], "Debian package 'time'; scripts/bench installs it");
  if (/\d/.test(reported)) return reported;
  return once(packageVersions, "time", async () => {
    const dpkg = await runCommand("dpkg-query", ["--show", "--showformat=${Version}", "time"], { timeoutMs: 30_000 });
    // "1.9-0.2": the upstream version is what comes before the Debian revision.
    return /^(?:\d+:)?(\d+(?:\.\d+)+)/.exec(dpkg.stdout)?.[1] ?? reported;
  });
}

const packageVersions = new Map<string, Promise<string>>();

export const GNU_TIME_TOOL = { name: "gnu-time", version: gnuTimeVersion } as const;

/** What the kernel reports to the parent when a command ends (wait4's rusage), read through GNU time. */
export interface ResourceUsage {
  readonly userS: number;
  readonly systemS: number;
  readonly elapsedS: number;
  readonly peakRssMb: number;
  /** Page faults the kernel served without I/O (minor) and with it (major), over every thread and waited-for child. */
  readonly minorFaults: number;
  readonly majorFaults: number;
  /** Context switches: a thread gave up the CPU to wait (voluntary), or was made to (involuntary). */
  readonly voluntarySwitches: number;
  readonly involuntarySwitches: number;
}

export interface TimedCommand {
  readonly result: CommandResult;
  /** Null when the command did not run to its end (GNU time wrote no report). */
  readonly usage: ResourceUsage | null;
}

/**
 * Runs a command under GNU time; its stdout and stderr are the command's own. `under` is what runs
 * GNU time itself (`setarch -R`: src/tools/fixed-layout.ts), so that its own work is not counted.
 */
export async function runWithUsage(argv: readonly string[], options: CommandOptions, reportDir: string, under: readonly string[] = []): Promise<TimedCommand> {
  const dir = await mkdtemp(join(reportDir, ".usage-"));
  try {
    const report = join(dir, "usage");
    const [command, ...args] = [...under, GNU_TIME, "-f", "%U %S %e %M %R %F %w %c", "-o", report, ...argv];
    const result = await runCommand(command!, args, options);
    // A command that exits non-zero gets a "Command exited with ..." line first: the figures are last.
    const fields = (await readFile(report, "utf8").catch(() => "")).trim().split("\n").pop()?.split(" ").map(Number) ?? [];
    const [userS, systemS, elapsedS, kib, minorFaults, majorFaults, voluntarySwitches, involuntarySwitches] = fields;
    const usage =
      fields.length === 8 && fields.every(Number.isFinite)
        ? {
            userS: userS!,
            systemS: systemS!,
            elapsedS: elapsedS!,
            peakRssMb: (kib! * 1024) / 1e6, // KiB to MB (10^6 bytes)
            minorFaults: minorFaults!,
            majorFaults: majorFaults!,
            voluntarySwitches: voluntarySwitches!,
            involuntarySwitches: involuntarySwitches!,
          }
        : null;
    return { result, usage };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface PeakRss {
  readonly peakRssMb: number;
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Peak resident set size of one run, as the kernel reports it to the parent (wait4's ru_maxrss).
 * Separate from the timed runs so measuring memory costs them nothing. GNU time's report goes to
 * `reportDir` (the run's work folder), never into the scenario folder the command runs in.
 */
export async function measurePeakRss(argv: readonly string[], options: CommandOptions, reportDir: string): Promise<PeakRss> {
  const { result, usage } = await runWithUsage(argv, options, reportDir);
  if (result.code !== 0 || usage === null) return { peakRssMb: Number.NaN, code: result.code, stderr: tail(result.stderr) };
  return { peakRssMb: usage.peakRssMb, code: 0, stderr: "" };
}
