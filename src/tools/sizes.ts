import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The regular files under `dirs`, symlinks not followed; a folder that cannot be read is passed over. */
function* regularFiles(dirs: readonly string[]): Generator<string> {
  const stack = [...dirs];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) yield path;
    }
  }
}

/** How many regular files are under a folder, symlinks not followed. */
export function fileCount(dir: string): number {
  let files = 0;
  const walk = regularFiles([dir]);
  while (!walk.next().done) files += 1;
  return files;
}

/** Apparent size (MB, 10^6 bytes) and count of the regular files under a folder, symlinks not followed. */
export function folderSize(dir: string): { mb: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const path of regularFiles([dir])) {
    bytes += lstatSync(path).size;
    files += 1;
  }
  return { mb: Math.round(bytes / 1e4) / 100, files };
}

/**
 * A moment on the file system's own clock, which runs a tick behind the wall clock: files whose
 * ctime is later were created or changed after it. It waits past the clock's tick (4 ms at most on
 * Linux) so that nothing written after it shares its time.
 */
export async function fileSystemNow(scratchDir: string): Promise<bigint> {
  const marker = join(scratchDir, `.now-${process.pid}-${Date.now()}`);
  await writeFile(marker, "");
  const { ctimeNs } = await stat(marker, { bigint: true });
  await rm(marker, { force: true });
  await sleep(10);
  return ctimeNs;
}

/**
 * Files under `dirs` created or changed after `since` (a fileSystemNow), each file once however many
 * hard links it has there: what a command wrote. Their ctime, which an extraction cannot set back
 * as it sets the modification time from a tarball; a file linked into place counts as changed.
 */
export function filesChangedSince(dirs: readonly string[], since: bigint): number {
  const seen = new Set<string>();
  for (const path of regularFiles(dirs)) {
    const file = lstatSync(path, { bigint: true });
    if (file.ctimeNs > since) seen.add(`${file.dev}:${file.ino}`);
  }
  return seen.size;
}
