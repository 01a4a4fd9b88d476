import { runWithUsage, type ResourceUsage } from "../../tools/gnu-time.ts";
import { toolVersion } from "../../tools/locate.ts";
import { tail } from "../../process/children.ts";

export function ohaVersion(): Promise<string> {
  return toolVersion("oha", ["--version"], "built by scripts/bench with cargo into ~/.cache/runtime-bench/tools/bin");
}

export const OHA_TOOL = { name: "oha", version: ohaVersion } as const;

export interface LoadRequest {
  readonly method: string;
  readonly url: string;
  /** Sent with Content-Type: application/json. */
  readonly body?: string;
}

export interface LoadSpec {
  readonly request: LoadRequest;
  readonly connections: number;
  readonly keepalive: boolean;
  readonly durationS: number;
  /** Fixed arrival rate (requests/s) with latency correction; absent for as-fast-as-possible load. */
  readonly rate?: number;
  /** Tokio worker threads: one per CPU oha may use. */
  readonly threads: number;
  /** Prefix that pins oha to its CPUs (taskset), empty when nothing is pinned. */
  readonly pin: readonly string[];
}

/** The facts the harness keeps from oha's JSON output. */
export interface OhaReport {
  readonly totalS: number;
  readonly latencyS: { p50: number; p90: number; p99: number; p999: number };
  readonly statusCodes: Record<string, number>;
  readonly errors: Record<string, number>;
}

export interface LoadOutcome {
  readonly report: OhaReport;
  /** oha's own CPU and wall time, from the kernel. */
  readonly usage: ResourceUsage;
  readonly argv: readonly string[];
}

export class LoadError extends Error {
  override readonly name = "LoadError";
}

/** Every header and flag that shapes what the server sees; the same for every runtime and app. */
export function ohaArgs(spec: LoadSpec): string[] {
  const args = [
    "--no-tui",
    "--output-format", "json",
    "-z", `${Math.round(spec.durationS * 1000)}ms`,
    "-c", String(spec.connections),
    "--worker-threads", String(spec.threads),
    // Deno compresses when asked, and oha asks by default: every runtime gets the same plain bytes.
    "-H", "Accept-Encoding: identity",
    // Requests still in flight at the deadline are waited for, so none is counted as an error.
    "-w",
    "-t", "10s",
    "-m", spec.request.method,
  ];
  if (!spec.keepalive) args.push("--disable-keepalive");
  if (spec.rate !== undefined) args.push("-q", String(spec.rate), "--latency-correction");
  if (spec.request.body !== undefined) args.push("-T", "application/json", "-d", spec.request.body);
  args.push(spec.request.url);
  return args;
}

function numberAt(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new LoadError(`oha's JSON has no number at ${what}`);
  return value;
}

/** Reads oha's `--output-format json` document (never its printed text). */
export function parseOhaReport(text: string): OhaReport {
  let doc: {
    summary?: { total?: unknown };
    latencyPercentiles?: Record<string, unknown>;
    statusCodeDistribution?: Record<string, number>;
    errorDistribution?: Record<string, number>;
  };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    throw new LoadError(`oha did not print JSON: ${tail(text, 3).slice(0, 300)}`);
  }
  const percentiles = doc.latencyPercentiles ?? {};
  const statusCodes = doc.statusCodeDistribution ?? {};
  const answered = Object.values(statusCodes).reduce((sum, n) => sum + n, 0);
  // With no answered request oha has no percentiles to give; the caller reports the errors.
  const at = (key: string) => (answered === 0 ? Number.NaN : numberAt(percentiles[key], `latencyPercentiles.${key}`));
  return {
    totalS: numberAt(doc.summary?.total, "summary.total"),
    latencyS: { p50: at("p50"), p90: at("p90"), p99: at("p99"), p999: at("p99.9") },
    statusCodes,
    errors: doc.errorDistribution ?? {},
  };
}

/** Runs oha once under GNU time and returns what it measured; a failure to run at all is a LoadError. */
export async function runOha(spec: LoadSpec, reportDir: string): Promise<LoadOutcome> {
  const argv = [...spec.pin, "oha", ...ohaArgs(spec)];
  const { result, usage } = await runWithUsage(argv, { timeoutMs: (spec.durationS + 60) * 1000 }, reportDir);
  if (result.timedOut) throw new LoadError("oha did not finish in time");
  if (result.code !== 0 || usage === null) {
    throw new LoadError(`oha exited with ${result.code ?? result.signal}: ${tail(result.stderr, 5) || result.spawnError || ""}`);
  }
  return { report: parseOhaReport(result.stdout), usage, argv };
}
