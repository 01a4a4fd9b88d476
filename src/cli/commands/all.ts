import { resolve } from "node:path";
import { DEFAULT_DATA_DIR } from "../../core/paths.ts";
import { defineCommand } from "../command.ts";
import { DEFAULT_RUNTIMES } from "../runtimes.ts";
import { exitCodeOf, runBenchmarks } from "./run.ts";
import { setupAll } from "./setup.ts";

export const allCommand = defineCommand({
  name: "all",
  summary:
    "What `scripts/bench` with no arguments does: set up the newest Node, Deno and Bun, run the quick profile of every suite into data/, and print a summary.",
  usage: "all",
  help: [],
  options: {},
  async run() {
    const runtimes = [...DEFAULT_RUNTIMES];
    await setupAll(runtimes);
    const outcome = await runBenchmarks({
      suites: [],
      scenarios: [],
      runtimes,
      sentinel: null,
      profile: "quick",
      outDir: resolve(DEFAULT_DATA_DIR),
    });
    return exitCodeOf(outcome);
  },
});
