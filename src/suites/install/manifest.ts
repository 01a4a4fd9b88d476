import { selectApps } from "../../apps/manifest.ts";
import type { ParamValue } from "../../core/params.ts";
import type { RuntimeName } from "../../runtimes/catalog.ts";
import type { Subject, SuiteScenario } from "../suite.ts";
import type { InstallState, Manager } from "./managers.ts";

/** The `install` block of a scenario manifest (schemas/suites/install.schema.json#/$defs/config). */
export interface InstallConfig {
  package_json: string;
}

/** A profile of an install scenario (schemas/suites/install.schema.json#/$defs/profile). */
export interface InstallProfile {
  trials: number;
  runs: number;
  states: InstallState[];
  [key: string]: unknown;
}

export interface InstallOptions {
  readonly apps: readonly string[];
  /** "local": a verdaccio on loopback, primed before timing; "upstream": the registry npm is configured with. */
  readonly registry: "local" | "upstream";
}

export type InstallSubject = Subject<InstallConfig, InstallProfile>;
export type InstallScenario = SuiteScenario<InstallConfig, InstallProfile>;

/** A scenario's cells on a runtime, one result each: every manager that runs there, in every state of the profile, with the load point its result records. */
export function cellsOf(scenario: InstallScenario, runtime: RuntimeName, managers: readonly Manager[], options: InstallOptions): { manager: Manager; state: InstallState; params: Record<string, ParamValue> }[] {
  const chosen = selectApps(managers, options.apps).filter((manager) => manager.manifest.runtimes[runtime]);
  return chosen.flatMap((manager) => scenario.profileParams.states.map((state) => ({ manager, state, params: { state, registry: options.registry } })));
}
