/** A small seeded generator (mulberry32): the same samples always give the same bootstrap interval. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seed derived from the data, so a result's interval is reproducible from its samples alone. */
export function seedFrom(values: readonly number[]): number {
  let hash = 2166136261;
  for (const value of values) {
    const text = value.toString();
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  }
  return hash >>> 0;
}
