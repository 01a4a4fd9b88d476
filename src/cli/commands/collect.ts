import { resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { collectResults, isPlanJob, type CollectTrust } from "../../collect/collect.ts";
import { workflowRunOf } from "../../collect/workflow-run.ts";
import { displayPath, readJsonFile } from "../../core/json-file.ts";
import { BENCH_RUNNERS_FILE, loadBenchMachines } from "../../releases/runners.ts";
import { count } from "../../ui/words.ts";
import { defineCommand } from "../command.ts";
import { declaredMetrics } from "./validate.ts";

export const collectSubcommand = defineCommand({
  name: "collect",
  summary: "Check downloaded benchmark artifacts and add their new result files to data/ (never rewriting one).",
  usage: "collect ARTIFACT_DIR... [--data DIR] [--runners FILE] [--plan FILE --call NAME [--run FILE]]",
  help: [
    "  ARTIFACT_DIR    folders holding result files in the data/ layout (<runner>/<run id>/<suite>/<scenario>/...),",
    "                  with --plan: folders holding one folder per artifact, named as benchmark.yml names them, or,",
    "                  when the run has one artifact, that artifact's contents (download-artifact unpacks it so)",
    "  --data DIR      the results store to add to (default: data/)",
    "  --runners FILE  the dedicated runners and reference testbeds (default: .github/bench-runners.json)",
    "  --plan FILE     the plan job's matrix ({\"include\": [...]}, `releases --json`): each result must be in the",
    "                  artifact of a planned job and claim that job's runner, runtime and version",
    "  --call NAME     the call whose artifacts these are (benchmark.yml's `call`, default run)",
    "  --run FILE      the workflow run as GitHub's API lists it ({\"jobs\": [...], \"artifacts\": [...]}): each artifact must",
    "                  come from the successful upload step named for it, no upload of the call may have failed, and each",
    "                  result's run must have started while its job ran",
    "",
    "Every file must match the result schema and its limits (size, depth, samples, finite numbers), record only its",
    "suite's metrics in their units, come from a dedicated runner listed in the runners file with its",
    "architecture and fingerprint, measured on a tuned machine (docs/machine-tuning.md; RUNTIME_BENCH_COLLECT_UNTUNED=1,",
    "which scripts/act sets, waives that), or from a reference testbed listed there with its architecture and one of",
    "its CPU models (untuned by declaration); be dated no later than now, and sit where its contents say, in a run",
    "folder DIR does not hold yet. A result already in DIR is skipped; a different file at the same place is a problem.",
    "When there is any problem nothing is written; otherwise every new run folder is moved into DIR at once.",
    "",
    "Exit status: 0 when collected (possibly nothing new), 1 when a file has a problem, 2 on bad input.",
  ],
  options: { data: { type: "string" }, runners: { type: "string" }, plan: { type: "string" }, call: { type: "string" }, run: { type: "string" } },
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

function trusted(values: { runners?: string; plan?: string; call?: string; run?: string }): CollectTrust {
  const runners = loadBenchMachines(values.runners === undefined ? BENCH_RUNNERS_FILE : resolve(values.runners));
  const declared = declaredMetrics();
  if (values.plan === undefined) {
    if (values.call !== undefined || values.run !== undefined) throw new UserError("collect: --call and --run name the artifacts of a --plan; give it too");
    return { runners, declared };
  }
  const matrix = readJsonFile(resolve(values.plan)) as { include?: unknown };
  const jobs = matrix.include;
  if (!Array.isArray(jobs) || !jobs.every(isPlanJob)) {
    throw new UserError(`collect: ${displayPath(resolve(values.plan))} is not a plan's matrix: {"include": [{"runner", "runtime", "version", ...}]}`);
  }
  const run = values.run === undefined ? undefined : workflowRunOf(readJsonFile(resolve(values.run)), `collect: ${displayPath(resolve(values.run))}`);
  return { runners, declared, plan: { call: values.call ?? "run", jobs }, ...(run ? { run } : {}) };
}
