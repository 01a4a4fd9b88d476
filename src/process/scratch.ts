import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { leavesUntilCleaned } from "./children.ts";

/**
 * A new folder under the OS temporary folder (`runtime-bench-NAME-XXXXXX`), declared until
 * `remove` has removed it (the watchdog removes it if the harness is killed first).
 */
export async function scratchFolder(name: string, what = "the scratch folder"): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `runtime-bench-${name}-`));
  const removed = leavesUntilCleaned(`${what} ${dir}`, { folder: dir });
  return {
    dir,
    remove: async () => {
      await rm(dir, { recursive: true, force: true });
      removed();
    },
  };
}

/** Runs `work` in a scratch folder, removed once it settles, whether it returned or threw. */
export async function withScratchFolder<T>(name: string, work: (dir: string) => Promise<T>): Promise<T> {
  const { dir, remove } = await scratchFolder(name);
  try {
    return await work(dir);
  } finally {
    await remove();
  }
}
