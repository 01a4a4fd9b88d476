import semver from "semver";
import { UserError, errorMessage } from "../core/errors.ts";
import { RUNTIME_NAMES, RUNTIMES, type Arch, type RuntimeName } from "../runtimes/catalog.ts";
import { fetchPackageMetadata, fetchPublishTimes } from "../runtimes/registry.ts";

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
 * Each runtime's stable releases, of either architecture's binary package (a result's
 * architecture is its runner's, and a release can reach one package before the other). What the
 * feed reads to say which releases lie between a change's two versions; or why they are unknown,
 * when the registry cannot be read, since a feed is worth writing without them.
 */
export async function stableReleases(): Promise<{ releases: ReadonlyMap<string, readonly string[]> } | { unknown: string }> {
  try {
    const entries = await Promise.all(
      RUNTIME_NAMES.map(async (runtime) => {
        const lists = await Promise.all(ARCHES.map((arch) => fetchPackageMetadata(RUNTIMES[runtime].packageName(arch))));
        const versions = new Set(lists.flatMap((metadata) => [...metadata.versions.keys()]).filter((v) => semver.valid(v) !== null && semver.prerelease(v) === null));
        return [runtime, [...versions]] as const;
      }),
    );
    return { releases: new Map(entries) };
  } catch (error) {
    if (error instanceof UserError) return { unknown: errorMessage(error) };
    throw error;
  }
}
