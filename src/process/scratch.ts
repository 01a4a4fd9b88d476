import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { leavesUntilCleaned } from "./children.ts";

/**
 * Runs `work` in a new folder under the OS temporary folder (`runtime-bench-NAME-XXXXXX`), removed
 * once it settles, whether it returned or threw, and by the watchdog if the harness is killed first.
 */
export async function withScratchFolder<T>(name: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `runtime-bench-${name}-`));
  const removed = leavesUntilCleaned(`the scratch folder ${dir}`, { folder: dir });
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
    removed();
  }
}
