import { selectScenarios } from "../../scenarios/select.ts";
import { suiteFor } from "../../suites/index.ts";
import { defineCommand } from "../command.ts";

export const toolsSubcommand = defineCommand({
  name: "tools",
  summary: "Print the external tools the chosen suites need, one per line (scripts/bench installs exactly these).",
  usage: "tools [--suite S]...",
  help: ["  --suite S   only this suite's tools (repeatable); default: every suite's"],
  options: { suite: { type: "string", multiple: true } },
  async run(values) {
    const suites = values.suite?.length ? values.suite : [...new Set(selectScenarios({ suites: [], scenarios: [] }).map((s) => s.suite))];
    const names = new Set(suites.flatMap((name) => suiteFor(name).tools.map((tool) => tool.name)));
    process.stdout.write([...names].map((name) => `${name}\n`).join(""));
    return 0;
  },
});
