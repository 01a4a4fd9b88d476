/**
 * Does the harness add anything to what it measures? For each runtime, the median `hello` wall
 * time from `scripts/bench run` against hyperfine run by hand on the same binary and file,
 * interleaved over several rounds (harness first in odd rounds, by hand first in even ones).
 *
 *   scripts/benchmark harness-overhead [ROUNDS]
 *
 * Writes its figures into the entry "harness-overhead" of docs/measurements.json, with when, where
 * and the load, and regenerates the documents made from it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, SUITES_DIR } from "../src/core/paths.ts";
import { RUNTIMES } from "../src/runtimes/catalog.ts";
import { loadScenario } from "../src/scenarios/manifest.ts";
import { scenarioProfile } from "../src/suites/resolve.ts";
import { startupSuite } from "../src/suites/startup/index.ts";
import { provision } from "../src/runtimes/provision.ts";
import { readResults } from "../src/results/store.ts";
import { formatPairedRatio, formatRoundRatios, pairedRatio } from "../src/stats/paired.ts";
import { median } from "../src/stats/summary.ts";
import { formatTable } from "../src/ui/table.ts";
import { PINNED, bench, tempDir } from "./lib/cli.ts";
import { loadNow, pairedRow, recordMeasurement, thisMachine } from "./lib/measurements.ts";

const rounds = Number(process.argv[2] ?? 5);
const startLoad = loadNow();
const helloDir = join(SUITES_DIR, "startup/hello");
// The quick profile as the harness resolves it for `hello`: the suite's, with the manifest's overrides.
const profile = scenarioProfile(startupSuite, loadScenario(helloDir, "startup"), "quick") as { trials: number; warmup: number; runs: number };

async function harnessMedians(): Promise<Map<string, number>> {
  const out = tempDir("overhead");
  const args = ["run", "--suite", "startup", "--scenario", "hello", "--profile", "quick", "--out", out, ...PINNED.flatMap((s) => ["--runtime", s])];
  const result = await bench(args);
  if (result.code !== 0) throw new Error(`scripts/bench failed: ${result.stderr}`);
  return new Map(readResults([out]).map(({ doc }) => [doc.runtime.name, doc.metrics.wall_ms!.median]));
}

/** The same number of timed runs as the harness makes (trials × runs), in one hyperfine call. */
function byHandMedian(name: keyof typeof RUNTIMES, binary: string): number {
  const command = [binary, ...RUNTIMES[name].scriptArgs([], "main.js")].join(" ");
  const exportPath = join(tempDir("by-hand"), "hyperfine.json");
  execFileSync("hyperfine", ["-N", "--style", "none", "--warmup", String(profile.warmup), "--runs", String(profile.trials * profile.runs), "--export-json", exportPath, command], {
    cwd: helloDir,
    // The environment the harness gives runtimes (its own Deno cache folder among it), so the
    // only difference left is the harness itself.
    env: { ...process.env, ...RUNTIMES[name].env, DENO_DIR: join(tempDir("by-hand-deno"), "deno-dir") },
  });
  const times = (JSON.parse(readFileSync(exportPath, "utf8")) as { results: { times: number[] }[] }).results[0]!.times;
  return median(times) * 1000;
}

const harness: Record<string, number[]> = {};
const byHand: Record<string, number[]> = {};
for (let round = 0; round < rounds; round++) {
  const measureByHand = async () => {
    for (const spec of PINNED) {
      const { spec: parsed, binary } = await provision(spec);
      (byHand[parsed.name] ??= []).push(byHandMedian(parsed.name, binary));
    }
  };
  if (round % 2 === 1) await measureByHand();
  for (const [name, m] of await harnessMedians()) (harness[name] ??= []).push(m);
  if (round % 2 === 0) await measureByHand();
  process.stderr.write(`round ${round + 1}/${rounds} done\n`);
}

// Each round pairs the two measurements minutes apart at most, so the per-round ratio cancels the
// slow drift of a shared machine.
const measured = Object.keys(harness).map((name) => ({ name, paired: pairedRatio(harness[name]!, byHand[name]!) }));
const rows = measured.map(({ name, paired }) => [name, median(harness[name]!).toFixed(2), median(byHand[name]!).toFixed(2), formatPairedRatio(paired), formatRoundRatios(paired)]);
process.stdout.write(`harness overhead on startup/hello, ${rounds} interleaved rounds (ms: medians over rounds of each round's median)\n`);
process.stdout.write(`${formatTable(["runtime", "scripts/bench", "hyperfine by hand", "ratio (95 % interval)", "median ratio (range)"], rows)}\n`);
process.stdout.write(`commit ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim()}, ${new Date().toISOString()}\n`);

const specOf = (name: string) => PINNED.find((spec) => spec.startsWith(`${name}@`)) ?? name;
recordMeasurement("harness-overhead", (entry) => ({
  ...entry!,
  ...thisMachine(startLoad),
  benchmark: `scripts/benchmark harness-overhead ${rounds}`,
  rows: measured.map(({ name }) => pairedRow(specOf(name), harness[name]!, byHand[name]!, 2)),
  notes: [`The \`hello\` median of \`scripts/bench run\` against hyperfine run by hand on the same binary, file, run count and runtime environment, ${rounds} round${rounds === 1 ? "" : "s"}, alternating which goes first.`],
}));
