// ESLint for the harness (src/), the site's browser code (site/src/), benchmarks/ and tests/.
// Not type-aware: the whole lint must stay well under a minute on a 2-core machine.
// The import rules encode DEVELOPERS.md's one-way imports ("Rules"); keep the two in step.
import { readdirSync } from "node:fs";
import { builtinModules } from "node:module";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

/**
 * The folders of src/ from the bottom up: a folder imports only folders of lower layers, never one
 * of its own layer or above. Every folder of src/ must be in exactly one layer.
 */
const LAYERS = [
  ["core"],
  ["process", "stats"],
  ["runtimes"],
  ["tools"],
  ["env"],
  ["results"],
  ["ui"],
  ["compare", "releases", "scenarios"],
  ["regressions", "export", "collect", "apps"],
  ["suites"],
  ["findings", "history"],
  ["site", "orchestrate"],
  ["cli", "act"],
];
/** Imports a layer would allow but the architecture does not: the site is handed its scenarios already described by their suites. */
const NEVER = { site: ["suites"] };
/** Who may import the measured apps' own code (apps/ at the root, e.g. apps/database/shared/data.js): only a suite, which owns its apps. */
const ROOT_APPS_IMPORTERS = ["suites"];

/**
 * Harness modules the browser bundle (site/src/) reaches by value: they import no Node module and,
 * besides JSON data, only each other (type-only imports are erased and free). Add a module here
 * before site/src/ uses it.
 */
const BROWSER_SAFE = [
  "src/compare/compare.ts",
  "src/compare/format.ts",
  "src/compare/moderated.ts",
  "src/compare/noise.ts",
  "src/compare/paired.ts",
  "src/compare/ratio.ts",
  "src/compare/sequential.ts",
  "src/compare/series-key.ts",
  "src/compare/student-t.ts",
  "src/compare/syscall-diff.ts",
  "src/compare/verdict.ts",
  "src/core/errors.ts",
  "src/core/known-changes.ts",
  "src/core/markup.ts",
  "src/core/measurements.ts",
  "src/core/params.ts",
  "src/results/reproduce.ts",
  "src/results/types.ts",
  "src/site/compare-data.ts",
  "src/site/detectable.ts",
  "src/site/downloads.ts",
  "src/site/labels.ts",
  "src/site/model.ts",
  "src/stats/random.ts",
  "src/stats/summary.ts",
  "src/ui/table.ts",
];

const SRC = new URL("./src", import.meta.url);
const FOLDERS = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const layerOf = new Map(LAYERS.flatMap((folders, rank) => folders.map((folder) => [folder, rank])));
const unlayered = FOLDERS.filter((folder) => !layerOf.has(folder));
if (unlayered.length > 0) throw new Error(`eslint.config.js: give src/${unlayered.join(", src/")} a layer in LAYERS`);

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** How many folders below src/ a file is: the `../` its imports of another folder of src/ start with. */
const depthOf = (pathInSrc) => pathInSrc.split("/").length - 1;
const MAX_DEPTH = Math.max(...readdirSync(SRC, { recursive: true }).filter((path) => path.endsWith(".ts")).map(depthOf));

/** The no-restricted-imports patterns of a file of src/<folder>/ at `depth` (1: directly in it). */
function layerPatterns(folder, depth) {
  const up = `(?:\\.\\./){${depth}}`;
  const above = FOLDERS.filter((other) => other !== folder && layerOf.get(other) >= layerOf.get(folder));
  const patterns = [];
  if (above.length > 0) {
    patterns.push({
      regex: `^${up}(?:${above.join("|")})/`,
      message: `src/${folder}/ may import only lower layers (DEVELOPERS.md, "Imports flow one way"; LAYERS in eslint.config.js).`,
    });
  }
  if (NEVER[folder]) {
    patterns.push({
      regex: `^${up}(?:${NEVER[folder].join("|")})/`,
      message: `src/${folder}/ never imports src/${NEVER[folder].join("/, src/")}/ (DEVELOPERS.md, "Imports flow one way"; NEVER in eslint.config.js).`,
    });
  }
  if (!ROOT_APPS_IMPORTERS.includes(folder)) {
    patterns.push({
      regex: `^${up}\\.\\./apps/`,
      allowTypeImports: true,
      message: `only a suite imports its apps' code (apps/ at the root); src/${folder}/ gets it handed in (type imports are free).`,
    });
  }
  return patterns;
}

