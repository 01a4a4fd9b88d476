// Deno's own file API: Deno.readFile, Deno.writeFile, Deno.open (its readable stream and write),
// Deno.copyFile, Deno.readDir, Deno.stat.
import { runFileApp } from "../shared/driver.js";

async function writeAll(file, bytes) {
  for (let done = 0; done < bytes.length; ) done += await file.write(bytes.subarray(done));
}

await runFileApp({
  synchronous: false,
  readFile: (path) => Deno.readFile(path),
  writeFile: (path, bytes) => Deno.writeFile(path, bytes),
  async readChunks(path, onChunk) {
    // The readable closes the file when it ends; its chunks are 64 KiB.
    const file = await Deno.open(path, { read: true });
    for await (const chunk of file.readable) onChunk(chunk);
  },
  async writeChunks(path, chunks, fsync) {
    const file = await Deno.open(path, { write: true, create: true, truncate: true });
    try {
      for (const chunk of chunks) await writeAll(file, chunk);
      if (fsync) await file.sync();
    } finally {
      file.close();
    }
  },
  copyFile: (from, to) => Deno.copyFile(from, to),
  async readDir(path) {
    const entries = [];
    for await (const entry of Deno.readDir(path)) entries.push({ name: entry.name, isDirectory: entry.isDirectory });
    return entries;
  },
  async stat(path) {
    const stat = await Deno.stat(path);
    return { size: stat.size, isDirectory: stat.isDirectory };
  },
});
