import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { cellLabel } from "../../compare/format.ts";
import { UserError } from "../../core/errors.ts";
import { escapeMarkdown, shellComment } from "../../core/markup.ts";
import { REPO_ROOT } from "../../core/paths.ts";
import type { ResultDocument } from "../../results/types.ts";
import { RUNTIMES } from "../../runtimes/catalog.ts";
import type { ResolvedScenario } from "../../suites/resolve.ts";
import type { Reproduction } from "../../suites/suite.ts";
import { shellQuote } from "../../tools/hyperfine.ts";
import { formatNumber } from "../../ui/table.ts";

const FIGURE_SCRIPT = fileURLToPath(new URL("./figure.mjs", import.meta.url));
const SERVE_SCRIPT = fileURLToPath(new URL("./serve.mjs", import.meta.url));
/** Where a script's extra runtime flags go (`scripts/bench profile` passes the profiler's here). */
export const EXTRA_FLAGS_VARIABLE = "RUNTIME_EXTRA_FLAGS";

/** One runtime's script in a reproduction folder. */
export interface ReproScript {
  readonly doc: ResultDocument;
  readonly file: string;
}

export interface ReproFolder {
  readonly dir: string;
  readonly scripts: readonly ReproScript[];
}

/** What is copied of the app: its sources, never installed packages or build output (the README says how to install them). */
const copied = (source: string) => !/\/(node_modules|\.next|dist)(\/|$)/.test(source);

const scriptName = (doc: ResultDocument) => `run-${doc.runtime.name}-${doc.runtime.version}.sh`.replace(/[^A-Za-z0-9._-]/g, "_");

const FLAGS_MARKER = "@EXTRA@";

/**
 * The runtime's command line for a script file and its arguments, each already a shell word. The
 * extra flags' variable stands where the runtime's flags go; a file in the folder is `"$here/…"`.
 */
function runtimeLine(doc: ResultDocument, flags: readonly string[], file: string, args: readonly string[]): string {
  const argv = RUNTIMES[doc.runtime.name].scriptArgs([...flags, FLAGS_MARKER], file);
  const word = (arg: string) => (arg === FLAGS_MARKER ? `\${${EXTRA_FLAGS_VARIABLE}:-}` : arg === file && file.startsWith("$here/") ? `"${file}"` : shellQuote(arg));
  return ['"$bin"', ...argv.map(word), ...args].join(" ");
}

/** The runtime's command line that runs figure.mjs (Deno needs to be let read the report). */
function figureCommand(doc: ResultDocument, kind: string, file: string, spec: object): string {
  const flags = doc.runtime.name === "deno" ? ["--allow-read"] : [];
  return runtimeLine(doc, flags, `$here/${basename(FIGURE_SCRIPT)}`, [kind, `"${file}"`, shellQuote(JSON.stringify(spec))]).replace(` \${${EXTRA_FLAGS_VARIABLE}:-}`, "");
}

function header(doc: ResultDocument, cell: string): string[] {
  const { name, version } = doc.runtime;
  const env = Object.entries(RUNTIMES[name].env).map(([key, value]) => `export ${key}=${shellQuote(value)}`);
  return [
    "#!/usr/bin/env bash",
    // The cell's label holds the result's parameters: a comment, so one line whatever they hold.
    shellComment(`${cell} on ${name}, as runtime-bench measured it on ${name} ${version} (README.md has the figures).`),
    `# Usage: ./${scriptName(doc)} [path/to/${name}]   (default: ${name} on PATH)`,
    "set -euo pipefail",
    'here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
    `bin="\${1:-${name}}"`,
    `command -v "$bin" >/dev/null 2>&1 || { echo "${name} not found: give its binary as the first argument" >&2; exit 2; }`,
    'work="$(mktemp -d)"',
    // Deno keeps its compile cache in DENO_DIR: a fresh one, as the harness gives every run.
    'export DENO_DIR="$work/deno-dir"',
    ...env,
  ];
}

function inProcessScript(doc: ResultDocument, repro: Extract<Reproduction, { kind: "in-process" }>, cell: string): string {
  const appDir = relative(REPO_ROOT, repro.appDir);
  return [
    ...header(doc, cell),
    "trap 'rm -rf \"$work\"' EXIT",
    // The app's input, as the harness gave it (input.json), with the work folder filled in.
    'export RUNTIME_BENCH_INPUT="$(sed "s|@WORK@|$work|" "$here/input.json")"',
    'export RUNTIME_BENCH_REPORT="$work/report.json"',
    `(cd "$here/${appDir}" && ${runtimeLine(doc, repro.flags, repro.entry, [])})`,
    figureCommand(doc, "in-process", "$work/report.json", repro.figure),
    "",
  ].join("\n");
}

