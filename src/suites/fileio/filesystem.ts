import { constants, closeSync, openSync, readFileSync, realpathSync, statfsSync } from "node:fs";
import { errorMessage } from "../../core/errors.ts";

/** What the numbers of a file I/O run depend on besides the runtime: where its data lives. */
export interface FilesystemInfo {
  readonly mount_point: string;
  readonly type: string;
  readonly source: string;
  /** The mount's options and the filesystem's own (e.g. "rw,relatime" and "rw,errors=remount-ro"). */
  readonly mount_options: string;
  readonly super_options: string;
  /** A tmpfs "disk" benchmark measures memory copies. */
  readonly tmpfs: boolean;
  readonly block_bytes: number;
}

// /proc/self/mountinfo escapes spaces, tabs, newlines and backslashes in octal.
const unescape = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The mount that holds `path` (the longest mount point above it), from /proc/self/mountinfo. */
export function filesystemOf(path: string, mountinfo = readFileSync("/proc/self/mountinfo", "utf8")): Omit<FilesystemInfo, "block_bytes"> {
  const real = realpathSync(path);
  let best: Omit<FilesystemInfo, "block_bytes"> | undefined;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 6 || fields.length < dash + 4) continue;
    const mountPoint = unescape(fields[4]!);
    const inside = mountPoint === "/" || real === mountPoint || real.startsWith(`${mountPoint}/`);
    // Later lines are mounted over earlier ones at the same point.
    if (!inside || (best && best.mount_point.length > mountPoint.length)) continue;
    const type = fields[dash + 1]!;
    best = {
      mount_point: mountPoint,
      type,
      source: unescape(fields[dash + 2]!),
      mount_options: fields[5]!,
      super_options: fields[dash + 3]!,
      tmpfs: type === "tmpfs" || type === "ramfs",
    };
  }
  if (!best) throw new Error(`no mount holds ${real} in /proc/self/mountinfo`);
  return best;
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
