/** `1 result`, `2 results`: a count with its noun in the right number. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * A message that may hold a child's stderr, as one console line: its first line, and how many
 * lines the full text (kept in the result's `error`) has beyond it. A crash's backtrace is data,
 * not something to scroll past.
 */
export function firstLine(message: string): string {
  const [first, ...rest] = message.trimEnd().split("\n");
  return rest.length === 0 ? first! : `${first!.trimEnd()} … (${count(rest.length, "more line")} in the result's error)`;
}
