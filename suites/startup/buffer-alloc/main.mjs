import { Buffer } from "node:buffer";

// Large buffers taken with allocUnsafe and filled at once, as Buffer.concat, stream readers and
// serializers do: 1,024 buffers of 256 KiB (256 MiB written), each checked at two places.
const BUFFERS = 1024;
const SIZE = 256 * 1024;
const source = Buffer.alloc(SIZE, 0x5a);
let checked = 0;
for (let i = 0; i < BUFFERS; i++) {
  const buffer = Buffer.allocUnsafe(SIZE);
  source.copy(buffer);
  const at = (i * 7919) % SIZE;
  buffer[at] = i & 0xff;
  if (buffer[at] === (i & 0xff) && buffer[(at + SIZE / 2) % SIZE] === 0x5a) checked += 1;
}
console.log(checked === BUFFERS ? "ready" : `${BUFFERS - checked} buffers held the wrong bytes`);
