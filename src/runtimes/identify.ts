import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { UserError } from "../core/errors.ts";
import { runCommand, tail } from "../process/children.ts";
import { withScratchFolder } from "../process/scratch.ts";
import { RUNTIMES, type RuntimeName } from "./catalog.ts";
import { emulatedArgv, emulation, emulationProblem, type Emulation } from "./emulation.ts";
import type { ProvisionedRuntime } from "./provision.ts";

/** What is really run, as the result records it: reported by the binary itself, not by the spec. */
export interface RuntimeIdentity {
  readonly name: RuntimeName;
  readonly version: string;
  readonly engine: string;
  readonly source: "registry" | "path";
  readonly sha256: string;
  readonly spec: string;
  readonly package: string | null;
}

export interface IdentifiedRuntime {
  readonly provisioned: ProvisionedRuntime;
  readonly identity: RuntimeIdentity;
  /** What the run calls this subject (`base`, `node-22.11.0`): unique within a run, recorded in each result. */
  readonly label: string;
  /** Set when the binary is another architecture's, run under an emulator. */
  readonly emulation?: Emulation;
}

export async function identify(provisioned: ProvisionedRuntime): Promise<IdentifiedRuntime> {
  const { spec, binary } = provisioned;
  const definition = RUNTIMES[spec.name];
  const emulated = emulation();
  const cannot = emulated && emulationProblem(emulated);
  if (cannot) throw new UserError(cannot);
  // Deno keeps a cache even for an eval: a folder of the probe's own, so the user's ~/.cache/deno is never touched.
  const [command, ...args] = emulatedArgv(emulated, [binary, ...definition.probeArgs]);
  const probe = await withScratchFolder("probe", (denoDir) =>
    runCommand(command!, args, {
      env: { ...process.env, ...definition.env, ...emulated?.env, DENO_DIR: denoDir },
      timeoutMs: 60_000,
    }),
  );
  let reported: { version?: unknown; engine?: unknown } = {};
  try {
    reported = JSON.parse(probe.stdout.trim().split("\n").pop() ?? "") as typeof reported;
  } catch {
    // handled below
  }
  if (probe.code !== 0 || typeof reported.version !== "string" || typeof reported.engine !== "string") {
    const why = probe.spawnError ?? (tail(probe.stderr, 1) || `exit code ${probe.code}`);
    throw new UserError(`${spec.text}: ${binary} does not run as ${spec.name}: ${why}`);
  }
  if (provisioned.resolvedVersion !== null && reported.version !== provisioned.resolvedVersion) {
    throw new UserError(`${spec.text}: the binary reports ${reported.version}, not ${provisioned.resolvedVersion}`);
  }
  return {
    provisioned,
    label: `${spec.name}-${reported.version}`,
    identity: {
      name: spec.name,
      version: reported.version,
      engine: reported.engine,
      source: provisioned.source,
      sha256: await sha256File(binary),
      spec: spec.text,
      package: provisioned.packageName,
    },
    ...(emulated ? { emulation: emulated } : {}),
  };
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}
