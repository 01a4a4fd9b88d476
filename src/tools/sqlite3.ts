import { runCommand, tail } from "../process/children.ts";
import { toolVersion } from "./locate.ts";

/**
 * The sqlite3 command-line shell: the harness's own SQLite client, which makes the database files
 * and checks what drivers wrote, independent of every SQLite build a runtime bundles.
 */
export function sqlite3Version(): Promise<string> {
  return toolVersion("sqlite3", ["--version"], "Debian package 'sqlite3'; scripts/bench installs it");
}

/** `name` is also `ensure_sqlite3` in scripts/lib/common.sh. */
export const SQLITE3_TOOL = { name: "sqlite3", version: sqlite3Version } as const;

/** Runs SQL (or a script file) on a database file; returns the output, one row a line, columns separated by tabs. */
export async function sqlite3(file: string, sql: { command: string } | { script: string }, timeoutMs = 120_000): Promise<string> {
  const input = "command" in sql ? sql.command : `.read ${sql.script}`;
  const result = await runCommand("sqlite3", ["-batch", "-bail", "-noheader", "-separator", "\t", file, input], { timeoutMs });
  if (result.code !== 0) {
    throw new Error(`sqlite3 on ${file}: ${result.timedOut ? "timed out" : tail(result.stderr || result.spawnError || "", 3)}`);
  }
  return result.stdout;
}
