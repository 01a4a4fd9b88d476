// Bun's own file API: Bun.file (bytes, stream, writer, stat) and Bun.write (which also copies a
// BunFile). Bun has no directory listing or fsync of its own: those are node:fs/promises calls.
import { open, readdir } from "node:fs/promises";
import { runFileApp } from "../shared/driver.js";

await runFileApp({
  synchronous: false,
  readFile: (path) => Bun.file(path).bytes(),
  writeFile: (path, bytes) => Bun.write(path, bytes),
  async readChunks(path, onChunk) {
    // Bun picks its own chunk size (256 KiB in 1.2); the result records the chunk count.
    for await (const chunk of Bun.file(path).stream()) onChunk(chunk);
  },
  async writeChunks(path, chunks, fsync) {
    const writer = Bun.file(path).writer();
    for (const chunk of chunks) writer.write(chunk);
    await writer.end();
    if (fsync) {
      const handle = await open(path, "r+");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  },
  copyFile: (from, to) => Bun.write(to, Bun.file(from)),
  async readDir(path) {
    return (await readdir(path, { withFileTypes: true })).map((entry) => ({ name: entry.name, isDirectory: entry.isDirectory() }));
  },
  async stat(path) {
    const stat = await Bun.file(path).stat();
    return { size: stat.size, isDirectory: stat.isDirectory() };
  },
});
