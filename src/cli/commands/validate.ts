import { readFileSync } from "node:fs";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { listJsonFiles } from "../../results/read.ts";
import { checkAgainst } from "../../results/schema.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { defineCommand } from "../command.ts";

/** Problems in result files, as `path: /field: message` lines. Read synchronously, as readResults does. */
export function validateResultFiles(paths: readonly string[]): { files: number; problems: string[] } {
  const files = listJsonFiles(paths);
  const problems: string[] = [];
  for (const file of files) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      problems.push(`${file}: not valid JSON`);
      continue;
    }
    problems.push(...checkAgainst("result.schema.json", doc).map((p) => `${file}: ${p}`));
  }
  return { files: files.length, problems };
}

export const validateCommand = defineCommand({
  name: "validate",
  summary: "Check result files against schemas/result.schema.json, and every scenario manifest against its schemas.",
  usage: "validate [PATH...]",
  help: ["  PATH   result files or folders (default: data/)", "", "Exit status: 0 when all is valid, 1 when something is not."],
  options: {},
  allowPositionals: true,
  async run(_values, positionals) {
    const scenarios = selectScenarios({ suites: [], scenarios: [] });
    const { files, problems } = validateResultFiles(positionals.length > 0 ? positionals : [DEFAULT_DATA_DIR]);
    for (const problem of problems) process.stderr.write(`${problem}\n`);
    process.stdout.write(`${scenarios.length} scenario manifests valid; ${files} result files checked, ${problems.length} problems\n`);
    return problems.length > 0 ? 1 : 0;
  },
});
