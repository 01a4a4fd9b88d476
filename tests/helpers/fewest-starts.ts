import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { suiteFor } from "../../src/suites/index.ts";

/**
 * Sets startup/hello's `profile` in the repository-like folder `dir` to the suite's quick one with
 * the fewest starts a trial may have (the startup schema's minimums), through the manifest's
 * key-by-key override: for tests of plumbing (workflows, emulation), which no trial's number of
 * starts changes.
 */
export function fewestStartsOfHello(dir: string, profile: "quick" | "full"): void {
  const manifest = join(dir, "suites/startup/hello/scenario.json");
  const fewest = { ...suiteFor("startup").profiles.quick, warmup: 0, runs: 2, memory_runs: 1 };
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), profiles: { [profile]: fewest } }, null, 2));
}

/** A suites folder (for RUNTIME_BENCH_SUITES_DIR) with copies of `scenarios` ("suite/name"), startup/hello among them at its fewest starts in `profile`. */
export function suitesWithFewestStarts(scenarios: readonly string[], profile: "quick" | "full"): string {
  const dir = tempDir("fewest-starts");
  for (const scenario of scenarios) cpSync(join(REPO_ROOT, "suites", scenario), join(dir, "suites", scenario), { recursive: true });
  fewestStartsOfHello(dir, profile);
  return join(dir, "suites");
}
