import { rmSync } from "node:fs";
import { after } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";

const made: string[] = [];
after(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder, removed when the test file has run. */
export function ownTempDir(prefix: string): string {
  const dir = tempDir(prefix);
  made.push(dir);
  return dir;
}
