import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../src/core/paths.ts";

export interface BenchOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/bench ARGS` as a user would, with extra environment variables. */
export function bench(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<BenchOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(REPO_ROOT, "scripts/bench"), args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `rb-test-${prefix}-`));
}

/** The runtime versions the integration tests pin, as in the issues' examples. */
export const PINNED = ["node@22.11.0", "bun@1.2.0", "deno@2.1.4"] as const;
