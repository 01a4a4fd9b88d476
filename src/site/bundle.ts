import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build, type Message, type Plugin } from "esbuild";
import type { Measurements } from "../core/measurements.ts";
import { REPO_ROOT } from "../core/paths.ts";

/** The browser source: page templates, styles and scripts, bundled into `<out>/assets/` at build time. */
export const SITE_SOURCE_DIR = join(REPO_ROOT, "site");

/**
 * The browser takes from docs/measurements.json only what its verdicts use, the run-to-run shifts
 * (src/compare/noise.ts): the rest, mostly prose for the documents, would more than double the
 * compare page's worker.
 */
const measurementsForBrowser: Plugin = {
  name: "measurements-for-browser",
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]docs[\\/]measurements\.json$/ }, async ({ path }) => {
      const { entries } = JSON.parse(await readFile(path, "utf8")) as Measurements;
      return { contents: JSON.stringify({ entries: { "run-to-run-shift": { shifts: entries["run-to-run-shift"].shifts } } }), loader: "json" };
    });
  },
};

function describe(messages: readonly Message[]): string {
  return messages.map((m) => `${m.location ? `${m.location.file}:${m.location.line}: ` : ""}${m.text}`).join("; ");
}

/**
 * Bundles site/src/main.ts (and what it imports, from site/ and src/) into one minified script, the
 * compare page's worker into another, and the stylesheet into one file. Nothing is fetched at run time from anywhere but the site itself.
 * A warning is treated as an error: the bundle is ours, and it must be clean.
 * The harness modules the pages import (src/compare, src/site's model, src/ui/table, src/core/params)
 * import nothing from Node, so the pages compute exactly what the CLI does and a Node import
 * creeping in fails the build.
 * Returns a short hash of both, which the pages append to their URLs, and how many files it wrote.
 */
export async function bundleAssets(outDir: string): Promise<{ version: string; files: number }> {
  const assets = join(outDir, "assets");
  await mkdir(assets, { recursive: true });
  const common = { bundle: true, minify: true, write: false, logLevel: "silent", legalComments: "none" } as const;
  const [scripts, style] = await Promise.all([
    build({
      ...common,
      entryPoints: { site: join(SITE_SOURCE_DIR, "src/main.ts"), "compare-worker": join(SITE_SOURCE_DIR, "src/compare-worker.ts") },
      format: "esm",
      platform: "browser",
      target: ["es2020"],
      outdir: assets,
      plugins: [measurementsForBrowser],
    }),
    build({ ...common, entryPoints: [join(SITE_SOURCE_DIR, "styles.css")], outfile: join(assets, "site.css") }),
  ]);
  const warnings = [...scripts.warnings, ...style.warnings];
  if (warnings.length > 0) throw new Error(`bundling the site's browser code: ${describe(warnings)}`);
  const hash = createHash("sha256");
  const outputs = [...scripts.outputFiles, ...style.outputFiles];
  for (const file of outputs) {
    hash.update(file.contents);
    await writeFile(file.path, file.contents);
  }
  await copyFile(join(SITE_SOURCE_DIR, "icon.svg"), join(assets, "icon.svg"));
  return { version: hash.digest("hex").slice(0, 10), files: outputs.length + 1 };
}
