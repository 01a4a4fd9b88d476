/**
 * Narrowing a step to its release: a link whose two releases have others between them showed a
 * step; the releases between are bisected with paired runs (each half's two ends measured beside
 * each other, in one run) until the step lies between two adjacent releases, as Pinpoint and
 * `asv find` bisect a step to a commit. Both halves are measured at each level, so a step spread
 * over two releases is found in both, and a half is only entered on its own paired verdict.
 */

/** What a pair of releases says of the step: it shows it (same cells, same direction), it does not, or it has no verdict there. */
export type StepJudgement = "step" | "none" | "unknown";

/** Measures the pair (or reads it, when already measured) and judges it; releases as versions, older first. */
export type JudgePair = (from: string, to: string) => Promise<StepJudgement>;

export interface NarrowedStep {
  readonly from: string;
  readonly to: string;
  /** No release lies between the two: the step is a release's. False where neither half showed the step alone. */
  readonly adjacent: boolean;
}

/** The release in the middle of those between (the lower middle of an even count). */
const middle = (between: readonly string[]) => between[Math.floor((between.length - 1) / 2)]!;

/**
 * The narrowest pairs of releases that show the step of `from` → `to`: `between` holds the releases
 * strictly between the two, oldest first. Measures 2⌈log2(k + 1)⌉ pairs for k releases between and
 * one step; more when it lies in both halves.
 */
export async function narrowStep(from: string, to: string, between: readonly string[], judge: JudgePair): Promise<NarrowedStep[]> {
  if (between.length === 0) return [{ from, to, adjacent: true }];
  const mid = middle(between);
  const at = between.indexOf(mid);
  const left = await judge(from, mid);
  const right = await judge(mid, to);
  const found = [
    ...(left === "step" ? await narrowStep(from, mid, between.slice(0, at), judge) : []),
    ...(right === "step" ? await narrowStep(mid, to, between.slice(at + 1), judge) : []),
  ];
  return found.length > 0 ? found : [{ from, to, adjacent: false }];
}

/** How many paired runs narrowing a single step over `between` releases takes at most: two per level. */
export function narrowingRuns(between: number): number {
  return between === 0 ? 0 : 2 * Math.ceil(Math.log2(between + 1));
}
