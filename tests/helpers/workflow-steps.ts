import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

export interface Step {
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}
export interface Job {
  "runs-on"?: string;
  env?: Record<string, string>;
  steps: Step[];
}
export interface Workflow {
  on: Record<string, { branches?: string[]; paths?: string[]; inputs?: Record<string, { type: string }> } | null>;
  jobs: Record<string, Job & { uses?: string; with?: Record<string, string | boolean>; permissions?: Record<string, string> }>;
}

export const workflow = (file: string) => parse(readFileSync(join(REPO_ROOT, ".github", "workflows", file), "utf8")) as Workflow;

export function step(doc: Workflow, job: string, name: RegExp): Step {
  const found = doc.jobs[job]!.steps.find((s) => name.test(s.name ?? ""));
  assert.ok(found?.run, `no step ${name} in ${job}`);
  return found;
}

/** An executable on a stub PATH that appends its arguments, one a line, then a blank line, to `log`. */
export function recorder(dir: string, name: string, log: string, body = ""): void {
  writeFileSync(join(dir, name), `#!/usr/bin/env bash\nprintf '%s\\n' "$@" >>"${log}"\necho >>"${log}"\n${body}`);
  chmodSync(join(dir, name), 0o755);
}

/** Calls recorded by `recorder`, each as its list of arguments. */
export function calls(log: string): string[][] {
  let text = "";
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return [];
  }
  return text.split("\n\n").filter(Boolean).map((call) => call.split("\n").filter((line) => line !== ""));
}

/** Runs a step's script the way the runner does (`bash -e`), with its env as given and GitHub's files in a temp folder. */
export function runStep(script: string, env: Record<string, string>, cwd: string, path: string): { code: number | null; output: string; summary: string } {
  const dir = tempDir("step");
  const files = { GITHUB_OUTPUT: join(dir, "output"), GITHUB_STEP_SUMMARY: join(dir, "summary"), RUNNER_TEMP: dir };
  writeFileSync(files.GITHUB_STEP_SUMMARY, "");
  const result = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
    cwd,
    env: { PATH: `${path}:${process.env.PATH}`, HOME: dir, ...files, ...env },
    encoding: "utf8",
  });
  return { code: result.status, output: result.stdout + result.stderr, summary: readFileSync(files.GITHUB_STEP_SUMMARY, "utf8") };
}

type Value = string | boolean | number;
export type ExpressionContext = Record<string, Record<string, Value>>;

/**
 * Evaluates the subset of GitHub's expression syntax the benchmark job's `if`, `env` and `with`
 * use: context properties (`matrix.runtime`, `inputs.missing-only`), string literals, the status
 * functions, `==`, `!=`, `!`, `&&`, `||` (which return an operand, as GitHub's do) and parentheses. Anything else throws,
 * so a workflow that grows past it fails the test instead of being misread.
 */
/** The status functions, as they stand at a step that runs: runJob stops at the first step that fails. */
const STATUS: Readonly<Record<string, boolean>> = { success: true, always: true, failure: false, cancelled: false };

export function evaluate(expression: string, context: ExpressionContext): Value {
  const tokens = expression.match(/'[^']*'|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][\w.-]*|\S/g) ?? [];
  let at = 0;
  const truthy = (v: Value) => v !== "" && v !== false && v !== 0;
  const primary = (): Value => {
    const token = tokens[at++];
    if (token === undefined) throw new Error(`unexpected end of '${expression}'`);
    if (token === "!") return !truthy(primary());
    if (token === "(") {
      const inner = or();
      assert.equal(tokens[at++], ")", `unbalanced '${expression}'`);
      return inner;
    }
    if (token.startsWith("'")) return token.slice(1, -1);
    if (token === "true" || token === "false") return token === "true";
    if (token in STATUS && tokens[at] === "(" && tokens[at + 1] === ")") {
      at += 2;
      return STATUS[token]!;
    }
    const [scope, ...rest] = token.split(".");
    if (!context[scope!] || rest.length !== 1) throw new Error(`'${token}' in '${expression}' is outside what this evaluator knows`);
    return context[scope!]![rest[0]!] ?? "";
  };
  const comparison = (): Value => {
    const left = primary();
    const operator = tokens[at];
    if (operator !== "==" && operator !== "!=") return left;
    at++;
    const equal = String(left) === String(primary());
    return operator === "==" ? equal : !equal;
  };
  // `a && b` is b when a is truthy, `a || b` is b when a is not; otherwise a.
  const chain = (operator: "&&" | "||", operand: () => Value) => (): Value => {
    let value = operand();
    while (tokens[at] === operator) {
      at++;
      const right = operand();
      if (truthy(value) === (operator === "&&")) value = right;
    }
    return value;
  };
  const and = chain("&&", comparison);
  const or = chain("||", and);
  const value = or();
  if (at !== tokens.length) throw new Error(`cannot read '${expression}' past '${tokens[at]}'`);
  return value;
}

