/**
 * The claims a result makes about its machine, held against `.github/bench-runners.json`: its kind,
 * and the identity of the machine of that name. A dedicated runner is tuned and pinned to its
 * hardware, so its results must carry its fingerprint and meet docs/machine-tuning.md. A reference
 * testbed is a shared cloud VM whose host changes (and its fingerprint with it), never tuned: its
 * results must report one of its declared CPU families, and carry the settings they lacked.
 */
import type { ResultDocument } from "../results/types.ts";
import { cpuModelMatches, isTestbed, type BenchMachine } from "../releases/runners.ts";

/** A result and the machine of the name it claims (undefined: none is declared). */
export interface MachineClaim {
  readonly doc: ResultDocument;
  readonly runner: BenchMachine | undefined;
}

const FILE = ".github/bench-runners.json";

/** The kind of machine a result says it ran on must be the kind declared under that name. */
function kindRefusal({ doc, runner }: MachineClaim): string | undefined {
  const kind = doc.run.runner_kind;
  if (kind !== "dedicated" && kind !== "reference") return `a ${kind} runner's result; only dedicated runners' and reference testbeds' results are published`;
  if (runner === undefined) return undefined;
  if (kind === "reference" && !isTestbed(runner)) return `claims a reference testbed, but ${runner.name} is a dedicated runner (${FILE})`;
  if (kind === "dedicated" && isTestbed(runner)) return `claims a dedicated runner, but ${runner.name} is a reference testbed (${FILE})`;
  return undefined;
}

/** A dedicated runner's fingerprint, or a testbed's CPU family. */
function identityRefusal({ doc, runner }: MachineClaim): string | undefined {
  if (runner === undefined) return undefined;
  const { fingerprint, cpu_model: model } = doc.environment;
  if (isTestbed(runner)) {
    return cpuModelMatches(model, runner.cpu_models) ? undefined : `reports CPU model '${model}', which is none of ${runner.name}'s CPU models (${runner.cpu_models.join(", ")}; ${FILE})`;
  }
  if (runner.fingerprint === fingerprint) return undefined;
  return runner.fingerprint === undefined
    ? `${runner.name} has no fingerprint in ${FILE}; this result's is ${fingerprint} (docs/self-hosted-runner.md, "Check the machine")`
    : `claims fingerprint ${fingerprint}, but ${runner.name}'s is ${runner.fingerprint} (${FILE})`;
}

/** Collect's checks of a result's machine (each returns why it cannot be published, or nothing). */
export const MACHINE_CHECKS: readonly ((claim: MachineClaim) => string | undefined)[] = [kindRefusal, identityRefusal];

/**
 * Why a result measured on a machine short of docs/machine-tuning.md is refused, or nothing. A
 * reference testbed is untuned by declaration: its results are published with what they lacked
 * recorded in them. `acceptUntuned`: a workflow run locally under scripts/act, where this machine
 * stands in for the benchmark machines.
 */
export function untunedRefusal({ doc, runner }: MachineClaim, acceptUntuned: boolean): string | undefined {
  const unmet = doc.environment.machine?.unmet ?? [];
  if (unmet.length === 0 || acceptUntuned || (runner !== undefined && isTestbed(runner))) return undefined;
  return `measured on a machine not tuned for benchmarking (docs/machine-tuning.md): ${unmet.join("; ")}`;
}
