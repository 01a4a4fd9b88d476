/**
 * `scripts/docs`: regenerates docs/measurements.md and the README's figures table from
 * docs/measurements.json, and the README's picture from data/'s chained trends, drawn as the site
 * build draws it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_DATA_DIR, REPO_ROOT } from "../../src/core/paths.ts";
import { chainedTrends } from "../../src/regressions/chains.ts";
import { readIndexedDocuments } from "../../src/results/run-index.ts";
import { historyPicture } from "../../src/site/picture.ts";
import { README_PICTURE, writeGeneratedDocs } from "./measurements.ts";

writeGeneratedDocs();
const picture = historyPicture(chainedTrends(readIndexedDocuments(DEFAULT_DATA_DIR)));
if (picture !== null) {
  writeFileSync(join(REPO_ROOT, README_PICTURE), `${picture}\n`);
  process.stderr.write(`drew ${README_PICTURE} from data/\n`);
}
