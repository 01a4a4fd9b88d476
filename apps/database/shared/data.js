// The database suite's data, the same on Node, Deno, Bun and in the harness: a seeded generator
// (32-bit integer arithmetic only, so every engine computes the same sequence), the rows of the
// `users` and `world` tables, and the canonical text a digest is taken over.

export const USERS = 10_000;
export const WORLD = 10_000;
/** Seed of the random ids and numbers a scenario draws (point-select, update-tx). */
export const SEQUENCE_SEED = 0x5eed0001;
const ROW_SEED = 0x5eed0002;

/** mulberry32: a uint32 per call. */
export function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Ids and numbers in 1..limit, drawn from one seeded stream in the order the scenarios ask for them. */
export function sequence(seed = SEQUENCE_SEED) {
  const next = generator(seed);
  return { id: () => (next() % USERS) + 1, number: () => (next() % WORLD) + 1 };
}

const FIRST = ["Ada", "Alan", "Barbara", "Claude", "Dennis", "Edsger", "Frances", "Grace", "Hedy", "Ivan", "Jean", "Ken", "Linus", "Margaret", "Niklaus", "Radia"];
const LAST = ["Lovelace", "Turing", "Liskov", "Shannon", "Ritchie", "Dijkstra", "Allen", "Hopper", "Lamarr", "Sutherland", "Sammet", "Thompson", "Torvalds", "Hamilton", "Wirth", "Perlman"];
const EPOCH_MS = Date.UTC(2024, 0, 1);
const YEAR_S = 365 * 24 * 3600;

/** Row `id` of `users`; it depends on the id alone, so rows inserted later are known too. */
export function userRow(id) {
  const next = generator(ROW_SEED ^ Math.imul(id, 0x9e3779b1));
  const first = FIRST[next() % FIRST.length];
  const last = LAST[next() % LAST.length];
  return {
    id,
    name: `${first} ${last}`,
    email: `${first}.${last}.${id}@example.com`.toLowerCase(),
    created_at: new Date(EPOCH_MS + (next() % YEAR_S) * 1000 + (next() % 1000)).toISOString(),
    score: next() % 1_000_000,
  };
}

/** Row `id` of TechEmpower's `world` table. */
export function worldRow(id) {
  const next = generator(ROW_SEED ^ Math.imul(id, 0x85ebca6b));
  return { id, randomnumber: (next() % WORLD) + 1 };
}

export const USER_COLUMNS = ["id", "name", "email", "created_at", "score"];
export const WORLD_COLUMNS = ["id", "randomnumber"];

/** A row as one line: every column by name, timestamps as ISO 8601 UTC, whatever type the driver gave. */
export function canonicalRow(row) {
  return Object.keys(row)
    .map((key) => {
      const value = row[key];
      return `${key}=${value instanceof Date ? value.toISOString() : String(value)}`;
    })
    .join("|");
}

export async function sha256(text) {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
