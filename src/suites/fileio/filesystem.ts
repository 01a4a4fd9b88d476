import { constants, closeSync, openSync, realpathSync, statfsSync } from "node:fs";
import { errorMessage } from "../../core/errors.ts";
import { mountHolding, type Mount } from "../../tools/mounts.ts";

/** What the numbers of a file I/O run depend on besides the runtime: where its data lives. */
export interface FilesystemInfo extends Filesystem {
  readonly block_bytes: number;
}

export interface Filesystem extends Mount {
  /** A tmpfs "disk" benchmark measures memory copies. */
  readonly tmpfs: boolean;
}

/** The mount that holds `path`, its links resolved. */
export function filesystemOf(path: string, mountinfo?: string): Filesystem {
  const mount = mountHolding(realpathSync(path), mountinfo);
  return { ...mount, tmpfs: mount.type === "tmpfs" || mount.type === "ramfs" };
}

export function describeFilesystem(path: string): FilesystemInfo {
  return { ...filesystemOf(path), block_bytes: statfsSync(path).bsize };
}

export function freeBytes(path: string): number {
  const stat = statfsSync(path);
  return stat.bavail * stat.bsize;
}

export const DROP_CACHES = "/proc/sys/vm/drop_caches";

/** Why the page cache cannot be dropped here, or null when it can (opening it for writing drops nothing). */
export function dropCachesRefusal(path = DROP_CACHES): string | null {
  try {
    closeSync(openSync(path, constants.O_WRONLY));
    return null;
  } catch (error) {
    return `cold cache needs write access to ${path}, which this user lacks (${errorMessage(error)}); run as root outside a read-only /proc`;
  }
}
