// What the file I/O scenarios read and write, byte for byte. Shared by the apps (on every runtime)
// and the harness (which generates the input data and checks what the apps wrote), so both sides
// agree without a copy of the rule.

/** The unit of streamed reads and writes. */
export const CHUNK_BYTES = 64 * 1024;
/** Large files repeat one block of this size (random-looking, so no filesystem can compress it). */
export const BLOCK_BYTES = 1024 * 1024;

// xorshift32: deterministic, fast, and the same on every engine.
function fill(bytes, seed) {
  let x = seed >>> 0 || 0x9e3779b9;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    view.setUint32(i, x, true);
  }
  for (; i < bytes.length; i++) bytes[i] = (x >>> (8 * (i % 4))) & 0xff;
  return bytes;
}

/** The content of small file number `index` (read-many's inputs and write-many's outputs). */
export function smallFileContent(index, size) {
  return fill(new Uint8Array(size), 0x5bd1e995 ^ (index + 1));
}

/** The file name of small file number `index`. */
export function smallFileName(index) {
  return `file-${index}.bin`;
}

/** The block every large file repeats. */
export function largeBlock() {
  return fill(new Uint8Array(BLOCK_BYTES), 0x1b873593);
}
