import assert from "node:assert/strict";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ESLint } from "eslint";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { ownTempDir } from "../helpers/temp.ts";

/**
 * The one-way imports of DEVELOPERS.md, checked by eslint.config.js: scratch files are written
 * into a temporary copy of the config's scope (the repository is never touched) and linted with
 * that copy's config, as scripts/test lints the real tree.
 */
const scope = ownTempDir("rb-lint-");
// package.json too: it makes eslint.config.js an ES module.
for (const file of ["package.json", "eslint.config.js"]) cpSync(join(REPO_ROOT, file), join(scope, file));
cpSync(join(REPO_ROOT, "src"), join(scope, "src"), { recursive: true });
cpSync(join(REPO_ROOT, "site", "src"), join(scope, "site", "src"), { recursive: true });
symlinkSync(join(REPO_ROOT, "node_modules"), join(scope, "node_modules"));
const eslint = new ESLint({ cwd: scope });

/** The rule id and message of every problem ESLint reports in a scratch file. */
async function lintScratch(path: string, text: string): Promise<{ ruleId: string | null; message: string }[]> {
  const file = join(scope, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const [result] = await eslint.lintFiles([path]);
  return result!.messages.map(({ ruleId, message }) => ({ ruleId, message }));
}

test("an upward import (src/core/ importing src/suites/) fails the lint, naming the rule", async () => {
  const problems = await lintScratch("src/core/scratch-upward.ts", 'import { TrialFailure } from "../suites/suite.ts";\nexport const failure = TrialFailure;\n');
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.equal(problems[0]!.ruleId, "no-restricted-imports");
  assert.match(problems[0]!.message, /src\/core\/ may import only lower layers/);
});

test("the same import downward (src/suites/ importing src/core/) passes", async () => {
  const problems = await lintScratch("src/suites/scratch-downward.ts", 'import { UserError } from "../core/errors.ts";\nexport const error = UserError;\n');
  assert.deepEqual(problems, []);
});

test("a file two folders down (src/suites/http/) may import a lower layer but not a higher one", async () => {
  const problems = await lintScratch(
    "src/suites/http/scratch-deep.ts",
    'import { appOption } from "../../apps/manifest.ts";\nimport { executeRun } from "../../orchestrate/execute.ts";\nexport const both = [appOption, executeRun];\n',
  );
  assert.deepEqual(
    problems.map((p) => p.ruleId),
    ["no-restricted-imports"],
  );
  assert.match(problems[0]!.message, /src\/suites\/ may import only lower layers/);
});

test("src/site/ never imports src/suites/, though suites sit below it", async () => {
  const problems = await lintScratch("src/site/scratch-suites.ts", 'import { SUITES } from "../suites/index.ts";\nexport const suites = SUITES;\n');
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.match(problems[0]!.message, /src\/site\/ never imports src\/suites\//);
});

test("a shared tool imports no app code by value; types are free", async () => {
  const value = await lintScratch("src/tools/scratch-app-value.ts", 'import { USERS } from "../../apps/database/shared/data.js";\nexport const users = USERS;\n');
  assert.equal(value.length, 1, JSON.stringify(value));
  assert.match(value[0]!.message, /only a suite imports its apps' code/);
  const types = await lintScratch("src/tools/scratch-app-type.ts", 'import type { UserRow } from "../../apps/database/shared/data.js";\nexport type Row = UserRow;\n');
  assert.deepEqual(types, []);
});

test("the browser bundle reaches no Node import and no module outside BROWSER_SAFE", async () => {
  const browser = await lintScratch(
    "site/src/scratch-browser.ts",
    'import { readFileSync } from "node:fs";\nimport { RUNTIMES } from "../../src/runtimes/catalog.ts";\nimport type { RuntimeName } from "../../src/runtimes/catalog.ts";\nimport { formatTable } from "../../src/ui/table.ts";\nexport const used = [readFileSync, RUNTIMES, formatTable];\nexport type Name = RuntimeName;\n',
  );
  assert.deepEqual(
    browser.map((p) => p.message.split(" ")[0]),
    ["'node:fs'", "'../../src/runtimes/catalog.ts'"],
  );
  // A module the bundle reaches is held to the same: here src/ui/table.ts gains a Node import.
  const reached = await lintScratch("src/ui/table.ts", 'import { platform } from "node:os";\nexport const where = platform();\n');
  assert.equal(reached.length, 1, JSON.stringify(reached));
  assert.match(reached[0]!.message, /browser bundle reaches this module: no Node imports/);
});

test("a function over 100 lines fails the lint; blank lines and comments do not count", async () => {
  const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  total += ${i};`).join("\n");
  // The signature, `let`, 96 statements, the return and the closing brace: 100 lines, with comments and blank lines between.
  const padded = Array.from({ length: 96 }, (_, i) => `  total += ${i};\n\n  // why, not what`).join("\n");
  const within = await lintScratch("src/core/scratch-long-ok.ts", `export function within(): number {\n  let total = 0;\n${padded}\n  return total;\n}\n`);
  assert.deepEqual(within, []);
  const over = await lintScratch("benchmarks/scratch-long.ts", `export function over(): number {\n  let total = 0;\n${body(97)}\n  return total;\n}\n`);
  assert.equal(over.length, 1, JSON.stringify(over));
  assert.equal(over[0]!.ruleId, "max-lines-per-function");
  assert.match(over[0]!.message, /too many lines \(101\)\. Maximum allowed is 100/);
});
