import { UserError } from "../../core/errors.ts";
import { DEFAULT_DATA_DIR, DEFAULT_PROFILES_DIR } from "../../core/paths.ts";
import { join, resolve } from "node:path";
import { cellLabel } from "../../compare/format.ts";
import { DEFAULT_THRESHOLDS, findFindings, findingDocs } from "../../findings/detect.ts";
import { findingAnchor, findingsTable } from "../../findings/format.ts";
import { groupFindings, type FindingGroup } from "../../findings/group.ts";
import { profileReproduction } from "../../findings/profile/run.ts";
import { reproducedCell } from "../../findings/repro/select.ts";
import { writeReproduction, type ReproFolder } from "../../findings/repro/write.ts";
import type { ResultDocument } from "../../results/types.ts";
import { suiteFor } from "../../suites/index.ts";
import { profileReport } from "./profile.ts";
import { readIndexedDocuments } from "../../results/run-index.ts";
import { readDocuments } from "../../results/store.ts";
import { defineCommand } from "../command.ts";

function factorOption(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const factor = Number(text);
  if (!Number.isFinite(factor) || factor <= 1) throw new UserError(`findings: --${name} '${text}' is not a factor above 1 (e.g. 3)`);
  return factor;
}

/**
 * The first cell of each finding (its largest gap) whose suite has a reproduction, run again under
 * its runtimes' profilers into `dir/<the cell's anchor>`: one profile shows a cause.
 */
async function profileFindings(groups: readonly FindingGroup[], docs: readonly ResultDocument[], dir: string): Promise<void> {
  const note = (line: string) => process.stderr.write(`runtime-bench: ${line}\n`);
  for (const { representative: finding } of groups) {
    if (!suiteFor(finding.suite).reproduction) {
      note(`${cellLabel(finding)}: the ${finding.suite} suite has no reproduction to profile yet`);
      continue;
    }
    let folder: ReproFolder;
    try {
      const { selected, docs: cell } = reproducedCell(findingDocs(finding, docs), "findings");
      folder = writeReproduction(selected, cell, join(dir, findingAnchor(finding)));
    } catch (error) {
      // A cell its suite cannot reproduce alone (one that needs PostgreSQL) leaves the other findings to profile.
      if (!(error instanceof UserError)) throw error;
      note(`${cellLabel(finding)}: ${error.message}`);
      continue;
    }
    process.stdout.write(`\n${cellLabel(finding)}:\n${profileReport(await profileReproduction(folder, note), folder.dir)}`);
  }
}

export const findingsSubcommand = defineCommand({
  name: "findings",
  summary: "List what a runtime team would want to know: runtimes far off the others on a cell, and releases far off the one before, one line per cause with its cells, largest first.",
  usage: "findings [PATH...] [--json] [--outlier-factor X] [--step-factor X] [--profile [--profiles DIR]]",
  help: [
    "  PATH               result files or folders (default: data/, through its run index)",
    "  --json             print the findings as JSON: one object per cause, its cells in `cells`, largest gap first",
    `  --outlier-factor X a runtime this many times off the others (their geometric mean) on a cell's headline metric (default ${DEFAULT_THRESHOLDS.outlierFactor})`,
    `  --step-factor X    adjacent releases of a series this many times apart (default ${DEFAULT_THRESHOLDS.stepFactor})`,
    "  --profile          also run each finding's first cell again under its runtimes' CPU profilers (scripts/bench profile), into --profiles",
    "  --profiles DIR     where --profile writes, one folder per finding, and where the site looks (default: profiles/)",
    "",
    "Each needs the 95 % interval of its ratio to exclude 1. Each runtime is judged by its newest version on each",
    "machine. The cells of one runtime on one scenario and app that are off the same way for the same reason (far off",
    "the others, or the same release) are one finding, its cells listed largest first. `scripts/bench repro RESULT`",
    "makes a standalone reproduction of one cell.",
  ],
  options: {
    json: { type: "boolean" },
    "outlier-factor": { type: "string" },
    "step-factor": { type: "string" },
    profile: { type: "boolean" },
    profiles: { type: "string" },
  },
  allowPositionals: true,
  async run(values, positionals) {
    const thresholds = {
      outlierFactor: factorOption(values["outlier-factor"], DEFAULT_THRESHOLDS.outlierFactor, "outlier-factor"),
      stepFactor: factorOption(values["step-factor"], DEFAULT_THRESHOLDS.stepFactor, "step-factor"),
    };
    const docs = positionals.length > 0 ? readDocuments(positionals, "findings") : readIndexedDocuments(DEFAULT_DATA_DIR);
    const findings = findFindings(docs, thresholds);
    const groups = groupFindings(findings);
    // The first cell is the representative: printed once, in `cells`.
    if (values.json) process.stdout.write(`${JSON.stringify(groups.map(({ representative, ...group }) => group), null, 2)}\n`);
    else process.stdout.write(findings.length === 0 ? "no findings\n" : `${findingsTable(findings)}\n`);
    if (values.profile) await profileFindings(groups, docs, resolve(values.profiles ?? DEFAULT_PROFILES_DIR));
    return 0;
  },
});
