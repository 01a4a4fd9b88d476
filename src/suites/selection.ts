/**
 * What a run or a plan measures: its scenarios, and each suite's own options (such as http's
 * --app). The default run measures each suite's `defaultRun`; so does the release job, in the
 * full profile, so that a release beside its predecessor fits 6 h with room for adaptive trials
 * (docs/release-job.md).
 */
import { UserError } from "../core/errors.ts";
import { selectScenarios } from "../scenarios/select.ts";
import { SUITES, suiteFor } from "./index.ts";

export interface Selection {
  readonly suites: string[];
  /** Scenarios as SUITE/NAME or NAME; none means every scenario of the suites. */
  readonly scenarios: string[];
  /** Each suite's own options: suite → option → values. */
  readonly suiteOptions: Record<string, Record<string, string[]>>;
}

/** Each suite's `defaultRun` (its scenarios and options), or all of a suite; of `suites` only, when any are named. */
export function defaultSelection(suites: readonly string[] = []): Selection {
  const all = selectScenarios({ suites: [...suites], scenarios: [] });
  const chosen = [...new Set(all.map((s) => s.suite))].map(suiteFor);
  const scenariosOf = (suite: string) => all.filter((s) => s.suite === suite).map((s) => s.name);
  return {
    suites: chosen.map((s) => s.name),
    scenarios: chosen.flatMap((s) => (s.defaultRun?.scenarios ?? scenariosOf(s.name)).map((name) => `${s.name}/${name}`)),
    suiteOptions: Object.fromEntries(chosen.map((s) => [s.name, Object.fromEntries(Object.entries(s.defaultRun?.options ?? {}).map(([k, v]) => [k, [...v]]))])),
  };
}

/** `--default-selection` in the help of `run` and `plan`. */
export const DEFAULT_SELECTION_HELP = [
  "  --default-selection  what `scripts/bench` alone measures: each suite's default-run scenarios and apps (one",
  "                    app per runtime); with --suite, of those suites. The release job's selection",
];

/** Every suite's own options, once each (suites with apps share --app), with the suites that take it. */
export function suiteOptionList(): { name: string; help: string; suites: string[] }[] {
  const options = new Map<string, { name: string; help: string; suites: string[] }>();
  for (const suite of SUITES) {
    for (const [name, option] of Object.entries(suite.options ?? {})) {
      const known = options.get(name) ?? { name, help: option.help, suites: [] };
      known.suites.push(suite.name);
      options.set(name, known);
    }
  }
  return [...options.values()];
}

/** The suite options as `run` and `plan` take them: in the usage line, the help, and the options parsed. */
export function suiteOptionArgs() {
  const list = suiteOptionList();
  return {
    usage: list.map((o) => ` [--${o.name} V]...`).join(""),
    help: list.map((o) => `  --${`${o.name} V`.padEnd(16)}${o.help} [${o.suites.join(", ")}]`),
    options: Object.fromEntries(list.map((o) => [o.name, { type: "string", multiple: true }] as const)),
  };
}

/** The parsed command line a selection is read from: --suite, --scenario, --default-selection and each suite option. */
export type SelectionValues = { suite?: string[]; scenario?: string[]; "default-selection"?: boolean } & Record<string, unknown>;

/**
 * A command line's selection: its --suite and --scenario, and each suite option meaning the same
 * to every suite that takes it; with --default-selection, the default run's, of the suites named.
 */
export function commandLineSelection(values: SelectionValues): Selection {
  const suites = values.suite ?? [];
  const scenarios = values.scenario ?? [];
  const options = Object.fromEntries(suiteOptionList().map((o) => [o.name, (values[o.name] as string[] | undefined) ?? []]));
  if (!values["default-selection"]) return { suites: [...suites], scenarios: [...scenarios], suiteOptions: Object.fromEntries(SUITES.map((suite) => [suite.name, options])) };
  const chosenElsewhere = [...(scenarios.length > 0 ? ["scenario"] : []), ...Object.keys(options).filter((name) => options[name]!.length > 0)];
  if (chosenElsewhere.length > 0) throw new UserError(`--default-selection chooses the scenarios and apps itself: drop ${chosenElsewhere.map((name) => `--${name}`).join(" and ")}`);
  return defaultSelection(suites);
}
