// The data of the file I/O scenarios, generated before an app runs: by the harness
// (src/suites/fileio/data.ts, which also computes the digests) and by a standalone reproduction
// (make-data.js), so both make the same bytes. Plain JavaScript on node: built-ins, so Node,
// Deno and Bun all run it.
import { mkdir, open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BLOCK_BYTES, CHUNK_BYTES, largeBlock, smallFileContent, smallFileName } from "./content.js";

/** The many small files, in order. */
export function* smallFiles(shape) {
  for (let i = 0; i < shape.files; i++) yield smallFileContent(i, shape.file_bytes);
}

/** A large file is one block repeated; its chunks (views of the block) in order. */
export function* largeChunks(bytes, block = largeBlock()) {
  for (let offset = 0; offset < bytes; offset += CHUNK_BYTES) {
    const at = offset % BLOCK_BYTES;
    yield block.subarray(at, at + Math.min(CHUNK_BYTES, bytes - offset));
  }
}

// The writers below never create folders recursively: once the run's clean-up has removed the data
// root, a generation still under way fails instead of recreating it.

export async function writeSmallFiles(dir, shape) {
  await mkdir(dir);
  let i = 0;
  for (const content of smallFiles(shape)) await writeFile(join(dir, smallFileName(i++)), content);
}

export async function writeLargeFile(path, bytes) {
  const handle = await open(path, "w");
  try {
    for (const chunk of largeChunks(bytes)) await handle.write(chunk);
  } finally {
    await handle.close();
  }
}

/**
 * A tree shaped like a node_modules folder: packages (every fifth one scoped) with a manifest,
 * README, LICENSE, entry point and a lib/ folder with an internal/ subfolder; every tenth package
 * has its own node_modules with two nested packages. About 17 entries a package (300 packages:
 * 5,018 entries; 1,200: 20,048). An entry's size is null for a folder.
 */
export function treePlan(packages) {
  const entries = [];
  const scopes = new Set();
  const size = (i, j) => 64 + ((i * 131 + j * 977) % 6000);
  const addPackage = (dir, i, full) => {
    entries.push({ path: dir, size: null });
    const files = full ? ["package.json", "README.md", "LICENSE", "index.js"] : ["package.json", "index.js"];
    files.forEach((file, j) => entries.push({ path: `${dir}/${file}`, size: size(i, j) }));
    if (!full) return;
    entries.push({ path: `${dir}/lib`, size: null });
    for (let j = 0; j < 6; j++) entries.push({ path: `${dir}/lib/module-${j}.js`, size: size(i, 10 + j) });
    entries.push({ path: `${dir}/lib/internal`, size: null });
    for (let j = 0; j < 3; j++) entries.push({ path: `${dir}/lib/internal/util-${j}.js`, size: size(i, 20 + j) });
  };
  for (let i = 0; i < packages; i++) {
    let dir = `pkg-${i}`;
    if (i % 5 === 0) {
      const scope = `@scope-${i % 40}`;
      if (!scopes.has(scope)) entries.push({ path: scope, size: null });
      scopes.add(scope);
      dir = `${scope}/pkg-${i}`;
    }
    addPackage(dir, i, true);
    if (i % 10 === 0) {
      entries.push({ path: `${dir}/node_modules`, size: null });
      for (let k = 0; k < 2; k++) addPackage(`${dir}/node_modules/dep-${k}`, i * 7 + k, false);
    }
  }
  return entries;
}

export async function writeTree(root, entries) {
  await mkdir(root);
  // A folder comes before everything inside it in the plan.
  for (const [n, entry] of entries.entries()) {
    if (entry.size === null) await mkdir(join(root, entry.path));
    else await writeFile(join(root, entry.path), smallFileContent(n, entry.size));
  }
}

/** Where an operation's input is once written under `dir`: the folder, the large file in it, or null for an operation that reads nothing. */
export function inputPath(operation, dir) {
  switch (operation) {
    case "read-many":
    case "walk-tree":
      return dir;
    case "read-large":
    case "copy-large":
      return join(dir, "large.bin");
    case "write-many":
    case "write-large":
      return null;
    default:
      throw new Error(`unknown file I/O operation ${operation}`);
  }
}

/** Writes an operation's input under `dir` (which must not exist); returns inputPath's path. */
export async function writeInput(operation, shape, dir) {
  const input = inputPath(operation, dir);
  if (operation === "read-many") await writeSmallFiles(dir, shape);
  else if (operation === "walk-tree") await writeTree(dir, treePlan(shape.tree_packages));
  else if (input !== null) {
    await mkdir(dir);
    await writeLargeFile(input, shape.large_bytes);
  }
  return input;
}
