import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { UserError } from "../../core/errors.ts";
import { cacheDir } from "../../core/paths.ts";
import { runCommand } from "../../process/children.ts";
import { RunningServer } from "../../tools/server.ts";
import { UpstreamGate } from "./gate.ts";

const require = createRequire(import.meta.url);

export function verdaccioVersion(): string {
  return (require("verdaccio/package.json") as { version: string }).version;
}

/** The registry npm is configured with on this machine: what the local registry proxies, and what `--registry upstream` times against. */
export async function configuredRegistry(): Promise<string> {
  const result = await runCommand("npm", ["config", "get", "registry"], { timeoutMs: 30_000 });
  const url = result.stdout.trim().split("\n").pop() ?? "";
  if (result.code !== 0 || !/^https?:\/\//.test(url)) throw new UserError(`could not read npm's configured registry ('npm config get registry' printed '${url}')`);
  return url.endsWith("/") ? url : `${url}/`;
}

/** Where the local registry keeps its packages between runs, one folder per snapshot key. */
export function registryStorageDir(key: string): string {
  return join(cacheDir(), "install-registry", key);
}

// Stored package documents are never refreshed: the snapshot the lockfiles were made from stays put.
const NEVER_REFRESH = "36500d";

function verdaccioConfig(storage: string, uplink: string): string {
  return [
    `storage: ${JSON.stringify(storage)}`,
    "uplinks:",
    "  upstream:",
    `    url: ${JSON.stringify(uplink)}`,
    `    maxage: ${NEVER_REFRESH}`,
    "    timeout: 120s",
    "    max_fails: 100",
    "packages:",
    "  '**':",
    "    access: $all",
    "    publish: $nobody",
    "    proxy: upstream",
    "web:",
    "  enable: false",
    "log:",
    "  type: stdout",
    "  format: json",
    "  level: error",
    "",
  ].join("\n");
}

/**
 * verdaccio on loopback, in front of the upstream registry through the gate. Its storage folder
 * outlives the run (that is the cache); the process and the gate do not.
 */
export class LocalRegistry {
  private constructor(
    private readonly server: RunningServer,
    readonly gate: UpstreamGate,
    readonly storage: string,
  ) {}

  /** `pin` is the argv prefix that keeps verdaccio on its own CPUs. */
  static async start(storage: string, upstream: string, configDir: string, pin: readonly string[] = []): Promise<LocalRegistry> {
    await mkdir(storage, { recursive: true });
    await mkdir(configDir, { recursive: true });
    const gate = await UpstreamGate.start(upstream);
    const config = join(configDir, "verdaccio.yaml");
    await writeFile(config, verdaccioConfig(storage, gate.url));
    const bin = require.resolve("verdaccio/bin/verdaccio");
    try {
      // verdaccio takes its address as a flag; the port is chosen by RunningServer and passed in $PORT.
      const server = await RunningServer.start({
        argv: [...pin, "/bin/sh", "-c", 'exec "$0" "$1" --config "$2" --listen "$HOST:$PORT"', process.execPath, bin, config],
        cwd: configDir,
        env: { ...process.env, NODE_OPTIONS: "" },
        readyTimeoutMs: 60_000,
      });
      return new LocalRegistry(server, gate, storage);
    } catch (error) {
      await gate.close();
      throw error;
    }
  }

  /** The registry's address as the managers are given it (with the trailing slash npm writes). */
  get url(): string {
    return `${this.server.url}/`;
  }

  get exited(): string | null {
    return this.server.exited;
  }

  output(): { stdout: string; stderr: string } {
    return this.server.output();
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.gate.close();
  }
}

/**
 * The registry address committed lockfiles carry (verdaccio's default port). bun.lock records
 * every tarball's absolute address; the run's real address replaces this one when a lockfile is
 * staged, and the lockfile script writes this one back, so no committed file depends on a port.
 */
export const CANONICAL_REGISTRY = "http://127.0.0.1:4873/";

export function withRegistry(lockfileText: string, from: string, to: string): string {
  return lockfileText.replaceAll(from, to);
}

/** A key of the registry snapshot a scenario needs: its package.json and committed lockfiles. */
export function snapshotKey(scenarioName: string, files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of [...files].sort()) {
    hash.update(file).update("\0");
    if (existsSync(file)) hash.update(readFileSync(file));
    hash.update("\0");
  }
  return `${scenarioName}-${hash.digest("hex").slice(0, 12)}`;
}
