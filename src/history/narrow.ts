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
  /** No release that runs here lies between the two: the step is a release's. False where neither half showed the step alone. */
  readonly adjacent: boolean;
  /**
   * Releases between the two that cannot be measured here (a package whose binary reports another
   * version, or does not run), oldest first: the step may be any of them or `to`.
   */
  readonly unmeasurable: readonly string[];
}

/** Whether data/ holds a paired run of the two releases (at the scenario's version in this checkout). */
export type MeasuredPair = (from: string, to: string) => boolean;

/**
 * Where the releases between `low` and `high` are split: the middle one (the lower middle of an even
 * count), unless a release near it has its pairs in data/ already. The releases between a link's two
 * depend on the day's registry (a release it lacked, or whose binary did not run), so a bisection
 * another day began may have split elsewhere: following its runs measures nothing twice.
 */
function split(low: string, high: string, candidates: readonly string[], measured: MeasuredPair): string {
  const centre = Math.floor((candidates.length - 1) / 2);
  const nearest = candidates.map((version, at) => ({ version, off: Math.abs(at - centre) })).sort((a, b) => a.off - b.off).map(({ version }) => version);
  return nearest.find((version) => measured(low, version) && measured(version, high)) ?? nearest.find((version) => measured(low, version) || measured(version, high)) ?? candidates[centre]!;
}

export interface NarrowingData {
  /** Whether a release's binary runs here as itself; every release does unless told. */
  readonly runs?: (version: string) => Promise<boolean>;
  /** Which pairs data/ holds already; none unless told. */
  readonly measured?: MeasuredPair;
}

/**
 * The narrowest pairs of releases that show the step of `from` → `to`: `between` holds the releases
 * strictly between the two, oldest first. Measures 2⌈log2(k + 1)⌉ pairs for k releases between and
 * one step; more when it lies in both halves. A middle release that `runs` refuses is left out of
 * the bisection (a pair that holds it cannot be measured) and named in the step it lies within.
 */
export async function narrowStep(from: string, to: string, between: readonly string[], judge: JudgePair, data: NarrowingData = {}): Promise<NarrowedStep[]> {
  const runs = data.runs ?? (async () => true);
  const measured = data.measured ?? (() => false);
  const refused: string[] = [];
  const bisect = async (low: string, high: string, inside: readonly string[]): Promise<Omit<NarrowedStep, "unmeasurable">[]> => {
    let candidates = inside;
    let mid = candidates.length > 0 ? split(low, high, candidates, measured) : undefined;
    while (mid !== undefined && !(await runs(mid))) {
      refused.push(mid);
      candidates = candidates.filter((version) => version !== mid);
      mid = candidates.length > 0 ? split(low, high, candidates, measured) : undefined;
    }
    if (mid === undefined) return [{ from: low, to: high, adjacent: true }];
    const at = candidates.indexOf(mid);
    const left = await judge(low, mid);
    const right = await judge(mid, high);
    const found = [
      ...(left === "step" ? await bisect(low, mid, candidates.slice(0, at)) : []),
      ...(right === "step" ? await bisect(mid, high, candidates.slice(at + 1)) : []),
    ];
    return found.length > 0 ? found : [{ from: low, to: high, adjacent: false }];
  };
  const order = [from, ...between, to];
  const within = (step: { from: string; to: string }, version: string) => order.indexOf(step.from) < order.indexOf(version) && order.indexOf(version) < order.indexOf(step.to);
  return (await bisect(from, to, between)).map((step) => ({ ...step, unmeasurable: between.filter((version) => refused.includes(version) && within(step, version)) }));
}

/** How many paired runs narrowing a single step over `between` releases takes at most: two per level. */
export function narrowingRuns(between: number): number {
  return between === 0 ? 0 : 2 * Math.ceil(Math.log2(between + 1));
}
