import semver from "semver";
import { RUNTIMES, type Arch, type RuntimeName } from "../runtimes/catalog.ts";
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
