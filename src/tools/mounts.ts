import { readFileSync } from "node:fs";

/** One mount of /proc/self/mountinfo. */
export interface Mount {
  readonly mount_point: string;
  readonly type: string;
  readonly source: string;
  /** The mount's options and the filesystem's own (e.g. "rw,relatime" and "rw,errors=remount-ro"). */
  readonly mount_options: string;
  readonly super_options: string;
}

// /proc/self/mountinfo escapes spaces, tabs, newlines and backslashes in octal.
const unescape = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The mount that holds `realPath` (a path with no links in it: the longest mount point above it), from /proc/self/mountinfo. */
export function mountHolding(realPath: string, mountinfo = readFileSync("/proc/self/mountinfo", "utf8")): Mount {
  let best: Mount | undefined;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 6 || fields.length < dash + 4) continue;
    const mountPoint = unescape(fields[4]!);
    const inside = mountPoint === "/" || realPath === mountPoint || realPath.startsWith(`${mountPoint}/`);
    // Later lines are mounted over earlier ones at the same point.
    if (!inside || (best && best.mount_point.length > mountPoint.length)) continue;
    best = {
      mount_point: mountPoint,
      type: fields[dash + 1]!,
      source: unescape(fields[dash + 2]!),
      mount_options: fields[5]!,
      super_options: fields[dash + 3]!,
    };
  }
  if (!best) throw new Error(`no mount holds ${realPath} in /proc/self/mountinfo`);
  return best;
}
