import { existsSync } from "node:fs";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { compareResults } from "../../compare/compare.ts";
import type { CompareOptions, CompareRow, PairedRule } from "../../compare/types.ts";
import { compareMarkdown, compareTable } from "../../compare/format.ts";
import { minEffectSetting } from "../../compare/noise.ts";
import { readIndexedDocuments } from "../../results/run-index.ts";
import { readDocuments, runFolder, runFolderNames } from "../../results/store.ts";
import type { ResultDocument } from "../../results/types.ts";
import { comparePaired, subjectLabel } from "../../compare/paired.ts";
import { explainRows, rowDiffs, syscallDiffSection } from "../../compare/syscall-diff.ts";
import { defineCommand } from "../command.ts";

export const compareSubcommand = defineCommand({
  name: "compare",
  summary: "Compare two sets of results (HEAD against BASE): the ratio, its interval, and a verdict that must beat the noise, with the rule it used.",
  usage: "compare BASE HEAD [--json | --markdown] [--min-effect PCT] [--history DIR]\n       scripts/bench compare RUN --base LABEL --head LABEL [--rule sequential|single-look] [--json | --markdown] [--min-effect PCT]",
  help: [
    "  RUN               a run folder, or a run id found in data/: two subjects of one run compared trial by trial (paired)",
    "  --base, --head    the labels of the two subjects in RUN (scripts/bench run --runtime LABEL=SPEC; derived: node-22.11.0)",
    "  --rule R          how RUN's pairs are judged: single-look (95 %, a one-off question) or sequential (the release",
    "                    job's 0.08 % over its looks); default: sequential for two released versions of one runtime",
    "                    or a canary beside its release, single-look for anything else",
    "  BASE, HEAD        result files or folders; matched by suite, scenario (and its version), app, load parameters and metric",
    "  --json            print the rows as JSON",
    "  --markdown        print a table for a GitHub job summary or pull-request comment",
    "  --min-effect PCT  the change a verdict needs where a series has too little history (or RUNTIME_BENCH_MIN_EFFECT);",
    "                    default: the run-to-run shift of the suite on that kind of machine (docs/methodology.md, 'Verdicts without history')",
    "  --history DIR     results from which each series' noise floor is measured (default: data/, when it exists)",
    "",
    "A verdict of 'faster' or 'slower' needs the interval of HEAD/BASE to exclude 1 and the change to exceed the",
    "minimum effect (separate runs: the series' noise floor, without history the run-to-run shift, or --min-effect;",
    "paired: 1 %). 'No significant change' needs the whole interval within the minimum effect. Anything else is",
    "'inconclusive', with the reason (too few trials or pairs, an interval too wide, a change within the shift).",
    "Results from different machines are 'not comparable'. Each row names its rule and its interval's level.",
  ],
  options: {
    json: { type: "boolean" },
    markdown: { type: "boolean" },
    "min-effect": { type: "string" },
    history: { type: "string" },
    base: { type: "string" },
    head: { type: "string" },
    rule: { type: "string" },
  },
  allowPositionals: true,
  async run(values, positionals) {
    if (values.json && values.markdown) throw new UserError("compare: choose one of --json and --markdown");
    const minEffect = minEffectSetting(values["min-effect"]);
    // Rows of a calls total carry the calls that changed most (src/compare/syscall-diff.ts).
    const print = (rows: CompareRow[], base: readonly ResultDocument[], head: readonly ResultDocument[]) => {
      const diffs = rowDiffs(rows, base, head);
      const section = syscallDiffSection(diffs, values.markdown === true);
      const output = values.json
        ? JSON.stringify(explainRows(rows, base, head), null, 2)
        : [values.markdown ? compareMarkdown(rows) : compareTable(rows), section].filter(Boolean).join("\n\n");
      process.stdout.write(`${output}\n`);
      return 0;
    };
    if (values.base !== undefined || values.head !== undefined) {
      if (values.base === undefined || values.head === undefined || positionals.length !== 1) {
        throw new UserError("compare: a paired comparison takes one RUN and both --base LABEL and --head LABEL (see scripts/bench compare --help)");
      }
      const docs = runDocuments(positionals[0]!);
      return print(pairedRows(positionals[0]!, docs, values.base, values.head, { defaultMinEffect: minEffect, pairedRule: ruleOption(values.rule) }), docs, docs);
    }
    if (values.rule !== undefined) throw new UserError("compare: --rule judges two subjects of one run: give it with RUN --base LABEL --head LABEL");
    if (positionals.length !== 2) throw new UserError("compare: give exactly two paths, BASE and HEAD (see scripts/bench compare --help)");
    const [basePath, headPath] = positionals as [string, string];
    const base = readDocuments([basePath], "BASE");
    const head = readDocuments([headPath], "HEAD");
    const historyDir = values.history ?? (existsSync(DEFAULT_DATA_DIR) ? DEFAULT_DATA_DIR : null);
    const history = historyDir === null ? [] : readIndexedDocuments(historyDir);
    const rows = compareResults(base, head, { history, defaultMinEffect: minEffect });
    if (rows.length === 0) throw new UserError(`compare: no ok result in ${basePath} matches one in ${headPath} (same suite, scenario version, app, params and metric)`);
    return print(rows, base, head);
  },
});

/** A run's results: RUN is a folder, or a run id looked up among data/'s run folders. */
function runDocuments(run: string): ResultDocument[] {
  if (existsSync(run)) return readDocuments([run], "RUN");
  const folder = runFolderNames(DEFAULT_DATA_DIR).find((name) => name.endsWith(`/${run}`));
  if (folder === undefined) throw new UserError(`compare: ${run} is neither a folder nor a run id in ${DEFAULT_DATA_DIR}`);
  const [runner, id] = folder.split("/") as [string, string];
  return readDocuments([runFolder(DEFAULT_DATA_DIR, { runner, id })], "RUN");
}

/** `--rule`: the paired rule to judge by, when given. */
function ruleOption(value: string | undefined): PairedRule | undefined {
  if (value === undefined) return undefined;
  if (value === "sequential" || value === "single-look") return value === "sequential" ? "sequential" : "single look";
  throw new UserError(`compare: --rule must be sequential or single-look, not '${value}'`);
}

function pairedRows(run: string, docs: readonly ResultDocument[], base: string, head: string, options: CompareOptions): CompareRow[] {
  const labels = [...new Set(docs.map(subjectLabel))];
  for (const label of [base, head]) {
    if (!labels.includes(label)) throw new UserError(`compare: no subject labelled '${label}' in ${run} (it has ${labels.join(", ")})`);
  }
  if (base === head) throw new UserError(`compare: --base and --head are both '${base}'`);
  const rows = comparePaired(docs.filter((d) => subjectLabel(d) === base), docs.filter((d) => subjectLabel(d) === head), options);
  if (rows.length === 0) throw new UserError(`compare: ${base} and ${head} have no ok result of the same cell in one run of ${run}`);
  return rows;
}
