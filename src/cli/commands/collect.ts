import { resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { collectResults, type CollectTrust } from "../../collect/collect.ts";
import { displayPath, readJsonFile } from "../../core/json-file.ts";
import type { MatrixEntry } from "../../releases/matrix.ts";
import { BENCH_RUNNERS_FILE, loadBenchMachines } from "../../releases/runners.ts";
import { count } from "../../ui/words.ts";
import { defineCommand } from "../command.ts";

export const collectSubcommand = defineCommand({
  name: "collect",
  summary: "Check downloaded benchmark artifacts and add their new result files to data/ (never rewriting one).",
  usage: "collect ARTIFACT_DIR... [--data DIR] [--runners FILE] [--plan FILE --call NAME]",
  help: [
    "  ARTIFACT_DIR    folders holding result files in the data/ layout (<runner>/<run id>/<suite>/<scenario>/...),",
    "                  with --plan: folders holding one folder per artifact, named as benchmark.yml names them",
    "  --data DIR      the results store to add to (default: data/)",
    "  --runners FILE  the dedicated runners and reference testbeds (default: .github/bench-runners.json)",
    "  --plan FILE     the plan job's matrix ({\"include\": [...]}, `releases --json`): each result must be in the",
    "                  artifact of a planned job and claim that job's runner, runtime and version",
    "  --call NAME     the call whose artifacts these are (benchmark.yml's `call`, default run)",
    "",
    "Every file must match the result schema, come from a dedicated runner listed in the runners file with its",
    "architecture and fingerprint, measured on a tuned machine (docs/machine-tuning.md; RUNTIME_BENCH_COLLECT_UNTUNED=1,",
    "which scripts/act sets, waives that), or from a reference testbed listed there with its architecture and one of",
    "its CPU models (untuned by declaration), and sit where its contents say.",
    "A result already in DIR is skipped; a different file at the same place is a problem. When there is any",
    "problem nothing is written.",
    "",
    "Exit status: 0 when collected (possibly nothing new), 1 when a file has a problem, 2 on bad input.",
  ],
  options: { data: { type: "string" }, runners: { type: "string" }, plan: { type: "string" }, call: { type: "string" } },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length === 0) throw new UserError("collect: name at least one ARTIFACT_DIR (see scripts/bench collect --help)");
    const dataDir = resolve(values.data ?? DEFAULT_DATA_DIR);
    const outcome = await collectResults(positionals, dataDir, { ...trusted(values), acceptUntuned: process.env.RUNTIME_BENCH_COLLECT_UNTUNED === "1" });
    for (const problem of outcome.problems) process.stderr.write(`${problem}\n`);
    if (outcome.problems.length > 0) {
      process.stderr.write(`runtime-bench: ${count(outcome.problems.length, "problem")} in ${count(outcome.files, "result file")}; nothing collected\n`);
      return 1;
    }
    process.stdout.write(`${count(outcome.added.length, "new result file")} added to ${dataDir}, ${outcome.alreadyPresent} already there (${count(outcome.files, "file")} checked)\n`);
    return 0;
  },
});

function trusted(values: { runners?: string; plan?: string; call?: string }): CollectTrust {
  const runners = loadBenchMachines(values.runners === undefined ? BENCH_RUNNERS_FILE : resolve(values.runners));
  if (values.plan === undefined) {
    if (values.call !== undefined) throw new UserError("collect: --call names the artifacts of a --plan; give both");
    return { runners };
  }
  const matrix = readJsonFile(resolve(values.plan)) as { include?: unknown };
  const jobs = matrix.include;
  const field = (job: unknown, key: string) => typeof (job as Record<string, unknown> | null)?.[key] === "string";
  if (!Array.isArray(jobs) || !jobs.every((job) => ["runner", "runtime", "version"].every((key) => field(job, key)))) {
    throw new UserError(`collect: ${displayPath(resolve(values.plan))} is not a plan's matrix: {"include": [{"runner", "runtime", "version", ...}]}`);
  }
  return { runners, plan: { call: values.call ?? "run", jobs: jobs as MatrixEntry[] } };
}
