import { resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { collectResults } from "../../collect/collect.ts";
import { count } from "../../ui/words.ts";
import { defineCommand } from "../command.ts";

export const collectCommand = defineCommand({
  name: "collect",
  summary: "Check downloaded benchmark artifacts and add their new result files to data/ (never rewriting one).",
  usage: "collect ARTIFACT_DIR... [--data DIR]",
  help: [
    "  ARTIFACT_DIR  folders holding result files in the data/ layout (<runner>/<run id>/<suite>/<scenario>/...)",
    "  --data DIR    the results store to add to (default: data/)",
    "",
    "Every file must match the result schema, come from a dedicated runner measured on a tuned machine",
    "(docs/machine-tuning.md; RUNTIME_BENCH_COLLECT_UNTUNED=1, which scripts/act sets, waives that), and sit where its contents say.",
    "A result already in DIR is skipped; a different file at the same place is a problem. When there is any",
    "problem nothing is written.",
    "",
    "Exit status: 0 when collected (possibly nothing new), 1 when a file has a problem, 2 on bad input.",
  ],
  options: { data: { type: "string" } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length === 0) throw new UserError("collect: name at least one ARTIFACT_DIR (see scripts/bench collect --help)");
    const dataDir = resolve(values.data ?? DEFAULT_DATA_DIR);
    const outcome = await collectResults(positionals, dataDir, { acceptUntuned: process.env.RUNTIME_BENCH_COLLECT_UNTUNED === "1" });
    for (const problem of outcome.problems) process.stderr.write(`${problem}\n`);
    if (outcome.problems.length > 0) {
      process.stderr.write(`runtime-bench: ${count(outcome.problems.length, "problem")} in ${count(outcome.files, "result file")}; nothing collected\n`);
      return 1;
    }
    process.stdout.write(`${count(outcome.added.length, "new result file")} added to ${dataDir}, ${outcome.alreadyPresent} already there (${count(outcome.files, "file")} checked)\n`);
    return 0;
  },
});
