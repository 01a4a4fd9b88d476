import { writeFile } from "node:fs/promises";
import { UserError } from "../../core/errors.ts";
import { unwritableReason } from "../../core/json-file.ts";
import { gabEntries, gabTool } from "../../export/gab.ts";
import { readDocuments } from "../../results/store.ts";
import type { Better } from "../../results/types.ts";
import { defineCommand } from "../command.ts";

function parseBetter(value: string | undefined): Better {
  if (value === "higher" || value === "lower") return value;
  throw new UserError(`export: --better must be higher or lower${value === undefined ? "" : `, not '${value}'`} (one file per direction)`);
}

export const exportSubcommand = defineCommand({
  name: "export",
  summary: "Export results for other tools: `gab` writes github-action-benchmark's custom JSON for one direction.",
  usage: "export gab DIR --better higher|lower [--out FILE]",
  help: [
    "  gab DIR           results (files or folders) as github-action-benchmark input: [{name, unit, value, range, extra}]",
    "  --better B        higher (tool: customBiggerIsBetter) or lower (tool: customSmallerIsBetter): one file per direction",
    "  --out FILE        write there instead of stdout",
    "",
    "Names keep series apart (runtime, version line, scenario, app, load parameters, metric, runner); where the",
    "results hold several versions of a line, the newest one's latest run stands for it.",
  ],
  options: {
    better: { type: "string" },
    out: { type: "string" },
  },
  allowPositionals: true,
  async run(values, positionals) {
    const [format, ...paths] = positionals;
    if (format === undefined) throw new UserError("export: give a format and the results: export gab DIR --better higher|lower (see scripts/bench export --help)");
    if (format !== "gab") throw new UserError(`export: unknown format '${format}': the one format is gab (see scripts/bench export --help)`);
    if (paths.length === 0) throw new UserError("export gab: give the results to export (a folder such as data/<runner>/<run id>)");
    const better = parseBetter(values.better);
    const entries = gabEntries(readDocuments(paths, "export gab"), better);
    // An empty array is valid input and tells a workflow there is nothing to chart in this direction.
    if (entries.length === 0) process.stderr.write(`export gab: no ok result has a metric where ${better} is better; writing []\n`);
    const json = `${JSON.stringify(entries, null, 2)}\n`;
    if (values.out === undefined) {
      process.stdout.write(json);
    } else {
      await writeFile(values.out, json).catch((error: unknown) => {
        throw new UserError(`export gab: --out ${values.out}: ${unwritableReason(error)}`);
      });
      process.stderr.write(`${entries.length} benchmarks written to ${values.out} (tool: ${gabTool(better)})\n`);
    }
    return 0;
  },
});
