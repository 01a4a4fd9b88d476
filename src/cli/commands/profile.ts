import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { parseCpuProfile, topFunctions, type FunctionTime } from "../../findings/profile/cpuprofile.ts";
import { reproducedCell } from "../../findings/repro/select.ts";
import { EXTRA_FLAGS_VARIABLE, writeReproduction } from "../../findings/repro/write.ts";
import { runCommand, tail } from "../../process/children.ts";
import { readDocuments } from "../../results/store.ts";
import type { ResultDocument } from "../../results/types.ts";
import { provision } from "../../runtimes/provision.ts";
import { formatTable } from "../../ui/table.ts";
import { defineCommand } from "../command.ts";
import { defaultReproDir } from "./repro.ts";

const PROFILE_TIMEOUT_MS = 10 * 60_000;
/** Functions listed per runtime. */
const TOP = 15;

/** One runtime's profile of the cell: its top functions, or why there is none. */
export interface RuntimeProfile {
  runtime: string;
  version: string;
  figure: string | null;
  files: string[];
  top: FunctionTime[];
  unavailable?: string;
}

/** The binary that measured a result: the same registry version, or the same path for a build given by path. */
function specOf(doc: ResultDocument): string {
  return doc.runtime.source === "registry" ? `${doc.runtime.name}@${doc.runtime.version}` : doc.runtime.spec;
}

async function profileOne(doc: ResultDocument, script: string, dir: string): Promise<RuntimeProfile> {
  const base = { runtime: doc.runtime.name, version: doc.runtime.version, figure: null, files: [], top: [] };
  const binary = (await provision(specOf(doc))).binary;
  const result = await runCommand(script, [binary], {
    env: { ...process.env, [EXTRA_FLAGS_VARIABLE]: `--cpu-prof --cpu-prof-dir=${dir}` },
    timeoutMs: PROFILE_TIMEOUT_MS,
  });
  if (result.code !== 0) return { ...base, unavailable: `the reproduction failed (${result.timedOut ? "timed out" : `exit ${result.code ?? result.signal}`}): ${tail(result.stderr, 3)}` };
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).map((f) => join(dir, f)) : [];
  const figure = result.stdout.trim().split("\n").pop() ?? null;
  if (files.length === 0) return { ...base, figure, unavailable: `${doc.runtime.name} ${doc.runtime.version} wrote no CPU profile with --cpu-prof` };
  return { ...base, figure, files, top: topFunctions(files.map((file) => parseCpuProfile(readFileSync(file, "utf8"), file)), TOP) };
}

function sideBySide(profiles: readonly RuntimeProfile[]): string {
  const header = profiles.flatMap((p) => [`${p.runtime}@${p.version}: function`, "self ms", "%"]);
  const rows = Array.from({ length: Math.max(0, ...profiles.map((p) => p.top.length)) }, (_, i) =>
    profiles.flatMap((p) => {
      const f = p.top[i];
      return f ? [f.name.slice(0, 60), f.self_ms.toFixed(1), (f.share * 100).toFixed(1)] : ["", "", ""];
    }),
  );
  return formatTable(header, rows);
}

export const profileCommand = defineCommand({
  name: "profile",
  summary: "Run one cell again under each runtime's CPU profiler (--cpu-prof), keep the profiles and print the top functions side by side.",
  usage: "profile RESULT... [--out DIR]",
  help: [
    "  RESULT     result files of one cell, one per runtime version (e.g. the runtimes of a finding, or both versions of a regression)",
    "  --out DIR  where the reproduction and its profiles/ go (default: ./repro-<cell>)",
    "",
    "The cell runs through its standalone reproduction (scripts/bench repro), with the runtime binary that measured it. The",
    ".cpuprofile files open in Chrome DevTools and speedscope; profiles/summary.json has the tables.",
  ],
  options: { out: { type: "string" } },
  allowPositionals: true,
  async run(values, positionals) {
    const { selected, docs } = reproducedCell(readDocuments(positionals, "profile"), "profile");
    const folder = writeReproduction(selected, docs, resolve(values.out ?? defaultReproDir(docs[0]!)));
    const profiles: RuntimeProfile[] = [];
    for (const { doc, file } of folder.scripts) {
      process.stderr.write(`runtime-bench: profiling ${doc.runtime.name}@${doc.runtime.version}\n`);
      profiles.push(await profileOne(doc, file, join(folder.dir, "profiles", `${doc.runtime.name}-${doc.runtime.version}`)));
    }
    mkdirSync(join(folder.dir, "profiles"), { recursive: true });
    writeFileSync(join(folder.dir, "profiles", "summary.json"), `${JSON.stringify(profiles, null, 2)}\n`);
    for (const p of profiles) process.stdout.write(`${p.runtime}@${p.version}: ${p.unavailable ? `unavailable: ${p.unavailable}` : `${p.figure}; ${p.files.length} profile file(s)`}\n`);
    const measured = profiles.filter((p) => p.top.length > 0);
    if (measured.length === 0) throw new UserError("profile: no runtime wrote a CPU profile (see above)");
    process.stdout.write(`\n${sideBySide(measured)}\n\nprofiles and summary.json in ${join(folder.dir, "profiles")}\n`);
    return 0;
  },
});
