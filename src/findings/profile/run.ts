import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../../process/children.ts";
import type { ResultDocument } from "../../results/types.ts";
import { provision } from "../../runtimes/provision.ts";
import { EXTRA_FLAGS_VARIABLE, type ReproFolder } from "../repro/write.ts";
import { parseCpuProfile, topFunctions, type FunctionTime } from "./cpuprofile.ts";

const PROFILE_TIMEOUT_MS = 10 * 60_000;
/** Functions kept per runtime. */
const TOP = 15;
/** Where a reproduction folder keeps its profiles, and the file that sums them up. */
export const PROFILES_SUBDIR = "profiles";
export const PROFILE_SUMMARY = "summary.json";

/** One runtime's profile of a cell: its top functions by self time, or why there is none. */
export interface RuntimeProfile {
  runtime: string;
  version: string;
  /** The line the reproduction printed: its headline figure under the profiler. */
  figure: string | null;
  /** The .cpuprofile files, relative to the profiles folder. */
  files: string[];
  top: FunctionTime[];
  unavailable?: string;
}

/** The binary that measured a result: the same registry version, or the same path for a build given by path. */
function specOf(doc: ResultDocument): string {
  return doc.runtime.source === "registry" ? `${doc.runtime.name}@${doc.runtime.version}` : doc.runtime.spec;
}

async function profileOne(doc: ResultDocument, script: string, profilesDir: string): Promise<RuntimeProfile> {
  const folder = `${doc.runtime.name}-${doc.runtime.version}`;
  const dir = join(profilesDir, folder);
  const base = { runtime: doc.runtime.name, version: doc.runtime.version, figure: null, files: [], top: [] };
  const binary = (await provision(specOf(doc))).binary;
  const result = await runCommand(script, [binary], { env: { ...process.env, [EXTRA_FLAGS_VARIABLE]: `--cpu-prof --cpu-prof-dir=${dir}` }, timeoutMs: PROFILE_TIMEOUT_MS });
  if (result.code !== 0) {
    // Some versions crash under the profiler (Deno 2.1.4 panics): its first line says why, the backtrace does not.
    const why = result.timedOut ? "timed out" : `exit ${result.code ?? result.signal}`;
    const first = result.stderr.split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
    return { ...base, unavailable: `${doc.runtime.name} ${doc.runtime.version} failed under --cpu-prof (${why})${first ? `: ${first.slice(0, 200)}` : ""}` };
  }
  const figure = result.stdout.trim().split("\n").pop() ?? null;
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort() : [];
  // A runtime without --cpu-prof (older Bun) runs the reproduction all the same and writes nothing.
  if (files.length === 0) return { ...base, figure, unavailable: `${doc.runtime.name} ${doc.runtime.version} wrote no CPU profile with --cpu-prof` };
  const profiles = files.map((file) => parseCpuProfile(readFileSync(join(dir, file), "utf8"), join(dir, file)));
  return { ...base, figure, files: files.map((file) => `${folder}/${file}`), top: topFunctions(profiles, TOP) };
}

/** Runs each runtime's script of a reproduction under its CPU profiler; writes the profiles and their summary beside it. */
export async function profileReproduction(folder: ReproFolder, note: (line: string) => void): Promise<RuntimeProfile[]> {
  const profilesDir = join(folder.dir, PROFILES_SUBDIR);
  mkdirSync(profilesDir, { recursive: true });
  const profiles: RuntimeProfile[] = [];
  for (const { doc, file } of folder.scripts) {
    note(`profiling ${doc.runtime.name}@${doc.runtime.version}`);
    profiles.push(await profileOne(doc, file, profilesDir));
  }
  writeFileSync(join(profilesDir, PROFILE_SUMMARY), `${JSON.stringify(profiles, null, 2)}\n`);
  return profiles;
}
