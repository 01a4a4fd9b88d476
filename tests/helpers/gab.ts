import assert from "node:assert/strict";
import { bench } from "../../benchmarks/lib/cli.ts";
import type { GabEntry } from "../../src/export/gab.ts";

/** Both of `scripts/bench export gab`'s files for the results under `dir`, as github-action-benchmark reads them. */
export async function exportedEntries(dir: string): Promise<GabEntry[]> {
  const entries: GabEntry[] = [];
  for (const better of ["higher", "lower"]) {
    const result = await bench(["export", "gab", dir, "--better", better]);
    assert.equal(result.code, 0, result.stderr);
    entries.push(...(JSON.parse(result.stdout) as GabEntry[]));
  }
  return entries;
}

/** The entries with a value of 0 (or less): a ratio to one is infinite, and the action reports "Infinityx worse". */
export function zeroValued(entries: readonly GabEntry[]): string[] {
  return entries.filter((entry) => !(entry.value > 0)).map((entry) => `${entry.name} = ${entry.value}`);
}
