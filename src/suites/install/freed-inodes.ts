import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { cacheDir } from "../../core/paths.ts";
import { wholeSecondsSetting } from "../../core/settings.ts";
import { mountHolding } from "../../tools/mounts.ts";
import { fileCount } from "../../tools/sizes.ts";

/**
 * ext4 without a journal is slow to reuse a freed inode (fs/ext4/ialloc.c, recently_deleted): each
 * allocation in the block group passes over every inode freed in the last minute, or six while
 * their table block is unwritten, a buffer lookup apiece. On the reference machine, 1,500 new files
 * took 39 ms, and up to 508 ms for six minutes after 50,000 were deleted (docs/suites/install.md).
 * So a session deletes its trees only when it closes, notes when, and the next session waits that
 * long before its checks. Other file systems reuse inodes at once: no note, no wait.
 */
export const SETTLE_S = 370;
/** Fewer freed files than this slow an install of `small` by less than its noise. */
const NOTED_FROM_FILES = 500;

function stampFile(): string {
  return join(cacheDir(), "install-trees-freed.json");
}

/** Whether `realPath` lies on ext4 mounted without a journal, from /proc/self/mountinfo and the journals /proc/fs/jbd2 lists (device-inode). */
export function onJournalLessExt4(realPath: string, mountinfo: string, journals: readonly string[]): boolean {
  const mount = mountHolding(realPath, mountinfo);
  if (mount.type !== "ext4") return false;
  const device = basename(mount.source);
  return !journals.some((name) => name.startsWith(`${device}-`));
}

function delaysInodeReuse(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const journals = existsSync("/proc/fs/jbd2") ? readdirSync("/proc/fs/jbd2") : [];
  return onJournalLessExt4(realpathSync(dir), readFileSync("/proc/self/mountinfo", "utf8"), journals);
}

/** RUNTIME_BENCH_INSTALL_SETTLE, else SETTLE_S: 0 where no figure is compared (the tests). */
export function settleSeconds(env: NodeJS.ProcessEnv = process.env): number {
  return wholeSecondsSetting(env, "RUNTIME_BENCH_INSTALL_SETTLE", SETTLE_S, 0, `use e.g. ${SETTLE_S}, or 0 not to wait`);
}

/** How long to wait still, from a stamp as removeTrees writes it; 0 for one that is not (a crash cut it short) or lies ahead of the clock. */
export function secondsLeft(stamp: string, nowMs: number, windowS: number): { seconds: number; files: number } {
  let noted: { at?: unknown; files?: unknown };
  try {
    noted = JSON.parse(stamp) as typeof noted;
  } catch {
    return { seconds: 0, files: 0 };
  }
  if (typeof noted.at !== "number" || typeof noted.files !== "number" || noted.at > nowMs) return { seconds: 0, files: 0 };
  return { seconds: Math.max(0, Math.ceil((noted.at + windowS * 1000 - nowMs) / 1000)), files: noted.files };
}

/** Deletes a session's install folder; where that delays inode reuse, notes when, if it held enough files to matter. */
export async function removeTrees(root: string): Promise<void> {
  const delays = delaysInodeReuse(root);
  const files = delays ? fileCount(root) : 0;
  await rm(root, { recursive: true, force: true });
  if (files < NOTED_FROM_FILES) return;
  await mkdir(cacheDir(), { recursive: true });
  await writeFile(stampFile(), JSON.stringify({ at: Date.now(), files }));
}

/** Waits, saying why, until the trees the last session deleted no longer slow the creation of files. */
export async function waitForFreedInodes(dir: string, windowS: number, log: (line: string) => void): Promise<void> {
  if (windowS === 0 || !delaysInodeReuse(dir)) return;
  const stamp = await readFile(stampFile(), "utf8").catch(() => null);
  if (stamp === null) return;
  const { seconds, files } = secondsLeft(stamp, Date.now(), windowS);
  if (seconds === 0) return;
  log(`install: waiting ${seconds} s before timing: the last run deleted ${files} files, and ext4 without a journal creates files slowly for six minutes after (docs/suites/install.md)`);
  await sleep(seconds * 1000);
}
