import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { runCommand, tail, type CommandOptions } from "../process/children.ts";
import { toolVersion } from "./locate.ts";

export const GNU_TIME = "/usr/bin/time";

export function gnuTimeVersion(): Promise<string> {
  return toolVersion(GNU_TIME, ["--version"], "Debian package 'time'; scripts/bench installs it");
}

export interface PeakRss {
  readonly peakRssMb: number;
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Peak resident set size of one run, as the kernel reports it to the parent (wait4's ru_maxrss),
 * read through GNU time. Separate from the timed runs so measuring memory costs them nothing.
 */
export async function measurePeakRss(argv: readonly string[], options: CommandOptions): Promise<PeakRss> {
  const dir = await mkdtemp(join(options.cwd ?? ".", ".rss-"));
  try {
    const report = join(dir, "rss");
    const result = await runCommand(GNU_TIME, ["-f", "%M", "-o", report, ...argv], options);
    const kib = Number((await readFile(report, "utf8").catch(() => "")).trim().split("\n").pop());
    if (result.code !== 0 || !Number.isFinite(kib)) {
      return { peakRssMb: Number.NaN, code: result.code, stderr: tail(result.stderr) };
    }
    return { peakRssMb: (kib * 1024) / 1e6, code: 0, stderr: "" }; // KiB to MB (10^6 bytes)
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