/** A workflow value with its `${{ }}` parts evaluated. */
export function interpolate(text: Value, context: ExpressionContext): string {
  return String(text).replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, inner: string) => String(evaluate(inner, context)));
}

/** What a stubbed setup action installs: a binary that prints this version line. */
export type VersionLine = (runtime: string, requested: string) => string;

export interface JobRun {
  readonly code: number | null;
  readonly output: string;
  /** The calls of `scripts/bench`, each as its list of arguments. */
  readonly bench: string[][];
  /** The setup actions run, as `action version`. */
  readonly setups: string[];
  /** The environment the job's steps exported (GITHUB_ENV). */
  readonly exported: Record<string, string>;
}

const SETUP_ACTIONS: Record<string, { runtime: string; input: string }> = {
  "actions/setup-node": { runtime: "node", input: "node-version" },
  "denoland/setup-deno": { runtime: "deno", input: "deno-version" },
  "oven-sh/setup-bun": { runtime: "bun", input: "bun-version" },
};

/**
 * Runs a job's steps in order as the runner would, in a checkout holding the repository's
 * scripts/ci and a `scripts/bench` that only records its arguments: each step's `if` decides, the
 * setup actions are stubs that install a binary printing `versionLine(runtime, input)` (every Bun
 * to one path, as setup-bun does), and other actions (checkout, cache, upload) do nothing. Steps
 * named by `skip` (the tool installs) are left out. The machine is the one the matrix names
 * (RUNNER_NAME). Stops at the first failing step.
 */
export function runJob(doc: Workflow, job: string, context: ExpressionContext, versionLine: VersionLine, skip: RegExp): JobRun {
  const checkout = tempDir("job");
  mkdirSync(join(checkout, "scripts", "ci"), { recursive: true });
  copyFileSync(join(REPO_ROOT, "scripts", "ci", "locate-runtime"), join(checkout, "scripts", "ci", "locate-runtime"));
  chmodSync(join(checkout, "scripts", "ci", "locate-runtime"), 0o755);
  const log = join(checkout, "bench.log");
  recorder(join(checkout, "scripts"), "bench", log);
  const runnerTemp = tempDir("runner-temp");
  const githubEnv = join(runnerTemp, "github-env");
  writeFileSync(githubEnv, "");
  const tools = tempDir("toolcache");
  const path: string[] = [];
  const setups: string[] = [];
  const exported = (): Record<string, string> =>
    Object.fromEntries(readFileSync(githubEnv, "utf8").split("\n").filter(Boolean).map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
  const jobEnv = Object.fromEntries(Object.entries(doc.jobs[job]!.env ?? {}).map(([k, v]) => [k, interpolate(v, context)]));
  let output = "";
  for (const s of doc.jobs[job]!.steps) {
    if (skip.test(s.name ?? "")) continue;
    const action = s.uses?.split("@")[0];
    const setup = action === undefined ? undefined : SETUP_ACTIONS[action];
    if (action !== undefined && !setup) continue;
    if (s.if !== undefined && !evaluate(s.if.replace(/^\$\{\{|\}\}$/g, ""), context)) continue;
    if (setup) {
      // The harness's own Node names its version by file (.node-version), as the workflows do.
      const requested = s.with![setup.input] !== undefined ? interpolate(s.with![setup.input]!, context) : readFileSync(join(REPO_ROOT, String(s.with!["node-version-file"])), "utf8").trim();
      setups.push(`${action} ${requested}`);
      const dir = setup.runtime === "bun" ? join(tools, "bun-home", "bin") : join(tools, setup.runtime, requested.replace(/[^\w.-]/g, "_"), "bin");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, setup.runtime), `#!/usr/bin/env bash\necho '${versionLine(setup.runtime, requested)}'\n`);
      chmodSync(join(dir, setup.runtime), 0o755);
      path.unshift(dir);
      continue;
    }
    const env = { ...jobEnv, ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, interpolate(v, context)])), ...exported() };
    const result = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", s.run!], {
      cwd: checkout,
      env: { PATH: [...path, process.env.PATH].join(":"), HOME: runnerTemp, RUNNER_TEMP: runnerTemp, RUNNER_NAME: String(context.matrix?.runner ?? ""), GITHUB_ENV: githubEnv, GITHUB_OUTPUT: join(runnerTemp, "output"), ...env },
      encoding: "utf8",
    });
    output += `--- ${s.name ?? s.run!.split("\n")[0]}\n${result.stdout}${result.stderr}`;
    if (result.status !== 0) return { code: result.status, output, bench: calls(log), setups, exported: exported() };
  }
  return { code: 0, output, bench: calls(log), setups, exported: exported() };
}
