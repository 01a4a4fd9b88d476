import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand, tail } from "../process/children.ts";
import { toolVersion } from "./locate.ts";

export function hyperfineVersion(): Promise<string> {
  return toolVersion("hyperfine", ["--version"], "Debian package 'hyperfine'; scripts/bench installs it");
}

export const HYPERFINE_TOOL = { name: "hyperfine", version: hyperfineVersion } as const;

/** Quotes an argument for hyperfine's own command splitting (it parses like a POSIX shell). */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export interface HyperfineRun {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly warmup: number;
  readonly runs: number;
  /** Where the JSON export goes; the harness reads this, never hyperfine's printed text. */
  readonly exportDir: string;
  readonly name: string;
  /** Run before every timed run, outside the timed region (hyperfine's --prepare). */
  readonly prepare?: readonly string[];
  /** Where the command's stdout goes (hyperfine's --output); discarded when absent. */
  readonly stdoutFile?: string;
}

/** `cpuS`: the mean user plus system CPU seconds of one run. */
export type HyperfineOutcome = { ok: true; wallMs: number[]; cpuS: number } | { ok: false; error: string };

interface HyperfineExport {
  results: { times?: number[]; user?: number; system?: number; exit_codes?: (number | null)[] }[];
}

export async function runHyperfine(run: HyperfineRun): Promise<HyperfineOutcome> {
  const exportPath = join(run.exportDir, `${run.name}.json`);
  const command = run.argv.map(shellQuote).join(" ");
  const extra = [
    ...(run.prepare ? ["--prepare", run.prepare.map(shellQuote).join(" ")] : []),
    ...(run.stdoutFile ? ["--output", run.stdoutFile] : []),
  ];
  const result = await runCommand(
    "hyperfine",
    ["-N", "--style", "none", "--warmup", String(run.warmup), "--runs", String(run.runs), ...extra, "--export-json", exportPath, "--command-name", run.name, command],
    { cwd: run.cwd, env: run.env, timeoutMs: 30 * 60_000 },
  );
  if (result.code !== 0) {
    const why = result.timedOut ? "timed out" : tail(result.stderr, 8) || `hyperfine exited with ${result.code}`;
    return { ok: false, error: why };
  }
  const exported = JSON.parse(await readFile(exportPath, "utf8")) as HyperfineExport;
  const times = exported.results[0]?.times;
  const cpuS = (exported.results[0]?.user ?? Number.NaN) + (exported.results[0]?.system ?? Number.NaN);
  if (!times || times.length === 0) return { ok: false, error: "hyperfine exported no times" };
  if (!Number.isFinite(cpuS)) return { ok: false, error: "hyperfine exported no user and system times" };
  // Nanosecond resolution is all the clock gives; more digits are float noise.
  return { ok: true, wallMs: times.map((seconds) => Math.round(seconds * 1e9) / 1e6), cpuS: Math.round(cpuS * 1e6) / 1e6 };
}
