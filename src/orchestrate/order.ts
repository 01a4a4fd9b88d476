/**
 * The order of trial `index`: the list rotated by one more place each trial (A B C, B C A, C A B),
 * so slow drift of the machine falls on every runtime alike.
 */
export function rotate<T>(items: readonly T[], index: number): T[] {
  if (items.length === 0) return [];
  const shift = index % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
