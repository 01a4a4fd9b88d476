import { createHash } from "node:crypto";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { build, type Message, type Plugin } from "esbuild";
import { REPO_ROOT } from "../core/paths.ts";

/** The browser source: page templates, styles and scripts, bundled into `<out>/assets/` at build time. */
export const SITE_SOURCE_DIR = join(REPO_ROOT, "site");

const HARNESS_SOURCE = join(REPO_ROOT, "src") + "/";

/**
 * The pages import harness modules (src/compare, src/site, src/ui) so that they compute exactly
 * what the CLI does. Some of those modules also hold Node-only functions the pages never call;
 * declaring the harness's modules free of import-time effects lets the bundler drop those, and
 * Node's built-in modules become empty stand-ins that only such dropped code refers to.
 */
const harnessInTheBrowser: Plugin = {
  name: "harness-in-the-browser",
  setup(bundler) {
    bundler.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: "node-builtin", sideEffects: false }));
    bundler.onLoad({ filter: /.*/, namespace: "node-builtin" }, () => ({ contents: "module.exports = {};", loader: "js" }));
    bundler.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      return path.startsWith(HARNESS_SOURCE) ? { path, sideEffects: false } : undefined;
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
      plugins: [harnessInTheBrowser],
      outdir: assets,
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
