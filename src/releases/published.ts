import semver from "semver";
import { UserError, errorMessage } from "../core/errors.ts";
import { RUNTIME_NAMES, RUNTIMES, type Arch, type RuntimeName } from "../runtimes/catalog.ts";
import { fetchPackageMetadata, fetchPublishTimes, type PackageMetadata } from "../runtimes/registry.ts";

/** A version of a runtime as published in the registry, pre-releases included. */
export interface Release {
  readonly version: string;
  readonly published: Date;
}

/**
 * Every version of the runtime's binary package for this architecture that the harness can
 * install (it has a sha512 integrity), with its publish time, newest first. The architectures
 * are separate packages, so a version can appear for one before the other.
 */
export async function publishedReleases(runtime: RuntimeName, arch: Arch): Promise<Release[]> {
  const packageName = RUNTIMES[runtime].packageName(arch);
  const [metadata, times] = await Promise.all([fetchPackageMetadata(packageName), fetchPublishTimes(packageName)]);
  const releases: Release[] = [];
  for (const version of metadata.versions.keys()) {
    const published = times.get(version);
    if (published && semver.valid(version)) releases.push({ version, published });
  }
  return releases.sort((a, b) => semver.rcompare(a.version, b.version));
}

const ARCHES: readonly Arch[] = ["x86_64", "arm64"];

/**
 * Each runtime's stable releases, for the feed to say which releases lie between a change's two
 * versions; or why they are unknown, when the registry cannot be read, since a feed is worth
 * writing without them. Under `runtime@machine`, those of the machine's architecture: its results
 * can come from those alone, and a release can reach one architecture's package and not the other
 * (Node's 26.11.0 has an arm64 package and no x86_64 one). Under `runtime`, either architecture's,
 * for a runner no machine list declares.
 */
export async function stableReleases(machines: readonly { readonly name: string; readonly arch: Arch }[]): Promise<{ releases: ReadonlyMap<string, readonly string[]> } | { unknown: string }> {
  try {
    const releases = new Map<string, readonly string[]>();
    await Promise.all(
      RUNTIME_NAMES.map(async (runtime) => {
        const byArch = new Map(await Promise.all(ARCHES.map(async (arch) => [arch, stable(await fetchPackageMetadata(RUNTIMES[runtime].packageName(arch)))] as const)));
        releases.set(runtime, [...new Set([...byArch.values()].flat())]);
        for (const machine of machines) releases.set(`${runtime}@${machine.name}`, byArch.get(machine.arch)!);
      }),
    );
    return { releases };
  } catch (error) {
    if (error instanceof UserError) return { unknown: errorMessage(error) };
    throw error;
  }
}

function stable(metadata: PackageMetadata): string[] {
  return [...metadata.versions.keys()].filter((v) => semver.valid(v) !== null && semver.prerelease(v) === null);
}
