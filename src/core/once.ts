/** Memoises a promise per key: work that several subjects of a suite share is done once per run. */
export function once<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let pending = cache.get(key);
  if (!pending) {
    pending = make();
    cache.set(key, pending);
  }
  return pending;
}