const layerConfigs = FOLDERS.flatMap((folder) =>
  Array.from({ length: MAX_DEPTH }, (_, i) => ({
    name: `runtime-bench/layers/${folder}/${i + 1}`,
    files: [`src/${folder}/${"*/".repeat(i)}*.ts`],
    ignores: BROWSER_SAFE,
    rules: { "no-restricted-imports": ["error", { patterns: layerPatterns(folder, i + 1) }] },
  })),
);

const browserOnly = (allowed) => ({
  regex: `^(?!(?:${allowed.map(escape).join("|")})$|.*\\.json$)\\.`,
  allowTypeImports: true,
  message: "the site's browser bundle reaches this module: it imports by value only BROWSER_SAFE modules (eslint.config.js).",
});
const nodeFree = [
  { regex: "^node:", allowTypeImports: true, message: "the site's browser bundle reaches this module: no Node imports." },
  { group: builtinModules.filter((name) => !name.startsWith("_")), allowTypeImports: true, message: "the site's browser bundle reaches this module: no Node imports." },
];
const relative = (from, to) => {
  const fromParts = from.split("/").slice(0, -1);
  const toParts = to.split("/");
  let shared = 0;
  while (shared < fromParts.length && fromParts[shared] === toParts[shared]) shared++;
  const up = fromParts.length - shared;
  return (up === 0 ? "./" : "../".repeat(up)) + toParts.slice(shared).join("/");
};

const browserConfigs = BROWSER_SAFE.map((file) => ({
  name: `runtime-bench/browser-safe/${file}`,
  files: [file],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          ...layerPatterns(file.split("/")[1], depthOf(file.slice("src/".length))),
          ...nodeFree,
          browserOnly(BROWSER_SAFE.filter((other) => other !== file).map((other) => relative(file, other))),
        ],
      },
    ],
  },
}));

const siteBrowserConfig = {
  name: "runtime-bench/site-browser",
  files: ["site/src/**/*.ts"],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          ...nodeFree,
          {
            regex: `^(?:\\.\\./)+src/(?!(?:${BROWSER_SAFE.map((file) => escape(file.slice("src/".length))).join("|")})$)`,
            allowTypeImports: true,
            message: "site/src/ is bundled for the browser: it imports by value only BROWSER_SAFE modules of src/ (eslint.config.js).",
          },
        ],
      },
    ],
  },
};

export default defineConfig(
  { name: "runtime-bench/ignores", ignores: ["node_modules/", "data/", "apps/", "tests/fixtures/", "site/templates/", "**/*.js", "**/*.mjs"] },
  {
    name: "runtime-bench/typescript",
    files: ["src/**/*.ts", "site/src/**/*.ts", "benchmarks/**/*.ts", "tests/**/*.ts"],
    extends: [tseslint.configs.recommended],
    rules: {
      // `const { dropped: _x, ...kept } = value` is how the code omits a field.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
  {
    name: "runtime-bench/function-length",
    // The harness's functions, not the tests' describe() blocks, which only group tests.
    files: ["src/**/*.ts", "site/src/**/*.ts", "benchmarks/**/*.ts"],
    rules: {
      // A function over 100 lines is split into named parts (issue 30): a suite's session into its prepare, check and trial modules, a chart into axes, series and handlers.
      "max-lines-per-function": ["error", { max: 100, skipBlankLines: true, skipComments: true }],
    },
  },
  ...layerConfigs,
  ...browserConfigs,
  siteBrowserConfig,
);
