// What the workers suite sends: payloads that differ message by message (so a reply that belongs
// to another message, or a stale buffer, never passes for the right one), how replies are checked,
// and the work a worker does with a message. Shared by every app, on both sides of the channel.

const KIB = 1024;

/** A string of `size` ASCII characters (so its UTF-8 form has `size` bytes too), different for each `seed`. */
export function makeString(size, seed) {
  const head = `message ${seed} `;
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  // Character i is alphabet[(7i + seed) mod 36], a pattern of period 36, so one period repeated
  // makes the rest: adding a character at a time took seconds a trial for 64 strings of 1 MiB.
  let period = "";
  for (let i = head.length; i < head.length + alphabet.length; i++) period += alphabet[(i * 7 + seed) % alphabet.length];
  const rest = Math.max(0, size - head.length);
  const whole = Math.floor(rest / period.length);
  // Exactly `size` long before the slice (which then returns it as it is), as the string built a character at a time was.
  return (head + period.repeat(whole) + period.slice(0, rest - whole * period.length)).slice(0, size);
}

/** `size` bytes in a pattern that depends on `seed` and on each byte's position. */
export function makeBytes(size, seed) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 17 + (i >>> 8)) & 255;
  return bytes;
}

/** A nested object whose JSON is about 1 KiB: records with strings, numbers, booleans, arrays and null. */
export function makeObject(seed) {
  const items = [];
  for (let i = 0; i < 8; i++) {
    items.push({ id: seed * 8 + i, name: `item-${seed}-${i}`, price: (seed + i) / 4, tags: ["a", `t${i}`], active: i % 2 === 0, meta: { rank: i, parent: null } });
  }
  return { seed, kind: "order", customer: { id: seed, email: `user${seed}@example.test` }, items };
}

/** The round-trip payload of one message: the scenario's payload names these. */
export function makePayload(kind, seed) {
  switch (kind) {
    case "number":
      return seed + 0.25;
    case "string":
      return makeString(KIB, seed);
    case "object":
      return makeObject(seed);
    case "bytes":
      return makeBytes(64 * KIB, seed);
    default:
      throw new Error(`unknown payload '${kind}'`);
  }
}

/** The throughput payload of one message: a string or a Uint8Array of `size` bytes. */
export function makeSized(kind, size, seed) {
  if (kind === "string") return makeString(size, seed);
  if (kind === "bytes") return makeBytes(size, seed);
  throw new Error(`unknown throughput payload '${kind}'`);
}

/**
 * A short proof that the receiver holds the payload: its length and every 256th element. The
 * receiver returns it instead of an echo in one-way transfers, so the reply stays small; a wrong,
 * truncated or shifted payload changes it.
 */
export function fingerprint(value) {
  const isString = typeof value === "string";
  if (!isString && !(value instanceof Uint8Array)) throw new Error(`cannot fingerprint a ${typeof value}`);
  let sum = value.length;
  for (let i = 0; i < value.length; i += 256) sum = (sum * 31 + (isString ? value.charCodeAt(i) : value[i])) % 1_000_000_007;
  return sum;
}

/** Structural equality of the payloads above (numbers, strings, plain objects, arrays, null, Uint8Array). */
export function sameValue(a, b) {
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
}

/** Primes in start, start + stride, start + 2·stride, … below `bound`, by trial division: the CPU-bound work. */
export function countPrimes({ start, stride, bound }) {
  let count = 0;
  for (let n = start; n < bound; n += stride) {
    if (n < 2) continue;
    let prime = true;
    if (n % 2 === 0) prime = n === 2;
    else for (let d = 3; d * d <= n; d += 2) if (n % d === 0) { prime = false; break; }
    if (prime) count++;
  }
  return count;
}

/**
 * The worker's side of every app: what it answers to a message, by the channel's mode. `echo`
 * sends the payload back, `ack` a fingerprint of it (one-way transfers), `primes` a count.
 */
export function handlerFor(mode) {
  switch (mode) {
    case "echo":
      return (value) => value;
    case "ack":
      return fingerprint;
    case "primes":
      return countPrimes;
    default:
      throw new Error(`unknown channel mode '${mode}'`);
  }
}
