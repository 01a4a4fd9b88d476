import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tail } from "../../process/children.ts";
import { runWithUsage, type ResourceUsage } from "../../tools/gnu-time.ts";
import { toolVersion } from "../../tools/locate.ts";
import { ClientError } from "./wsclient.ts";

export function k6Version(): Promise<string> {
  return toolVersion("k6", ["version"], "built by scripts/bench with go install into ~/.cache/runtime-bench/tools/bin");
}

export const K6_TOOL = { name: "k6", version: k6Version } as const;

const SCRIPTS = fileURLToPath(new URL("./k6/", import.meta.url));

/** One metric of k6's end-of-test summary (handleSummary's data.metrics[name].values). */
export type K6Values = Record<string, number>;

export interface K6Outcome {
  readonly metrics: Record<string, K6Values>;
  /** k6's own CPU and wall time, from the kernel. */
  readonly usage: ResourceUsage;
}

/**
 * Runs one of the suite's k6 scripts with `env` as its -e variables and reads the summary its
 * handleSummary writes (never k6's printed text). Usage reports stay off: the machine has no
 * internet beyond package registries.
 */
export async function runK6(script: "echo.js" | "broadcast-check.js", env: Record<string, string | number>, pin: readonly string[], workDir: string, timeoutMs: number): Promise<K6Outcome> {
  const summary = join(workDir, `k6-summary-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const vars = Object.entries({ ...env, SUMMARY: summary }).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  const argv = [...pin, "k6", "run", "--quiet", "--no-color", "--no-usage-report", "--no-thresholds", ...vars, join(SCRIPTS, script)];
  try {
    const { result, usage } = await runWithUsage(argv, { timeoutMs }, workDir);
    if (result.timedOut) throw new ClientError(`k6 ${script} did not finish within ${timeoutMs / 1000} s`);
    if (result.code !== 0 || usage === null) throw new ClientError(`k6 ${script} exited with ${result.code ?? result.signal}: ${tail(result.stderr, 3) || result.spawnError || ""}`);
    let doc: { metrics?: Record<string, { values?: K6Values }> };
    try {
      doc = JSON.parse(await readFile(summary, "utf8")) as typeof doc;
    } catch {
      throw new ClientError(`k6 ${script} wrote no summary: ${tail(result.stderr, 3)}`);
    }
    const metrics = Object.fromEntries(Object.entries(doc.metrics ?? {}).map(([name, metric]) => [name, metric.values ?? {}]));
    return { metrics, usage };
  } finally {
    await rm(summary, { force: true });
  }
}

/** A count from the summary; a counter k6 never saw is a broken script, not zero. */
export function k6Count(outcome: K6Outcome, metric: string): number {
  const count = outcome.metrics[metric]?.count;
  if (typeof count !== "number") throw new ClientError(`k6's summary has no count for ${metric}`);
  return count;
}
