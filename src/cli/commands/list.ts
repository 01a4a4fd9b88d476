import { RUNTIME_NAMES } from "../../runtimes/catalog.ts";
import { selectScenarios } from "../../scenarios/select.ts";
import { suiteFor } from "../../suites/index.ts";
import { formatTable } from "../../ui/table.ts";
import { defineCommand } from "../command.ts";
import { warnStrayFolders } from "./run.ts";

export const listSubcommand = defineCommand({
  name: "list",
  summary: "Show the suites, scenarios and apps, with the runtimes (and minimum versions) each supports.",
  usage: "list [--suite S]...",
  help: ["  --suite S   only this suite (repeatable)"],
  options: { suite: { type: "string", multiple: true } },
  async run(values) {
    warnStrayFolders();
    const scenarios = selectScenarios({ suites: values.suite ?? [], scenarios: [] });
    const rows = scenarios.map((scenario) => {
      const runtimes = RUNTIME_NAMES.filter((name) => scenario.manifest.runtimes[name]).map((name) => {
        const min = scenario.manifest.runtimes[name]?.min_version;
        return min ? `${name}>=${min}` : name;
      });
      return [scenario.suite, scenario.name, `v${scenario.manifest.version}`, runtimes.join(" "), scenario.manifest.description];
    });
    process.stdout.write(`${formatTable(["suite", "scenario", "version", "runtimes", "description"], rows)}\n`);
    for (const suite of [...new Set(scenarios.map((s) => s.suite))].map(suiteFor).filter((s) => s.listApps)) {
      const apps = suite.listApps!().map((app) => [suite.name, app.name, app.runtimes.join(" ")]);
      process.stdout.write(`\n${formatTable(["suite", "app", "runtimes"], apps)}\n`);
    }
    return 0;
  },
});
