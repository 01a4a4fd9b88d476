import { existsSync } from "node:fs";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { compareResults } from "../../compare/compare.ts";
import { compareMarkdown, compareTable } from "../../compare/format.ts";
import { minEffectSetting } from "../../compare/noise.ts";
import { readIndexedDocuments } from "../../results/run-index.ts";
import { readDocuments } from "../../results/store.ts";
import { defineCommand } from "../command.ts";

export const compareCommand = defineCommand({
  name: "compare",
  summary: "Compare two sets of results (HEAD against BASE): ratio of medians, its 95 % interval, and a verdict that must beat the noise.",
  usage: "compare BASE HEAD [--json | --markdown] [--min-effect PCT] [--history DIR]",
  help: [
    "  BASE, HEAD        result files or folders; matched by suite, scenario (and its version), app, load parameters and metric",
    "  --json            print the rows as JSON",
    "  --markdown        print a table for a GitHub job summary or pull-request comment",
    "  --min-effect PCT  the change a verdict needs where a series has too little history (or RUNTIME_BENCH_MIN_EFFECT);",
    "                    default: the run-to-run shift of the suite on that kind of machine (docs/methodology.md, 'Verdicts without history')",
    "  --history DIR     results from which each series' noise floor is measured (default: data/, when it exists)",
    "",
    "A verdict of 'faster' or 'slower' needs the 95 % interval of HEAD/BASE to exclude 1 and the change to exceed",
    "the series' noise floor (without history: the run-to-run shift, or --min-effect). A change within the shift,",
    "or a side with fewer than 2 trials, is 'inconclusive', with the reason. Results from different machines are",
    "'not comparable'.",
  ],
  options: {
    json: { type: "boolean" },
    markdown: { type: "boolean" },
    "min-effect": { type: "string" },
    history: { type: "string" },
  },
  allowPositionals: true,
  async run(values, positionals) {
    if (positionals.length !== 2) throw new UserError("compare: give exactly two paths, BASE and HEAD (see scripts/bench compare --help)");
    if (values.json && values.markdown) throw new UserError("compare: choose one of --json and --markdown");
    const minEffect = minEffectSetting(values["min-effect"]);
    const [basePath, headPath] = positionals as [string, string];
    const base = readDocuments([basePath], "BASE");
    const head = readDocuments([headPath], "HEAD");
    const historyDir = values.history ?? (existsSync(DEFAULT_DATA_DIR) ? DEFAULT_DATA_DIR : null);
    const history = historyDir === null ? [] : readIndexedDocuments(historyDir);
    const rows = compareResults(base, head, { history, defaultMinEffect: minEffect });
    if (rows.length === 0) throw new UserError(`compare: no ok result in ${basePath} matches one in ${headPath} (same suite, scenario version, app, params and metric)`);
    const output = values.json ? JSON.stringify(rows, null, 2) : values.markdown ? compareMarkdown(rows) : compareTable(rows);
    process.stdout.write(`${output}\n`);
    return 0;
  },
});
