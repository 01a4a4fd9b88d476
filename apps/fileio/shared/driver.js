// The file I/O scenarios, written once for every app: an app supplies only its API (docs/suites/fileio.md,
// "Adding an app"), and this module turns params.operation into the in-process protocol's hooks.
// Everything outside the timed operation (emptying folders, dropping caches, computing digests)
// uses the same synchronous node:fs calls whatever the app, so it costs every app the same.
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runInProcess } from "../../inprocess/protocol.js";
import { BLOCK_BYTES, CHUNK_BYTES, largeBlock, smallFileContent, smallFileName } from "./content.js";

// fn(0..count-1)'s results: one call after another for a synchronous API; else with at most
// `concurrency` calls in flight ("all": every call started at once, as Promise.all over a map does).
async function mapIndex(api, count, concurrency, fn) {
  const results = new Array(count);
  if (api.synchronous) {
    for (let i = 0; i < count; i++) results[i] = fn(i);
    return results;
  }
  const limit = concurrency === "all" ? count : Math.min(concurrency, count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

// A recursive listing plus a stat of every entry; async APIs stat a folder's entries concurrently.
function walkSync(api, root, rel, out) {
  for (const entry of api.readDir(rel === "" ? root : join(root, rel))) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    const stat = api.stat(join(root, path));
    out.push(stat.isDirectory ? `d ${path}` : `f ${path} ${stat.size}`);
    if (entry.isDirectory) walkSync(api, root, path, out);
  }
  return out;
}

async function walkAsync(api, root, rel, out) {
  const entries = await api.readDir(rel === "" ? root : join(root, rel));
  await Promise.all(
    entries.map(async (entry) => {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const stat = await api.stat(join(root, path));
      out.push(stat.isDirectory ? `d ${path}` : `f ${path} ${stat.size}`);
      if (entry.isDirectory) await walkAsync(api, root, path, out);
    }),
  );
  return out;
}

/** SHA-256 of the files' contents in order, read back in chunks so a large file never sits whole in memory. */
function digestFiles(paths) {
  const hash = createHash("sha256");
  const buffer = new Uint8Array(CHUNK_BYTES);
  for (const path of paths) {
    const fd = openSync(path, "r");
    try {
      for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
    } finally {
      closeSync(fd);
    }
  }
  return hash.digest("hex");
}

function digestBytes(chunks) {
  const hash = createHash("sha256");
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest("hex");
}

function emptyFolder(path) {
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
}

function expectBytes(what, got, expected) {
  if (got !== expected) throw new Error(`${what}: ${got} bytes, expected ${expected}`);
}

// Each operation: setup(params) -> state; reset(state, params); run(api, state, params) -> out; digest(state, params, out).
const OPERATIONS = {
  "read-many": {
    setup: (p) => ({ paths: Array.from({ length: p.files }, (_, i) => join(p.input, smallFileName(i))) }),
    async run(api, state, p) {
      return { contents: await mapIndex(api, p.files, p.concurrency, (i) => api.readFile(state.paths[i])) };
    },
    digest: (state, p, out) => digestBytes(out.contents),
  },
  "write-many": {
    setup: (p) => ({
      paths: Array.from({ length: p.files }, (_, i) => join(p.output, smallFileName(i))),
      contents: Array.from({ length: p.files }, (_, i) => smallFileContent(i, p.file_bytes)),
    }),
    reset: (state, p) => emptyFolder(p.output),
    async run(api, state, p) {
      await mapIndex(api, p.files, p.concurrency, (i) => api.writeFile(state.paths[i], state.contents[i]));
    },
    digest: (state) => digestFiles(state.paths),
  },
  "read-large": {
    setup: () => ({ hash: null }),
    async run(api, state, p) {
      if (p.mode === "whole") {
        const bytes = await api.readFile(p.input);
        expectBytes(p.input, bytes.length, p.large_bytes);
        state.hash?.update(bytes);
        return undefined;
      }
      let chunks = 0;
      let bytes = 0;
      await api.readChunks(p.input, (chunk) => {
        chunks++;
        bytes += chunk.length;
        state.hash?.update(chunk);
      });
      expectBytes(p.input, bytes, p.large_bytes);
      return { samples: { chunks: [chunks] } };
    },
    // Only the verification run hashes what it reads; the measured runs just count the bytes.
    verifying: (state, on) => (state.hash = on ? createHash("sha256") : null),
    digest: (state) => state.hash.digest("hex"),
  },
  "write-large": {
    setup(p) {
      const block = largeBlock();
      const chunks = [];
      for (let offset = 0; offset < p.large_bytes; offset += CHUNK_BYTES) {
        const at = offset % BLOCK_BYTES;
        chunks.push(block.subarray(at, at + Math.min(CHUNK_BYTES, p.large_bytes - offset)));
      }
      return { chunks };
    },
    reset: (state, p) => emptyFolder(p.output),
    run: (api, state, p) => api.writeChunks(p.target, state.chunks, p.fsync),
    digest: (state, p) => digestFiles([p.target]),
  },
  "copy-large": {
    setup: () => ({}),
    reset: (state, p) => emptyFolder(p.output),
    run: (api, state, p) => api.copyFile(p.input, p.target),
    digest: (state, p) => digestFiles([p.target]),
  },
  "walk-tree": {
    setup: () => ({}),
    async run(api, state, p) {
      const lines = api.synchronous ? walkSync(api, p.input, "", []) : await walkAsync(api, p.input, "", []);
      return { lines };
    },
    digest: (state, p, out) => digestBytes([new TextEncoder().encode(out.lines.sort().join("\n"))]),
  },
};

function dropCaches() {
  writeFileSync("/proc/sys/vm/drop_caches", "3");
}

/**
 * Runs the scenario named by params.operation with an app's API. The API's calls return their
 * values directly when `synchronous`, else promises:
 *   readFile(path) -> bytes; writeFile(path, bytes); readChunks(path, onChunk);
 *   writeChunks(path, chunks, fsync); copyFile(from, to); readDir(path) -> [{ name, isDirectory }];
 *   stat(path) -> { size, isDirectory }
 * A write is finished when the call returns: the data is in the operating system's hands.
 */
export async function runFileApp(api) {
  let verified = false;
  await runInProcess({
    setup(ctx) {
      const operation = OPERATIONS[ctx.params.operation];
      if (!operation) throw new Error(`unknown operation ${JSON.stringify(ctx.params.operation)}`);
      return { operation, state: operation.setup(ctx.params) };
    },
    reset({ operation, state }, ctx) {
      operation.reset?.(state, ctx.params);
      operation.verifying?.(state, !verified);
      if (ctx.params.cache === "cold") dropCaches();
    },
    operation: ({ operation, state }, ctx) => operation.run(api, state, ctx.params),
    digest({ operation, state }, ctx, out) {
      verified = true;
      return operation.digest(state, ctx.params, out);
    },
  });
}
