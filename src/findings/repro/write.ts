import { chmodSync, copyFileSync, cpSync, existsSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { cellLabel } from "../../compare/format.ts";
import { NoReproduction } from "../../core/errors.ts";
import { makeFolder } from "../../core/json-file.ts";
import { escapeMarkdown, shellComment } from "../../core/markup.ts";
import { REPO_ROOT } from "../../core/paths.ts";
import type { ResultDocument } from "../../results/types.ts";
import { RUNTIMES } from "../../runtimes/catalog.ts";
import type { ResolvedScenario } from "../../suites/resolve.ts";
import { RUNTIME_PLACEHOLDER, type InProcessReproduction, type ProcessReproduction, type Reproduction } from "../../suites/suite.ts";
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

/**
 * What is copied of the app: its sources, never installed packages, build output or what its
 * prepare step makes (the script makes that again; the README says how to install packages).
 */
function copiedFilter(repro: Reproduction): (source: string) => boolean {
  const prepared = repro.prepare ? join(repro.appDir, repro.prepare.creates.split("/")[0]!) : null;
  return (source) => !/\/(node_modules|\.next|dist)(\/|$)/.test(source) && source !== prepared && !source.startsWith(`${prepared}/`);
}

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

/** The runtime's command line for a script of the reproduction's own (`$here/…`), with the permissions Deno needs and never the extra flags. */
function helperCommand(doc: ResultDocument, file: string, args: readonly string[], denoPermissions: readonly string[]): string {
  const flags = doc.runtime.name === "deno" ? denoPermissions : [];
  return runtimeLine(doc, flags, file, args).replace(` \${${EXTRA_FLAGS_VARIABLE}:-}`, "");
}

/** The runtime's command line that runs figure.mjs (Deno needs to be let read the report). */
function figureCommand(doc: ResultDocument, kind: string, file: string, spec: object): string {
  return helperCommand(doc, `$here/${basename(FIGURE_SCRIPT)}`, [kind, `"${file}"`, shellQuote(JSON.stringify(spec))], ["--allow-read"]);
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
    // A path given relative to where the script was started still names the binary once the script changes folder.
    'case "$bin" in */*) bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" ;; esac',
    'work="$(mktemp -d)"',
    // Deno keeps its compile cache in DENO_DIR: a fresh one, as the harness gives every run.
    'export DENO_DIR="$work/deno-dir"',
    ...env,
  ];
}

/** Runs the app folder's prepare step where what it makes is missing, as the harness does once before measuring. */
function prepareLines(repro: Reproduction): string[] {
  if (!repro.prepare) return [];
  const dir = `"$here/${relative(REPO_ROOT, repro.appDir)}"`;
  const [tool] = repro.prepare.command;
  const command = repro.prepare.command.map(shellQuote).join(" ");
  return [
    `if [ ! -e ${dir}/${shellQuote(repro.prepare.creates)} ]; then`,
    `  command -v ${shellQuote(tool!)} >/dev/null 2>&1 || { echo ${shellQuote(`preparing this scenario runs '${repro.prepare.command.join(" ")}', and ${tool} is not on PATH`)} >&2; exit 2; }`,
    `  (cd ${dir} && ${command} >&2)`,
    "fi",
  ];
}

/** The word for a data command's argument: its placeholders become the script's folders. */
const dataWord = (arg: string) =>
  /@(WORK|HERE)@/.test(arg) ? `"${arg.replace(/["$`\\]/g, "\\$&").replace(/@WORK@/g, "$work").replace(/@HERE@/g, "$here")}"` : shellQuote(arg);

/** Makes the app's data, as the harness does before each run. */
function dataLines(doc: ResultDocument, repro: InProcessReproduction): string[] {
  if (!repro.data) return [];
  const { command, stdin } = repro.data;
  const redirect = `${stdin ? ` < "$here/${stdin.file}"` : ""} > /dev/null`;
  if (command[0] === RUNTIME_PLACEHOLDER) return [`${helperCommand(doc, command[1]!.replace("@HERE@", "$here"), command.slice(2).map(dataWord), ["--allow-read", "--allow-write"])}${redirect}`];
  const [tool] = command;
  return [
    `command -v ${shellQuote(tool!)} >/dev/null 2>&1 || { echo ${shellQuote(`this reproduction makes its data with ${tool}, which is not on PATH`)} >&2; exit 2; }`,
    `${command.map(dataWord).join(" ")}${redirect}`,
  ];
}

function processScript(doc: ResultDocument, repro: ProcessReproduction, cell: string): string {
  const appDir = relative(REPO_ROOT, repro.appDir);
  const { warmup, runs } = repro.timing;
  const start = runtimeLine(doc, repro.flags, repro.entry, []);
  return [
    ...header(doc, cell),
    "trap 'rm -rf \"$work\"' EXIT",
    'command -v hyperfine >/dev/null 2>&1 || { echo "this reproduction times starts with hyperfine (apt install hyperfine, or cargo install hyperfine), which is not on PATH" >&2; exit 2; }',
    ...prepareLines(repro),
    `cd "$here/${appDir}"`,
    // The harness checks what one start prints before it times any.
    `printed="$(${start})"`,
    `[ "$printed" = ${shellQuote(repro.expectStdout)} ] || { printf "the program printed '%s', expected '%s'\\n" "$printed" ${shellQuote(repro.expectStdout)} >&2; exit 1; }`,
    // hyperfine splits its command like a POSIX shell and runs it without one (-N), as the harness does.
    `hyperfine -N --style none --warmup ${warmup} --runs ${runs} --export-json "$work/hyperfine.json" "$(printf '%q ' ${start})"`,
    figureCommand(doc, "process", "$work/hyperfine.json", { metric: repro.timing.metric, unit: repro.timing.unit }),
    "",
  ].join("\n");
}

