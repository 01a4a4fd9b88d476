import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { once } from "../core/once.ts";
import { runCommand, tail } from "../process/children.ts";
import { withScratchFolder } from "../process/scratch.ts";

/** One event of `perf stat -x,`: a count, or why perf could not count it. */
export type PerfCount =
  | { readonly event: string; readonly value: number; readonly unit: string }
  | { readonly event: string; readonly unavailable: string };

/** What a count, or its absence, looks like in a result: never a number that was not counted. */
export type Counted = { readonly value: number } | { readonly unavailable: string };

/**
 * Parses `perf stat -x,` output (perf-stat(1), "CSV FORMAT"): per line the counter value, its unit,
 * the event name, run time, the share of it measured, then an optional metric. A value perf could
 * not read is written `<not supported>` or `<not counted>`; `#` lines are perf's comments.
 */
export function parsePerfStat(csv: string): PerfCount[] {
  const counts: PerfCount[] = [];
  for (const line of csv.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const [value = "", unit = "", event = ""] = line.split(",");
    if (event === "") continue;
    if (value.startsWith("<")) {
      counts.push({ event, unavailable: `perf reports ${event} ${value}` });
      continue;
    }
    const number = Number(value);
    counts.push(Number.isFinite(number) && value !== "" ? { event, value: number, unit } : { event, unavailable: `perf wrote '${value}' for ${event}` });
  }
  return counts;
}

/** The count of one event (perf may suffix its name with modifiers such as `:u`). */
export function countOf(counts: readonly PerfCount[], event: string): Counted {
  const found = counts.find((count) => count.event === event || count.event.startsWith(`${event}:`));
  if (!found) return { unavailable: `perf reported no ${event} count` };
  return "value" in found ? { value: found.value } : { unavailable: found.unavailable };
}

/** The argv that runs a command under `perf stat`, its counts written to `output`. */
export function perfStatArgv(events: readonly string[], output: string, argv: readonly string[]): string[] {
  return ["perf", "stat", "-x,", "-o", output, "-e", events.join(","), "--", ...argv];
}

/** Reads the counts `perfStatArgv` wrote. */
export async function readPerfStat(output: string): Promise<PerfCount[]> {
  return parsePerfStat(await readFile(output, "utf8").catch(() => ""));
}

/** Counts one event over a short command, through perf: whether this machine can count it, and if not why. */
async function probe(event: string): Promise<Counted> {
  return withScratchFolder("perf", async (dir) => {
    const output = join(dir, "stat.csv");
    const [command, ...args] = perfStatArgv([event], output, ["true"]);
    const result = await runCommand(command!, args, { timeoutMs: 30_000 });
    if (result.spawnError !== undefined) return { unavailable: "perf is not installed (Debian package linux-perf; scripts/tune-machine installs it)" };
    if (result.code !== 0) return { unavailable: `perf stat failed: ${tail(result.stderr, 2) || `exit code ${result.code}`}` };
    return countOf(await readPerfStat(output), event);
  });
}

const probes = new Map<string, Promise<Counted>>();

/** Whether the CPU's instructions-retired counter can be read here (asked of perf once per process). */
export function instructionsReadable(): Promise<Counted> {
  return once(probes, "instructions", () => probe("instructions"));
}

/** Runs `argv` through `run`, under `perf stat` where this machine counts instructions: its result, and the count or why there is none. */
export async function withInstructions<T>(argv: readonly string[], scratchDir: string, run: (argv: readonly string[]) => Promise<T>): Promise<{ result: T; instructions: Counted }> {
  const counter = await instructionsReadable();
  if (!("value" in counter)) return { result: await run(argv), instructions: counter };
  const dir = await mkdtemp(join(scratchDir, ".perf-"));
  try {
    const output = join(dir, "stat.csv");
    const result = await run(perfStatArgv(["instructions"], output, argv));
    return { result, instructions: countOf(await readPerfStat(output), "instructions") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A trial's instructions as its result keeps them: the count of each of its processes where they
 * were counted, or once why they were not. Instructions move far less than time on a busy machine.
 */
export function instructionsDetails(counts: readonly Counted[], trialIndex: number): Record<string, unknown> {
  const missing = counts.find((count) => "unavailable" in count);
  if (missing && "unavailable" in missing) return { instructions: `unavailable: ${missing.unavailable}` };
  return { [`instructions_trial_${trialIndex + 1}`]: counts.map((count) => ("value" in count ? count.value : Number.NaN)) };
}
