import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { access, chmod, constants, mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { UserError } from "../core/errors.ts";
import { cacheDir } from "../core/paths.ts";
import { runCommand, tail } from "../process/children.ts";
import { RUNTIMES, type RuntimeName } from "./catalog.ts";
import { targetArch } from "./emulation.ts";
import { fetchFromRegistry, fetchPackageMetadata, type PackageMetadata, type PublishedVersion } from "./registry.ts";
import { pickVersion, parseSpec, type RuntimeSpec } from "./spec.ts";

/** A runtime binary ready to run, and where it came from. */
export interface ProvisionedRuntime {
  readonly spec: RuntimeSpec;
  readonly binary: string;
  readonly source: "registry" | "path";
  /** The registry version it was resolved to; null for a path. */
  readonly resolvedVersion: string | null;
  readonly packageName: string | null;
}

export type ProgressNote = (message: string) => void;

export function runtimesCacheDir(): string {
  return join(cacheDir(), "runtimes");
}

function packageDir(packageName: string, version: string): string {
  return join(runtimesCacheDir(), packageName.replace("/", "__"), version);
}

const versionsOf = (metadata: PackageMetadata): string[] => [...metadata.versions.keys()];

/** The versions of a runtime's binary package `provision` would install from (this run's target architecture), as the registry lists them. */
export async function publishedVersions(name: RuntimeName): Promise<string[]> {
  return versionsOf(await fetchPackageMetadata(RUNTIMES[name].packageName(targetArch())));
}

export async function provision(specText: string, note: ProgressNote = () => {}): Promise<ProvisionedRuntime> {
  const spec = parseSpec(specText);
  const definition = RUNTIMES[spec.name];
  if (spec.request.kind === "path") {
    const binary = spec.request.path;
    try {
      if (!(await stat(binary)).isFile()) throw new Error("not a file");
      await access(binary, constants.X_OK);
    } catch {
      throw new UserError(`${spec.text}: ${binary} is not an executable file`);
    }
    return { spec, binary, source: "path", resolvedVersion: null, packageName: null };
  }
  const packageName = definition.packageName(targetArch());
  // An exact version already in the cache needs no network at all.
  const cached = await cachedBinary(spec);
  if (cached !== null && spec.request.kind === "exact") return { spec, binary: cached, source: "registry", resolvedVersion: spec.request.version, packageName };
  const metadata = await fetchPackageMetadata(packageName);
  const version = pickVersion(spec, versionsOf(metadata));
  const published = metadata.versions.get(version);
  if (!published) throw new UserError(`${packageName}@${version} has no tarball with a sha512 integrity in the registry`);
  const dir = packageDir(packageName, version);
  const binary = join(dir, definition.binaryInPackage);
  if (!(await isExecutable(binary))) {
    note(`downloading ${packageName}@${version}`);
    await installTarball(published, dir, packageName, definition.binaryInPackage);
  }
  return { spec, binary, source: "registry", resolvedVersion: version, packageName };
}

/** The binary of an exact registry release in the per-user cache; null when it would take a download. */
export async function cachedBinary(spec: RuntimeSpec): Promise<string | null> {
  if (spec.request.kind !== "exact") return null;
  const definition = RUNTIMES[spec.name];
  const binary = join(packageDir(definition.packageName(targetArch()), spec.request.version), definition.binaryInPackage);
  return (await isExecutable(binary)) ? binary : null;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Download, verify and unpack into a private temporary folder, then move it into place with one
 * rename. A reader sees either nothing or a complete package; two runs racing for the same version
 * both succeed and one of the copies is discarded.
 */
async function installTarball(published: PublishedVersion, finalDir: string, packageName: string, binaryInPackage: string): Promise<void> {
  const staging = join(runtimesCacheDir(), `.staging-${process.pid}-${randomBytes(4).toString("hex")}`);
  await mkdir(staging, { recursive: true });
  try {
    const tarball = join(staging, "package.tgz");
    const response = await fetchFromRegistry(published.tarball);
    if (!response.body) throw new UserError(`empty response for ${published.tarball}`);
    const hash = createHash("sha512");
    const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
    body.on("data", (chunk: Buffer) => hash.update(chunk));
    await pipeline(body, createWriteStream(tarball));
    const actual = `sha512-${hash.digest("base64")}`;
    if (actual !== published.integrity) {
      throw new UserError(
        `${packageName}@${published.version} failed its integrity check (expected ${published.integrity}, got ${actual}); nothing was cached`,
      );
    }
    const unpacked = join(staging, "unpacked");
    await mkdir(unpacked);
    const untar = await runCommand("tar", ["-xzf", tarball, "-C", unpacked], { timeoutMs: 300_000 });
    if (untar.code !== 0) throw new UserError(`cannot unpack ${packageName}@${published.version}: ${tail(untar.stderr, 1)}`);
    // Some published packages (Deno's 2.7.3 and 2.7.4) carry their binary without the executable
    // bit; npm sets it through the package's `bin`, which a plain unpack does not read.
    await chmod(join(unpacked, "package", binaryInPackage), 0o755).catch(() => {
      throw new UserError(`${packageName}@${published.version} has no ${binaryInPackage}; nothing was cached`);
    });
    await mkdir(join(finalDir, ".."), { recursive: true });
    try {
      await rename(join(unpacked, "package"), finalDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
      // Another run installed the same version first; its copy is as good as ours.
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