function inProcessScript(doc: ResultDocument, repro: InProcessReproduction, cell: string): string {
  const appDir = relative(REPO_ROOT, repro.appDir);
  return [
    ...header(doc, cell),
    "trap 'rm -rf \"$work\"' EXIT",
    ...prepareLines(repro),
    ...dataLines(doc, repro),
    // The app's input, as the harness gave it (input.json), with the work folder filled in.
    'export RUNTIME_BENCH_INPUT="$(sed "s|@WORK@|$work|g" "$here/input.json")"',
    'export RUNTIME_BENCH_REPORT="$work/report.json"',
    `(cd "$here/${appDir}" && ${runtimeLine(doc, repro.flags, repro.entry, [])})`,
    figureCommand(doc, "in-process", "$work/report.json", { ...repro.figure, ...(repro.digest ? { digest: repro.digest } : {}) }),
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
    ...prepareLines(repro),
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

/** What the README says of how a script measures, by kind of reproduction. */
const HOW_IT_RUNS: Readonly<Record<Reproduction["kind"], string>> = {
  server: "The load comes from [oha](https://github.com/hatoo/oha) (`cargo install oha`), with the arguments the harness gives it, against the server on 127.0.0.1 (PORT, default 18080).",
  "in-process": "The app speaks runtime-bench's in-process protocol (`apps/inprocess/protocol.js`): its input is `input.json`, its report a JSON file the script reads.",
  process:
    "The script checks what one start prints, then times whole starts, exec to exit, with [hyperfine](https://github.com/sharkdp/hyperfine) and the harness's arguments (no shell, `-N`; the profile's warm-up and runs), and prints their median.",
};

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
  const prepare = repros[0]!.prepare;
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
    HOW_IT_RUNS[repros[0]!.kind],
    ...(prepare ? ["", `Before the first run a script makes what the harness prepared once: \`${prepare.command.join(" ")}\` in \`${relative(REPO_ROOT, repros[0]!.appDir)}\`, where \`${prepare.creates}\` is missing.`] : []),
    ...(needsPackages && !prepare ? ["", "The app has packages of its own: run `npm ci` in its folder first."] : []),
    "",
    `The harness measured ${docs[0]!.run.trials} trials, each in a fresh process, and verified each answer; a script runs one. Figures from`,
    "a different machine differ; the gap between runtimes is what should reproduce.",
    "",
  ].join("\n");
}

function scriptOf(doc: ResultDocument, repro: Reproduction, cell: string): string {
  switch (repro.kind) {
    case "in-process":
      return inProcessScript(doc, repro, cell);
    case "server":
      return serverScript(doc, repro, cell);
    case "process":
      return processScript(doc, repro, cell);
  }
}

/**
 * A standalone reproduction of one cell on each runtime of `docs` (all results of that cell): the
 * app's and scenario's files, one script per runtime, and a README with what the project measured.
 */
export function writeReproduction(selected: ResolvedScenario, docs: readonly ResultDocument[], outDir: string): ReproFolder {
  const { suite, scenario } = selected;
  if (!suite.reproduction) throw new NoReproduction(`the ${suite.name} suite has no standalone reproduction yet`);
  const cell = cellLabel(docs[0]!);
  const repros = docs.map((doc) => suite.reproduction!(scenario, doc));
  makeFolder(outDir, "--out");
  const filter = copiedFilter(repros[0]!);
  for (const folder of new Set(repros.flatMap((repro) => repro.folders))) {
    if (existsSync(folder)) cpSync(folder, join(outDir, relative(REPO_ROOT, folder)), { recursive: true, filter });
  }
  copyFileSync(join(scenario.dir, "scenario.json"), join(outDir, "scenario.json"));
  const servers = repros.some((repro) => repro.kind === "server");
  for (const script of servers ? [FIGURE_SCRIPT, SERVE_SCRIPT] : [FIGURE_SCRIPT]) copyFileSync(script, join(outDir, basename(script)));
  const inProcess = repros.find((repro) => repro.kind === "in-process");
  if (inProcess) writeFileSync(join(outDir, "input.json"), `${JSON.stringify({ ...inProcess.input, workDir: "@WORK@" }, null, 2)}\n`);
  const stdin = inProcess?.data?.stdin;
  if (stdin) writeFileSync(join(outDir, stdin.file), stdin.contents);
  const scripts = docs.map((doc, i) => {
    const repro = repros[i]!;
    const file = join(outDir, scriptName(doc));
    writeFileSync(file, scriptOf(doc, repro, cell));
    chmodSync(file, 0o755);
    return { doc, file };
  });
  writeFileSync(join(outDir, "README.md"), readme(selected, docs, cell, repros));
  return { dir: outDir, scripts };
}
