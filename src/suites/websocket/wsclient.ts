import { UserError } from "../../core/errors.ts";
import { runCommand, tail } from "../../process/children.ts";

const HOW_TO_INSTALL = "built by scripts/bench with go from src/suites/websocket/client into ~/.cache/runtime-bench/tools/bin";

let version: Promise<string> | undefined;

/** `wsclient -version`: the hash of its source and the gorilla/websocket version it was built with. */
export function wsclientVersion(): Promise<string> {
  version ??= (async () => {
    const result = await runCommand("wsclient", ["-version"], { timeoutMs: 30_000 });
    const line = /^wsclient (.+)$/m.exec(result.stdout)?.[1];
    if (result.spawnError || result.code !== 0 || line === undefined) throw new UserError(`wsclient is not installed or does not run (${HOW_TO_INSTALL})`);
    return line.trim();
  })();
  return version;
}

export const WSCLIENT_TOOL = { name: "wsclient", version: wsclientVersion } as const;

export class ClientError extends Error {
  override readonly name = "ClientError";
}

/** Round-trip (or delivery) times as wsclient reports them, in microseconds. */
export interface Percentiles {
  readonly count: number;
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
}

export interface Mismatch {
  readonly connection: number;
  readonly sequence: number;
  readonly sent_bytes: number;
  readonly got_bytes: number;
  readonly got_type: string;
  readonly first_differing_byte: number;
}

interface LoadReportCommon {
  readonly message_bytes: number;
  readonly binary: boolean;
  readonly duration_s: number;
  readonly received: number;
  readonly mismatched: number;
  /** Wrong echoes or deliveries during a warm-up given with -warmup (the harness warms up in a run of its own). */
  readonly warmup_mismatched: number;
  readonly messages_per_s: number;
  readonly client_cpu: { readonly user_s: number; readonly system_s: number };
  readonly close_answered: number;
  readonly errors: Record<string, number>;
}

export interface EchoReport extends LoadReportCommon {
  readonly mode: "echo";
  readonly connections: number;
  readonly sent: number;
  readonly rtt_us: Percentiles;
  readonly first_mismatch?: Mismatch;
}

export interface BroadcastReport extends LoadReportCommon {
  readonly mode: "broadcast";
  readonly receivers: number;
  readonly window: number;
  readonly sent: number;
  readonly expected_deliveries: number;
  readonly sender_received: number;
  readonly delivery_us: Percentiles;
}

export interface VerifyCheck {
  readonly name: string;
  readonly passed: boolean;
  readonly messages?: number;
  readonly mismatched?: number;
  readonly difference?: string;
  readonly first_mismatch?: Mismatch;
}

export interface VerifyReport {
  readonly seed: number;
  readonly passed: boolean;
  readonly checks: readonly VerifyCheck[];
}

export type LoadSpec =
  | { readonly mode: "echo"; readonly url: string; readonly connections: number; readonly size: number; readonly binary: boolean; readonly warmupS: number; readonly durationS: number }
  | {
      readonly mode: "broadcast";
      readonly url: string;
      readonly receivers: number;
      readonly window: number;
      readonly size: number;
      readonly binary: boolean;
      readonly warmupS: number;
      readonly durationS: number;
    };

/** Every flag that shapes what the server sees; the same for every runtime and app. */
export function wsclientArgs(spec: LoadSpec): string[] {
  const args = [spec.mode, "-url", spec.url, "-size", String(spec.size), "-warmup", `${Math.round(spec.warmupS * 1000)}ms`, "-duration", `${Math.round(spec.durationS * 1000)}ms`];
  if (spec.binary) args.push("-binary");
  if (spec.mode === "echo") args.push("-connections", String(spec.connections));
  else args.push("-receivers", String(spec.receivers), "-window", String(spec.window));
  return args;
}

/** Runs wsclient (pinned by the `pin` prefix) and reads its JSON report, never its printed text. */
async function runJson<T>(args: readonly string[], pin: readonly string[], timeoutMs: number): Promise<T> {
  const argv = [...pin, "wsclient", ...args];
  const result = await runCommand(argv[0]!, argv.slice(1), { timeoutMs });
  if (result.timedOut) throw new ClientError(`wsclient ${args[0]} did not finish within ${timeoutMs / 1000} s`);
  if (result.code !== 0) throw new ClientError(`wsclient ${args[0]} exited with ${result.code ?? result.signal}: ${tail(result.stderr, 3) || result.spawnError || ""}`);
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new ClientError(`wsclient ${args[0]} did not print JSON: ${tail(result.stdout, 3).slice(0, 300)}`);
  }
}

export function runLoad(spec: LoadSpec, pin: readonly string[]): Promise<EchoReport | BroadcastReport> {
  return runJson(wsclientArgs(spec), pin, (spec.warmupS + spec.durationS + 60) * 1000);
}

/** Text and binary echoes (contents and sizes from a fresh seed each time) and the closing handshake. */
export function runVerify(url: string, maxBinary: number): Promise<VerifyReport> {
  return runJson(["verify", "-url", url, "-texts", "200", "-binaries", "100", "-max-binary", String(maxBinary)], [], 60_000);
}
