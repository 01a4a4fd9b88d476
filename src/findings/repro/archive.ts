import { basename, join } from "node:path";
import { runCommand, tail } from "../../process/children.ts";
import { withScratchFolder } from "../../process/scratch.ts";
import type { ResultDocument } from "../../results/types.ts";
import { NoReproduction } from "../../core/errors.ts";
import { SUITES } from "../../suites/index.ts";
import { reproducedCell } from "./select.ts";
import { writeReproduction } from "./write.ts";

/**
 * A cell's reproduction packed as `file` (.tar.gz, one folder named after the file), for the site
 * to offer beside a finding; or why there is none, for the site to say.
 */
export async function reproductionArchive(docs: readonly ResultDocument[], file: string): Promise<{ written: true } | { written: false; why: string }> {
  if (docs.length === 0 || !SUITES.find((suite) => suite.name === docs[0]!.suite)?.reproduction) return { written: false, why: "no reproduction for this suite yet" };
  let cell: ReturnType<typeof reproducedCell>;
  try {
    cell = reproducedCell(docs, "site");
  } catch (error) {
    // Results of a scenario this checkout no longer has (or has at another version): no reproduction, not a broken site.
    if (error instanceof NoReproduction) return { written: false, why: error.reason };
    throw error;
  }
  return withScratchFolder("repro", async (scratch) => {
    const name = basename(file).replace(/\.tar\.gz$/, "");
    try {
      writeReproduction(cell.selected, cell.docs, join(scratch, name));
    } catch (error) {
      // A cell its suite cannot reproduce alone (one that needs PostgreSQL): no reproduction, not a broken site.
      if (error instanceof NoReproduction) return { written: false, why: error.reason };
      throw error;
    }
    const packed = await runCommand("tar", ["-czf", file, "-C", scratch, name]);
    if (packed.code !== 0) throw new Error(`tar could not pack ${file}: ${tail(packed.stderr, 3)}`);
    return { written: true };
  });
}
