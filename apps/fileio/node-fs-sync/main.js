// The synchronous node:fs calls, the same on Node, Deno and Bun: one call at a time.
import * as fs from "node:fs";
import { runFileApp } from "../shared/driver.js";
import { CHUNK_BYTES } from "../shared/content.js";

function writeAll(fd, bytes) {
  for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}

await runFileApp({
  synchronous: true,
  readFile: (path) => fs.readFileSync(path),
  writeFile: (path, bytes) => fs.writeFileSync(path, bytes),
  readChunks(path, onChunk) {
    const fd = fs.openSync(path, "r");
    try {
      for (;;) {
        const chunk = new Uint8Array(CHUNK_BYTES);
        const bytesRead = fs.readSync(fd, chunk, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) break;
        onChunk(chunk.subarray(0, bytesRead));
      }
    } finally {
      fs.closeSync(fd);
    }
  },
  writeChunks(path, chunks, fsync) {
    const fd = fs.openSync(path, "w");
    try {
      for (const chunk of chunks) writeAll(fd, chunk);
      if (fsync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  copyFile: (from, to) => fs.copyFileSync(from, to),
  readDir: (path) => fs.readdirSync(path, { withFileTypes: true }).map((entry) => ({ name: entry.name, isDirectory: entry.isDirectory() })),
  stat(path) {
    const stat = fs.statSync(path);
    return { size: stat.size, isDirectory: stat.isDirectory() };
  },
});
