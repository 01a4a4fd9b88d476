import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Release } from "../../src/releases/published.ts";

/** A version list recorded from the registry (tests/fixtures/releases/), as publishedReleases gives it: newest first. */
export function recordedReleases(runtime: "node" | "deno"): Release[] {
  const { published } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "releases", `${runtime}.json`), "utf8")) as { published: Record<string, string> };
  return Object.entries(published).map(([version, day]) => ({ version, published: new Date(day) }));
}
