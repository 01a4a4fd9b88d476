/**
 * Does the harness add anything to what it measures? For each runtime, the median `hello` wall
 * time from `scripts/bench run` against hyperfine run by hand on the same binary and file,
 * interleaved over several rounds (harness first in odd rounds, by hand first in even ones).
 *
 *   node --import tsx benchmarks/harness-overhead.ts [ROUNDS]
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, SUITES_DIR } from "../src/core/paths.ts";
import { RUNTIMES } from "../src/runtimes/catalog.ts";
import { provision } from "../src/runtimes/provision.ts";
import { readResults } from "../src/results/read.ts";
import { median } from "../src/stats/summary.ts";
import { formatTable } from "../src/ui/table.ts";
import { PINNED, bench, tempDir } from "../tests/helpers/cli.ts";

const rounds = Number(process.argv[2] ?? 5);
const helloDir = join(SUITES_DIR, "startup/hello");
const profile = JSON.parse(readFileSync(join(helloDir, "scenario.json"), "utf8")).profiles.quick as { trials: number; warmup: number; runs: number };

async function harnessMedians(): Promise<Map<string, number>> {
  const out = tempDir("overhead");
  const args = ["run", "--suite", "startup", "--scenario", "hello", "--profile", "quick", "--out", out, ...PINNED.flatMap((s) => ["--runtime", s])];
  const result = await bench(args);
  if (result.code !== 0) throw new Error(`scripts/bench failed: ${result.stderr}`);
  return new Map((await readResults([out])).map(({ doc }) => [doc.runtime.name, doc.metrics.wall_ms!.median]));
}

/** The same number of timed runs as the harness makes (trials × runs), in one hyperfine call. */
function byHandMedian(name: keyof typeof RUNTIMES, binary: string): number {
  const command = [binary, ...RUNTIMES[name].scriptArgs([], "main.js")].join(" ");
  const exportPath = join(tempDir("by-hand"), "hyperfine.json");
  execFileSync("hyperfine", ["-N", "--style", "none", "--warmup", String(profile.warmup), "--runs", String(profile.trials * profile.runs), "--export-json", exportPath, command], {
    cwd: helloDir,
    env: { ...process.env, ...RUNTIMES[name].env },
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

const rows = Object.keys(harness).map((name) => {
  const h = median(harness[name]!);
  const b = median(byHand[name]!);
  return [name, h.toFixed(2), b.toFixed(2), (h / b).toFixed(3)];
});
process.stdout.write(`harness overhead on startup/hello, ${rounds} interleaved rounds, medians of per-round medians (ms)\n`);
process.stdout.write(`${formatTable(["runtime", "scripts/bench", "hyperfine by hand", "ratio"], rows)}\n`);
process.stdout.write(`commit ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim()}, ${new Date().toISOString()}\n`);
