// node:fs/promises, the same calls on Node, Deno and Bun.
import { fsync } from "node:fs";
import * as fs from "node:fs/promises";
import { promisify } from "node:util";
import { CHUNK_BYTES } from "../shared/content.js";

// FileHandle.sync() is missing from Deno (2.1); node:fs's fsync on the handle's descriptor is the
// same system call, and every runtime gets it the same way.
const fsyncFd = promisify(fsync);

async function writeAll(handle, bytes) {
  for (let done = 0; done < bytes.length; ) done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
}

export const nodeFsPromises = {
  synchronous: false,
  readFile: (path) => fs.readFile(path),
  writeFile: (path, bytes) => fs.writeFile(path, bytes),
  async readChunks(path, onChunk) {
    const handle = await fs.open(path, "r");
    try {
      for (;;) {
        const chunk = new Uint8Array(CHUNK_BYTES);
        const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) break;
        onChunk(chunk.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  },
  async writeChunks(path, chunks, fsync) {
    const handle = await fs.open(path, "w");
    try {
      for (const chunk of chunks) await writeAll(handle, chunk);
      if (fsync) await fsyncFd(handle.fd);
    } finally {
      await handle.close();
    }
  },
  copyFile: (from, to) => fs.copyFile(from, to),
  async readDir(path) {
    return (await fs.readdir(path, { withFileTypes: true })).map((entry) => ({ name: entry.name, isDirectory: entry.isDirectory() }));
  },
  async stat(path) {
    const stat = await fs.stat(path);
    return { size: stat.size, isDirectory: stat.isDirectory() };
  },
};
