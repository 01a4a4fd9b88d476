import { join } from "node:path";
import { UserError } from "../../core/errors.ts";
import { PROFILES_SUBDIR, profileReproduction, type RuntimeProfile } from "../../findings/profile/run.ts";
import { formatTable } from "../../ui/table.ts";
import { defineCommand } from "../command.ts";
import { writeCellReproduction } from "./repro.ts";

/** Each runtime's top functions in columns of its own. */
export function sideBySide(profiles: readonly RuntimeProfile[]): string {
  const header = profiles.flatMap((p) => [`${p.runtime}@${p.version}: function`, "self ms", "%"]);
  const rows = Array.from({ length: Math.max(0, ...profiles.map((p) => p.top.length)) }, (_, i) =>
    profiles.flatMap((p) => {
      const f = p.top[i];
      return f ? [f.name.slice(0, 60), f.self_ms.toFixed(1), (f.share * 100).toFixed(1)] : ["", "", ""];
    }),
  );
  return formatTable(header, rows);
}

/** What a profile run says: each runtime's figure or why it has no profile, then the tables. */
export function profileReport(profiles: readonly RuntimeProfile[], dir: string): string {
  const lines = profiles.map((p) => `${p.runtime}@${p.version}: ${p.unavailable ? `unavailable: ${p.unavailable}` : `${p.figure}; ${p.files.length} profile file(s)`}`);
  const measured = profiles.filter((p) => p.top.length > 0);
  if (measured.length === 0) throw new UserError(`profile: no runtime wrote a CPU profile:\n${lines.join("\n")}`);
  return `${lines.join("\n")}\n\n${sideBySide(measured)}\n\nprofiles and summary.json in ${join(dir, PROFILES_SUBDIR)}\n`;
}

export const profileSubcommand = defineCommand({
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
    const folder = writeCellReproduction(positionals, values.out, "profile");
    const profiles = await profileReproduction(folder, (line) => process.stderr.write(`runtime-bench: ${line}\n`));
    process.stdout.write(profileReport(profiles, folder.dir));
    return 0;
  },
});
