import { UserError } from "../../../core/errors.ts";
import { declaredMetrics } from "../validate.ts";
import { collectStaged, sweepWorkDir } from "../../../history/stage.ts";
import { noteLoadedTree } from "../../../orchestrate/run-info.ts";
import { RUNTIME_NAMES } from "../../../runtimes/catalog.ts";
import { count } from "../../../ui/words.ts";
import { defineCommand } from "../../command.ts";
import { SWEEP_OPTIONS, parseRequest, checkOnTestbed } from "./request.ts";
import { resolveChains, planText, sweepChains } from "./chains.ts";
import { sideBySidePlanText, measureSideBySide } from "./side-by-side.ts";

export const sweepSubcommand = defineCommand({
  name: "sweep",
  summary: "Measure a history of releases on the reference testbed: each selected release beside the one before it, one run per link, each confirmed step narrowed to its release (docs/history.md).",
  usage:
    "sweep [--plan] [--runtime NAME|SPEC]... [--since DATE] [--from SPEC]... [--to SPEC]... [--every major|minor|patch] [--profile quick|full] [--trials N] [--trial-budget N] [--suite S]... [--scenario X]... [--data DIR] [--testbed NAME] [--runners FILE] [--time-limit T] [--max-load L] [--no-narrow] [--again-before TIME] [--side-by-side]",
  help: [
    "  --plan            price the sweep (its chains, the links data/ lacks, the time per link) and measure nothing",
    `  --runtime NAME    node, deno or bun: a chain of its releases in the window (repeatable; default: ${RUNTIME_NAMES.join(", ")});`,
    "  --runtime SPEC    node@22.11.0, repeated: a chain of exactly those releases",
    "  --since DATE      the window: releases published on or after DATE (2024-06 or 2024-06-15)",
    "  --from SPEC       the window: a runtime's releases at or above a version (node@20.0.0; repeatable, one per runtime)",
    "  --to SPEC         the window: a runtime's releases at or below a version",
    "  --every G         minor (default): the newest release of each minor; major: of each major; patch: every release.",
    "                    Always the first release of each line (node: major; deno, bun: minor) and every release of",
    "                    the newest minor",
    `  --profile P       quick (default) or full; --trials N: each scenario's minimum trials (as for run), and so its cap`,
    "                    of adaptive trials (3 × N; at least 10 in quick, 30 in full): a narrowing half that left its",
    "                    step undecided on fewer pairs is measured again, to that cap",
    "  --trial-budget N  extra trials the adaptive rule may add in each link's run (as for run; 0: none); default: each",
    "                    cell's cap. Fewer looks: a link's verdict may stay undecided where all of them would decide it",
    "  --suite S         the default selection of these suites only; --scenario X: these scenarios instead of the default selection",
    "  --data DIR        the results store: links already there are skipped (default: data/)",
    "  --testbed NAME    the reference testbed this machine is (.github/bench-runners.json; default: the only one)",
    "  --runners FILE    the runners and testbeds, for collect too (default: .github/bench-runners.json)",
    "  --time-limit T    the time the whole sweep may take (10h, 90m): no link starts that could end later with every",
    "                    cell at its cap of adaptive trials; a link is measured with all its looks or left for the next sweep",
    "  --max-load L      wait until the 1-minute load average is below L (default: half the CPUs)",
    "  --no-narrow       measure the chain only; leave each step between the releases of its link",
    "  --again-before T  runs of DIR started before T (2026-11-29, 2026-11-29T00:20Z) count as not measured: their links",
    "                    are measured again after a fix to the harness, and the newer run is the one judged. Name the",
    "                    scenarios (--scenario) and releases it concerns; a resumed sweep takes the same T",
    "  --side-by-side    instead of the chains, one run of the newest release of each runtime (in its window; or the one",
    "                    named, --runtime node@26.12.1) side by side, as the overview draws them together; what data/",
    "                    holds of it already is skipped",
    "",
    "Each link runs its two releases beside each other in one run of the default selection, as the release job runs",
    "a release beside its predecessor; its results go into DIR through collect, checked against the testbed and the",
    "link. A confirmed step is then narrowed: runs of its scenario, on its cells' apps and load points alone, over the",
    "releases between, halved until it lies between adjacent releases or neither half shows it (--plan lists the runs",
    "it owes first).",
    "Run again after Ctrl-C or a time limit: what DIR holds is skipped, an interrupted scenario measured again, and so is",
    "a run whose adaptive trials the time limit stopped before their last look (the sweep stops after it, naming it).",
    "",
    "Exit status: 0 when done (or stopped by the time limit), 1 when collect refused results, 2 on bad input, 130 on Ctrl-C.",
  ],
  options: SWEEP_OPTIONS,
  async run(values) {
    const request = parseRequest(values);
    if (values.plan) {
      process.stdout.write(`${request.sideBySide ? await sideBySidePlanText(request) : await planText(request, await resolveChains(request))}\n`);
      return 0;
    }
    noteLoadedTree();
    checkOnTestbed(request.testbed);
    const workDir = sweepWorkDir(request.dataDir);
    const leftover = await collectStaged(workDir, request.dataDir, { runners: request.machines, declared: declaredMetrics() });
    if (leftover !== null) {
      for (const problem of leftover.problems) process.stderr.write(`${problem}\n`);
      if (leftover.problems.length > 0) throw new UserError(`sweep: results an earlier sweep left in ${workDir} cannot be collected (above); look at them, then remove them`);
      process.stderr.write(`sweep: collected ${count(leftover.added.length, "result")} an earlier sweep had measured but not collected\n`);
    }
    const refused: string[] = [];
    try {
      process.stdout.write(`${request.sideBySide ? await measureSideBySide(request, workDir, refused) : await sweepChains(request, workDir, refused)}\n`);
    } catch (error) {
      if (refused.length === 0) throw error;
      for (const problem of refused) process.stderr.write(`${problem}\n`);
      process.stderr.write(`runtime-bench: ${(error as Error).message}\n`);
      return 1;
    }
    return 0;
  },
});
