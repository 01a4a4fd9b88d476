/**
 * What one release job costs per machine: `scripts/bench plan`'s estimate (each suite's own cost
 * model, measuring nothing) of the full profile, the newest release of each runtime beside its
 * predecessor, on the release job's selection (`--default-selection`), at each profile's minimum
 * trials and with every cell at its cap of adaptive trials; and of every app, for comparison.
 *
 *   scripts/benchmark full-profile-cost [--no-record]
 *
 * Writes the entry "full-profile-cost" of docs/measurements.json (an estimate: the load does not
 * enter) and regenerates the documents made from it; --no-record only prints the table.
 */
import { parseArgs } from "node:util";
import { withPredecessors } from "../src/cli/commands/plan.ts";
import { planRun, type SuitePlan } from "../src/orchestrate/estimate.ts";
import { publishedReleases } from "../src/releases/published.ts";
import { machineArch, type RuntimeName } from "../src/runtimes/catalog.ts";
import { DEFAULT_RUNTIMES } from "../src/runtimes/prepare.ts";
import { parseSpec } from "../src/runtimes/spec.ts";
import { selectScenarios } from "../src/scenarios/select.ts";
import { resolveScenarios } from "../src/suites/resolve.ts";
import { defaultSelection } from "../src/suites/selection.ts";
import { formatDuration } from "../src/ui/duration.ts";
import { formatTable } from "../src/ui/table.ts";
import { recordMeasurement, thisMachine } from "./lib/measurements.ts";

const { values } = parseArgs({ options: { "no-record": { type: "boolean" } } });

/** One release job's plans: the runtime's newest release beside its predecessor, on `selection`. */
async function jobPlans(runtime: RuntimeName, selection: { suites: string[]; scenarios: string[]; suiteOptions: Record<string, Record<string, string[]>> }): Promise<{ version: string; plans: SuitePlan[] }> {
  const releases = await publishedReleases(runtime, machineArch());
  const { specs } = withPredecessors([parseSpec(`${runtime}@latest`)], () => releases);
  const scenarios = resolveScenarios(selectScenarios({ suites: selection.suites, scenarios: selection.scenarios }), "full");
  return { version: specs[0]!.text.split("@")[1]!, plans: planRun(scenarios, specs, selection.suiteOptions) };
}

const sum = (plans: readonly SuitePlan[], field: "seconds" | "maxSeconds") => plans.reduce((total, p) => total + (p[field] ?? 0), 0);

const runtimes = DEFAULT_RUNTIMES.map((spec) => parseSpec(spec).name);
const chosen = await Promise.all(runtimes.map((runtime) => jobPlans(runtime, defaultSelection())));
const everyApp = await Promise.all(runtimes.map((runtime) => jobPlans(runtime, { suites: [], scenarios: [], suiteOptions: {} })));
const suites = [...new Set(chosen.flatMap((job) => job.plans.map((p) => p.suite)))];
const perRuntime = (figure: (job: number) => string) => Object.fromEntries(runtimes.map((runtime, i) => [runtime, figure(i)]));
const rows = [
  ...suites.map((suite) => ({ suite, ...perRuntime((i) => formatDuration(chosen[i]!.plans.find((p) => p.suite === suite)?.seconds ?? 0)) })),
  { suite: "total", ...perRuntime((i) => formatDuration(sum(chosen[i]!.plans, "seconds"))) },
  { suite: "total with every cell at its cap", ...perRuntime((i) => formatDuration(sum(chosen[i]!.plans, "maxSeconds"))) },
  { suite: "every app (without --default-selection), at the minimum", ...perRuntime((i) => formatDuration(sum(everyApp[i]!.plans, "seconds"))) },
];
const columns = { suite: "suite (full profile, one machine, the release beside its predecessor, the release job's selection)", ...perRuntime((i) => `${runtimes[i]} ${chosen[i]!.version}`) };
process.stdout.write(`${formatTable(Object.values(columns), rows.map((row) => Object.keys(columns).map((key) => (row as Record<string, string>)[key]!)))}\n`);

if (!values["no-record"]) {
  const { when, where } = thisMachine(0);
  const figure = runtimes.map((runtime) => `{${runtime}} (${runtime})`).join(", ");
  recordMeasurement("full-profile-cost", () => ({
    title: "The full profile's cost per release job per machine",
    benchmark: "scripts/benchmark full-profile-cost",
    when: when.slice(0, 10),
    where,
    load: "not relevant: an estimate",
    summary: [
      { measure: "full profile, one release beside its predecessor, one machine, all seven suites, the release job's selection, at each profile's minimum trials", row: suites.length, figure },
      { measure: "the same with every cell at its cap of adaptive trials (the job's `--time-limit 6h` stops short of it)", row: suites.length + 1, figure },
    ],
    notes: [
      "`scripts/bench plan --profile full --runtime RUNTIME@latest --with-predecessor --default-selection`'s estimate per suite (each suite's cost model from its profile; nothing measured), and without `--default-selection` for every app. The release job runs `scripts/bench run --time-limit 6h`, which gives adaptive trials what the estimate leaves of 6 h, in the run's order.",
    ],
    columns,
    rows,
  }));
}
