// The in-process measuring protocol: the runtime side. Runs unchanged on Node, Deno and Bun (it
// uses only node: built-ins, which all three provide). The harness side is src/tools/in-process.ts.
//
// An app's entry file calls runInProcess() once with its hooks:
//   setup(ctx) -> state        untimed, optional; ctx = { params, workDir, runtime }
//   reset(state, ctx)          untimed, optional, before every run of the operation
//   operation(state, ctx)      the timed work; may return { samples: { name: number[] } }
//   digest(state, ctx, out)    after the one verification run: a string naming what was read or written
//   teardown(state, ctx)       untimed, optional
//
// Input comes as JSON in RUNTIME_BENCH_INPUT: { params, workDir, warmup, iterations, steady? }.
// Without `steady`, exactly `warmup` untimed iterations run before the measured ones; with
// `steady: { block, tolerance }`, warm-up iterations (timed, never reported as samples) run until
// their times are steady by the rule of steady.js, `warmup` of them at most.
// The report goes to the file named by RUNTIME_BENCH_REPORT, never to stdout, so whatever the app
// prints cannot corrupt it:
//   { "digest": "...", "samples": { "wall_ms": [...], ...extra }, "counts": { "warmup": n, "iterations": n }, "steady": bool }
// or, when anything throws, { "error": "message" } and exit code 1.
import { writeFileSync } from "node:fs";
import process from "node:process";
import { isSteady } from "./steady.js";

function runtimeName() {
  if (typeof globalThis.Bun !== "undefined") return "bun";
  if (typeof globalThis.Deno !== "undefined") return "deno";
  return "node";
}

function readInput() {
  const raw = process.env.RUNTIME_BENCH_INPUT;
  if (raw === undefined) throw new Error("RUNTIME_BENCH_INPUT is not set");
  const input = JSON.parse(raw);
  const count = (name, min) => {
    if (!Number.isInteger(input[name]) || input[name] < min) throw new Error(`input.${name} must be an integer >= ${min}`);
    return input[name];
  };
  if (typeof input.workDir !== "string") throw new Error("input.workDir must be a string");
  if (input.params === null || typeof input.params !== "object") throw new Error("input.params must be an object");
  const steady = input.steady;
  if (steady !== undefined && !(Number.isInteger(steady?.block) && steady.block >= 1 && steady.tolerance > 0)) throw new Error("input.steady must be { block >= 1, tolerance > 0 }");
  return { params: input.params, workDir: input.workDir, warmup: count("warmup", 0), iterations: count("iterations", 1), steady };
}

// Warm-up iterations: all `warmup` of them, or with a steadiness rule until their times are steady.
// Returns how many ran and whether the rule held (null without a rule).
async function warmUp(app, state, ctx, input) {
  const times = [];
  while (times.length < input.warmup) {
    await app.reset?.(state, ctx);
    const start = performance.now();
    await app.operation(state, ctx);
    times.push(performance.now() - start);
    if (input.steady !== undefined && isSteady(times, input.steady.block, input.steady.tolerance)) return { count: times.length, steady: true };
  }
  return { count: times.length, steady: input.steady === undefined ? null : false };
}

// Extra samples an operation returns are kept only from measured iterations and appended in order.
function appendExtraSamples(samples, out) {
  const extra = out?.samples;
  if (extra === undefined) return;
  for (const [name, values] of Object.entries(extra)) {
    if (name === "wall_ms") throw new Error("operation() may not return samples named wall_ms: the protocol times it");
    if (!Array.isArray(values) || !values.every((v) => typeof v === "number" && Number.isFinite(v))) {
      throw new Error(`operation() returned samples.${name} that is not an array of finite numbers`);
    }
    (samples[name] ??= []).push(...values);
  }
}

export async function runInProcess(app) {
  const reportPath = process.env.RUNTIME_BENCH_REPORT;
  if (reportPath === undefined) {
    console.error("runInProcess: RUNTIME_BENCH_REPORT is not set; this entry is started by the runtime-bench harness");
    process.exit(2);
  }
  let report;
  let state;
  let ctx;
  let setUp = false;
  try {
    if (typeof app?.operation !== "function" || typeof app?.digest !== "function") {
      throw new Error("runInProcess needs operation() and digest() hooks");
    }
    const input = readInput();
    ctx = Object.freeze({ params: input.params, workDir: input.workDir, runtime: runtimeName() });
    state = app.setup ? await app.setup(ctx) : undefined;
    setUp = true;

    await app.reset?.(state, ctx);
    const verified = await app.operation(state, ctx);
    const digest = await app.digest(state, ctx, verified);
    if (typeof digest !== "string") throw new Error(`digest() returned ${typeof digest}, not a string`);

    const warm = await warmUp(app, state, ctx, input);

    const samples = { wall_ms: [] };
    for (let i = 0; i < input.iterations; i++) {
      await app.reset?.(state, ctx);
      const start = performance.now();
      const out = await app.operation(state, ctx);
      const end = performance.now();
      samples.wall_ms.push(end - start);
      appendExtraSamples(samples, out);
    }

    setUp = false;
    await app.teardown?.(state, ctx);
    report = { digest, samples, counts: { warmup: warm.count, iterations: input.iterations }, steady: warm.steady };
  } catch (error) {
    // The stack goes to stderr, whose tail the harness keeps; the report carries the message.
    console.error(error);
    report = { error: error instanceof Error ? error.message : String(error) };
    if (setUp) {
      try {
        await app.teardown?.(state, ctx);
      } catch (teardownError) {
        console.error(teardownError);
      }
    }
  }
  writeFileSync(reportPath, JSON.stringify(report));
  // Exit explicitly: a handle the app left open (a timer, a pool) must not keep the trial running.
  process.exit("error" in report ? 1 : 0);
}
