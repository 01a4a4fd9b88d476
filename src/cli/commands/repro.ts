import { resolve } from "node:path";
import { paramsSlug } from "../../core/params.ts";
import { reproducedCell } from "../../findings/repro/select.ts";
import { writeReproduction, type ReproFolder } from "../../findings/repro/write.ts";
import { readDocuments } from "../../results/store.ts";
import type { ResultDocument } from "../../results/types.ts";
import { defineCommand } from "../command.ts";

/** `repro-workers-throughput-worker-threads-payload-bytes-…`: a folder named after its cell. */
export function defaultReproDir(doc: ResultDocument): string {
  return resolve(["repro", doc.suite, doc.scenario, doc.app ?? "", paramsSlug(doc.params)].filter(Boolean).join("-").replace(/[^A-Za-z0-9._-]+/g, "-"));
}

/** The reproduction of the cell the result files at `paths` measured, written to `out` or the cell's own folder: what repro and profile start from. */
export function writeCellReproduction(paths: readonly string[], out: string | undefined, command: string): ReproFolder {
  const { selected, docs } = reproducedCell(readDocuments(paths, command), command);
  return writeReproduction(selected, docs, resolve(out ?? defaultReproDir(docs[0]!)));
}

export const reproSubcommand = defineCommand({
  name: "repro",
  summary: "Write a standalone reproduction of one cell: the app's and scenario's files and one script per runtime that runs it with the plain runtime binary.",
  usage: "repro RESULT... [--out DIR]",
  help: [
    "  RESULT     result files of one cell (suite, scenario, app, load point), one per runtime version to reproduce",
    "  --out DIR  where the folder goes (default: ./repro-<suite>-<scenario>-<app>-<load point>)",
    "",
    "The folder's README.md has the figures runtime-bench measured and the commands; each run-<runtime>-<version>.sh",
    "prints the same headline figure and the version that ran. `scripts/bench findings` lists cells worth reproducing.",
  ],
  options: { out: { type: "string" } },
  allowPositionals: true,
  async run(values, positionals) {
    const folder = writeCellReproduction(positionals, values.out, "repro");
    process.stdout.write(`reproduction written to ${folder.dir}\n${folder.scripts.map((s) => `  ${s.file} [path/to/${s.doc.runtime.name}]`).join("\n")}\n`);
    return 0;
  },
});