function serverScript(doc: ResultDocument, repro: Extract<Reproduction, { kind: "server" }>, cell: string): string {
  const appDir = relative(REPO_ROOT, repro.appDir);
  // The address is known only when the script runs: that argument is double-quoted, so $port expands.
  const word = (arg: string) => (arg.startsWith("{url}") ? `"http://127.0.0.1:$port${arg.slice(5).replace(/["$`\\]/g, "\\$&")}"` : shellQuote(arg));
  const ohaLine = (args: readonly string[], out: string) => `oha ${args.map(word).join(" ")} > "${out}"`;
  const env = Object.entries(repro.env).map(([key, path]) => `${key}="$here/${relative(REPO_ROOT, path)}"`);
  return [
    ...header(doc, cell),
    'command -v oha >/dev/null 2>&1 || { echo "this reproduction drives load with oha (cargo install oha), which is not on PATH" >&2; exit 2; }',
    'port="${PORT:-18080}"',
    `(cd "$here/${appDir}" && exec env ${['PORT="$port"', "HOST=127.0.0.1", ...env].join(" ")} ${runtimeLine(doc, repro.flags, `$here/${basename(SERVE_SCRIPT)}`, [shellQuote(repro.entry)])}) &`,
    "server=$!",
    "trap 'kill \"$server\" 2>/dev/null || true; wait \"$server\" 2>/dev/null || true; rm -rf \"$work\"' EXIT",
    'for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; kill -0 "$server" 2>/dev/null || { echo "the server exited before it listened" >&2; exit 1; }; sleep 0.1; done',
    ohaLine(repro.load.warmupArgs, "/dev/null"),
    ohaLine(repro.load.args, "$work/oha.json"),
    figureCommand(doc, "server", "$work/oha.json", { metric: repro.load.metric, unit: repro.load.unit }),
    "",
  ].join("\n");
}

function readme(selected: ResolvedScenario, docs: readonly ResultDocument[], cell: string, repros: readonly Reproduction[]): string {
  const metric = Object.keys(docs[0]!.metrics)[0];
  const rows = docs.map((doc) => {
    const m = metric ? doc.metrics[metric] : undefined;
    const figure = m ? `${formatNumber(m.median)} ${escapeMarkdown(m.unit)}` : doc.status;
    const interval = m ? `${formatNumber(m.ci95[0])}–${formatNumber(m.ci95[1])}` : "";
    return `| ${doc.runtime.name} ${doc.runtime.version} | ${figure} | ${interval} | \`./${scriptName(doc)}\` |`;
  });
  const env = docs[0]!.environment;
  const needsPackages = repros.some((repro) => existsSync(join(repro.appDir, "package.json")));
  return [
    `# ${escapeMarkdown(cell)}`,
    "",
    selected.scenario.manifest.description,
    "",
    `What runtime-bench measured (${metric ?? "no metric"}, median and its 95 % interval; run ${docs[0]!.run.id} on \`${docs[0]!.run.runner}\`, ${escapeMarkdown(env.cpu_model)}, ${env.cpus} CPUs, ${docs[0]!.run.profile} profile):`,
    "",
    "| runtime | median | 95 % interval | reproduce |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    "## Run it",
    "",
    "Each script runs the app with the plain runtime binary (no harness) and prints the same headline figure and the",
    "version that ran. Give the binary as the first argument, or put it on PATH:",
    "",
    "```sh",
    ...docs.map((doc) => `./${scriptName(doc)} /path/to/${doc.runtime.name}`),
    "```",
    "",
    repros[0]!.kind === "server"
      ? "The load comes from [oha](https://github.com/hatoo/oha) (`cargo install oha`), with the arguments the harness gives it, against the server on 127.0.0.1 (PORT, default 18080)."
      : "The app speaks runtime-bench's in-process protocol (`apps/inprocess/protocol.js`): its input is `input.json`, its report a JSON file the script reads.",
    ...(needsPackages ? ["", "The app has packages of its own: run `npm ci` in its folder first."] : []),
    "",
    `The harness measured ${docs[0]!.run.trials} trials, each in a fresh process, and verified each answer; a script runs one. Figures from`,
    "a different machine differ; the gap between runtimes is what should reproduce.",
    "",
  ].join("\n");
}

/**
 * A standalone reproduction of one cell on each runtime of `docs` (all results of that cell): the
 * app's and scenario's files, one script per runtime, and a README with what the project measured.
 */
export function writeReproduction(selected: ResolvedScenario, docs: readonly ResultDocument[], outDir: string): ReproFolder {
  const { suite, scenario } = selected;
  if (!suite.reproduction) throw new UserError(`repro: the ${suite.name} suite has no standalone reproduction yet`);
  const cell = cellLabel(docs[0]!);
  const repros = docs.map((doc) => suite.reproduction!(scenario, doc));
  mkdirSync(outDir, { recursive: true });
  for (const folder of new Set(repros.flatMap((repro) => repro.folders))) {
    if (existsSync(folder)) cpSync(folder, join(outDir, relative(REPO_ROOT, folder)), { recursive: true, filter: copied });
  }
  copyFileSync(join(scenario.dir, "scenario.json"), join(outDir, "scenario.json"));
  const servers = repros.some((repro) => repro.kind === "server");
  for (const script of servers ? [FIGURE_SCRIPT, SERVE_SCRIPT] : [FIGURE_SCRIPT]) copyFileSync(script, join(outDir, basename(script)));
  const inProcess = repros.find((repro) => repro.kind === "in-process");
  if (inProcess) writeFileSync(join(outDir, "input.json"), `${JSON.stringify({ ...inProcess.input, workDir: "@WORK@" }, null, 2)}\n`);
  const scripts = docs.map((doc, i) => {
    const repro = repros[i]!;
    const file = join(outDir, scriptName(doc));
    writeFileSync(file, repro.kind === "in-process" ? inProcessScript(doc, repro, cell) : serverScript(doc, repro, cell));
    chmodSync(file, 0o755);
    return { doc, file };
  });
  writeFileSync(join(outDir, "README.md"), readme(selected, docs, cell, repros));
  return { dir: outDir, scripts };
}
