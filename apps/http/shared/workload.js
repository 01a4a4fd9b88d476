// The work every HTTP app does, shared so that apps differ only in runtime and framework.
// Plain ESM that Node, Deno and Bun all run; no I/O here.

export const HELLO = "Hello, World!";

/**
 * The json-large document for page `page`: 1,000 items, about 100 KB once serialised. Built per
 * request on purpose: the scenario measures building and serialising, not a cached string.
 */
export function largeDocument(page) {
  const items = [];
  for (let i = 0; i < 1000; i++) {
    items.push({
      id: page * 1000 + i,
      name: `item ${page}-${i}`,
      sku: `SKU-${String(page).padStart(6, "0")}-${String(i).padStart(4, "0")}`,
      price: ((page * 7919 + i * 104729) % 100000) / 100,
      tags: [`t${i % 7}`, `t${(i + page) % 11}`],
      active: (i + page) % 3 !== 0,
    });
  }
  return { page, count: items.length, items };
}

// Trial division with a 30-wheel on BigInt, as in the compute endpoint of Hexagon's jsrbench
// ("Deno vs. Bun vs. Node.js: A Speed Comparison").
function leastFactor(n) {
  if (n < 2n) return n;
  if (n % 2n === 0n) return 2n;
  if (n % 3n === 0n) return 3n;
  if (n % 5n === 0n) return 5n;
  for (let i = 7n; i * i <= n; i += 30n) {
    for (const step of [0n, 4n, 6n, 10n, 12n, 16n, 22n, 24n]) {
      if (n % (i + step) === 0n) return i + step;
    }
  }
  return n;
}

/** `{n, prime}` for a decimal string; null when it is not a whole number the check accepts. */
export function primeReport(text) {
  if (!/^[0-9]{1,15}$/.test(text)) return null;
  const n = BigInt(text);
  return { n: Number(n), prime: n >= 2n && leastFactor(n) === n };
}

/** Why a crud request body is not a valid item, or null when it is. */
export function itemProblem(body) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body must be a JSON object";
  const keys = Object.keys(body);
  const extra = keys.find((k) => k !== "name" && k !== "price" && k !== "tags");
  if (extra !== undefined) return `unknown field '${extra}'`;
  if (typeof body.name !== "string" || body.name.length === 0 || body.name.length > 100) return "name must be a string of 1 to 100 characters";
  if (typeof body.price !== "number" || !Number.isFinite(body.price) || body.price < 0) return "price must be a number >= 0";
  if (!Array.isArray(body.tags) || body.tags.length > 10 || body.tags.some((t) => typeof t !== "string")) return "tags must be an array of at most 10 strings";
  return null;
}

/** The crud scenario's in-memory store, seeded with items 1 to 10. */
export class ItemStore {
  #items = new Map();
  #nextId = 1;

  constructor() {
    for (let i = 1; i <= 10; i++) this.create({ name: `item ${i}`, price: i * 1.25, tags: [`tag${i % 3}`] });
  }

  list() {
    return [...this.#items.values()];
  }

  get(id) {
    return this.#items.get(id);
  }

  create(fields) {
    const item = { id: this.#nextId++, name: fields.name, price: fields.price, tags: fields.tags };
    this.#items.set(item.id, item);
    return item;
  }

  /** Replaces an existing item; undefined when there is none. */
  replace(id, fields) {
    if (!this.#items.has(id)) return undefined;
    const item = { id, name: fields.name, price: fields.price, tags: fields.tags };
    this.#items.set(id, item);
    return item;
  }

  /** Removes an item if present. DELETE is idempotent: absent is not an error. */
  delete(id) {
    this.#items.delete(id);
  }
}

/** A path segment as an item id, or null. */
export function parseId(text) {
  return /^[0-9]{1,9}$/.test(text) ? Number(text) : null;
}

/** The static scenario's files: plain names only, never a path. */
export function staticFileName(name) {
  return /^[A-Za-z0-9_-]+\.txt$/.test(name) ? name : null;
}

export const STATIC_CONTENT_TYPE = "text/plain; charset=utf-8";
