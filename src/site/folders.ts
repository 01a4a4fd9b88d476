/**
 * The site build's two folders: the data it is built from, and the output folder, which a build
 * empties only when an earlier build made it. Kept apart from the build's modules, so that the
 * build can check them and start its parts before it loads the rest (src/site/parts.ts).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UserError } from "../core/errors.ts";

/** Marks a folder as a built site, so a rebuild may empty it and nothing else ever is. */
const SITE_MARKER = ".runtime-bench-site";

/** The data folder, or one clear line when there is none. */
export function checkDataDir(dataDir: string): void {
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) throw new UserError(`${dataDir}: no such data folder (run scripts/bench first, or pass --data DIR)`);
}

/** Refuses an output folder that holds anything but an earlier build, or that a file stands in the way of. */
export function checkOutDir(outDir: string): void {
  let nearest = outDir;
  while (!existsSync(nearest) && dirname(nearest) !== nearest) nearest = dirname(nearest);
  if (!statSync(nearest).isDirectory()) throw new UserError(`--out ${outDir}: a file is in the way`);
  const entries = existsSync(outDir) ? readdirSync(outDir) : [];
  if (entries.length > 0 && !entries.includes(SITE_MARKER)) throw new UserError(`${outDir}: not empty and not a site built by runtime-bench; choose another --out`);
}

/** Empties the output folder (checked by `checkOutDir`). */
export async function prepareOutDir(outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  // GitHub Pages would otherwise run Jekyll, which drops files whose names start with "_".
  await Promise.all([writeFile(join(outDir, SITE_MARKER), ""), writeFile(join(outDir, ".nojekyll"), "")]);
}
