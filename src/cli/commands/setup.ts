import { DEFAULT_RUNTIMES, prepareRuntimes } from "../../runtimes/prepare.ts";
import { prepareScenario } from "../../scenarios/prepare.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { suiteFor } from "../../suites/index.ts";
import { defineCommand } from "../command.ts";

const note = (line: string) => process.stderr.write(`${line}\n`);

/** Everything a run needs before it measures: runtimes in the cache, scenarios prepared, suites' tools checked. */
export async function setupAll(specs: readonly string[], suites: readonly string[] = []): Promise<void> {
  await prepareRuntimes(specs, note);
  const selected = selectScenarios({ suites, scenarios: [] });
  for (const scenario of selected) await prepareScenario(scenario, note);
  for (const suite of [...new Set(selected.map((s) => s.suite))].map(suiteFor)) {
    for (const tool of suite.tools) await tool.version();
    await suite.prepare?.(note);
  }
}

export const setupSubcommand = defineCommand({
  name: "setup",
  summary: "Download and verify runtimes into the per-user cache, check each suite's tools, and prepare every scenario and app (generated files, lockfile installs).",
  usage: "setup [--runtime SPEC]... [--suite S]...",
  help: [
    `  --runtime SPEC   node@22.11.0, deno@2.1, bun@latest or NAME@path:/abs/bin (repeatable); default: ${DEFAULT_RUNTIMES.join(" ")}`,
    "  --suite S        prepare only this suite (repeatable)",
    "",
    "scripts/bench installs the tools of the chosen suites (hyperfine, oha, …) before this runs; `scripts/bench tools` lists them.",
  ],
  options: {
    runtime: { type: "string", multiple: true },
    suite: { type: "string", multiple: true },
  },
  async run(values) {
    await setupAll(values.runtime ?? [...DEFAULT_RUNTIMES], values.suite ?? []);
    return 0;
  },
});
