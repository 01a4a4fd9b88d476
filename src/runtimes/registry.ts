import { UserError, errorMessage } from "../core/errors.ts";
import { runCommand } from "../process/children.ts";

export interface PublishedVersion {
  readonly version: string;
  readonly tarball: string;
  /** Subresource-integrity string, e.g. `sha512-...`. */
  readonly integrity: string;
}

export interface PackageMetadata {
  readonly name: string;
  readonly versions: ReadonlyMap<string, PublishedVersion>;
}

let registryBase: Promise<string> | undefined;

/**
 * The registry is the one npm itself uses (RUNTIME_BENCH_REGISTRY overrides it), so a mirror
 * configured for npm is honoured without configuring the harness separately.
 */
export function registryUrl(): Promise<string> {
  registryBase ??= (async () => {
    const configured = process.env.RUNTIME_BENCH_REGISTRY ?? process.env.npm_config_registry;
    if (configured) return configured.replace(/\/?$/, "/");
    const result = await runCommand("npm", ["config", "get", "registry"], { timeoutMs: 30_000 });
    const url = result.stdout.trim();
    if (result.code !== 0 || !/^https?:\/\//.test(url)) {
      throw new UserError("cannot tell which npm registry to use: set RUNTIME_BENCH_REGISTRY to its URL");
    }
    return url.replace(/\/?$/, "/");
  })();
  return registryBase;
}

const metadataCache = new Map<string, Promise<PackageMetadata>>();

export function fetchPackageMetadata(name: string): Promise<PackageMetadata> {
  let pending = metadataCache.get(name);
  if (!pending) {
    pending = loadMetadata(name);
    metadataCache.set(name, pending);
    pending.catch(() => metadataCache.delete(name));
  }
  return pending;
}

interface RawMetadata {
  versions?: Record<string, { dist?: { tarball?: string; integrity?: string } }>;
}

async function loadMetadata(name: string): Promise<PackageMetadata> {
  const base = await registryUrl();
  const url = base + name.replace("/", "%2f");
  const body = (await fetchFromRegistry(url, "application/vnd.npm.install-v1+json").then((r) => r.json())) as RawMetadata;
  const versions = new Map<string, PublishedVersion>();
  for (const [version, entry] of Object.entries(body.versions ?? {})) {
    const tarball = entry.dist?.tarball;
    const integrity = entry.dist?.integrity;
    if (tarball && integrity?.startsWith("sha512-")) versions.set(version, { version, tarball, integrity });
  }
  return { name, versions };
}

const publishTimesCache = new Map<string, Promise<ReadonlyMap<string, Date>>>();

/**
 * When each version was published. Only the full metadata document has the `time` field (the
 * abbreviated one used for installs lacks it), so this is a separate, larger request.
 */
export function fetchPublishTimes(name: string): Promise<ReadonlyMap<string, Date>> {
  let pending = publishTimesCache.get(name);
  if (!pending) {
    pending = loadPublishTimes(name);
    publishTimesCache.set(name, pending);
    pending.catch(() => publishTimesCache.delete(name));
  }
  return pending;
}

async function loadPublishTimes(name: string): Promise<ReadonlyMap<string, Date>> {
  const url = (await registryUrl()) + name.replace("/", "%2f");
  const body = (await fetchFromRegistry(url, "application/json").then((r) => r.json())) as { time?: Record<string, string> };
  const times = new Map<string, Date>();
  for (const [version, stamp] of Object.entries(body.time ?? {})) {
    const at = new Date(stamp);
    // `created` and `modified` sit beside the versions in the same object.
    if (version !== "created" && version !== "modified" && !Number.isNaN(at.getTime())) times.set(version, at);
  }
  return times;
}

/** A fetch whose failures read as one line naming the URL, never a stack. */
export async function fetchFromRegistry(url: string, accept?: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { headers: accept ? { accept } : {}, signal: AbortSignal.timeout(120_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new UserError(`cannot reach the package registry (${url}): ${cause?.code ?? cause?.message ?? errorMessage(error)}`);
  }
  if (!response.ok) throw new UserError(`the package registry answered ${response.status} for ${url}`);
  return response;
}
