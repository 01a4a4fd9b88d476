// The steadiness rule every suite warms up by, in one place: the in-process protocol runs it inside
// the runtime on its iterations' times (protocol.js), the server suites run it in the harness on
// the throughput of their load windows (src/tools/warm-up.ts, handed it by the suite). Plain
// JavaScript, so that every runtime of any version runs it unchanged.
//
// A series is steady when its last `block` values lie within `tolerance` of one another (the
// largest at most 1 + tolerance times the smallest) and their mean is within `tolerance` of the
// mean of the `block` values before them. The first part refuses a series still moving within the
// block; the second a plateau on the way up (V8 tiers up in steps: a server can hold a level for a
// second, then climb again) and a slow climb of more than tolerance per block.

const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;

export function isSteady(values, block, tolerance) {
  if (values.length < 2 * block) return false;
  const last = values.slice(-block);
  const before = values.slice(-2 * block, -block);
  const low = Math.min(...last);
  if (!(low > 0) || Math.max(...last) > low * (1 + tolerance)) return false;
  return Math.abs(mean(last) / mean(before) - 1) <= tolerance;
}
