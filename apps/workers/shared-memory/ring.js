// A one-way channel of messages in a SharedArrayBuffer: one thread writes, one thread reads.
//
// Layout: two Int32 counters, `head` (bytes the reader has consumed) and `tail` (bytes the writer
// has published), then `capacity` bytes of data, a power of two. The counters run freely and wrap
// at 2^32; a position in the data is the counter modulo `capacity`. A message is a record of
//   [u32 length][u8 kind][3 bytes padding][length bytes][padding to 4 bytes]
// and never wraps: when a record does not fit before the end of the data, the writer puts WRAP in
// the remaining length slot and starts the record at 0. The writer publishes a record by storing
// `tail` after writing it, the reader releases it by storing `head` after copying it out; both are
// sequentially consistent Atomics, so the bytes are complete before the other side sees the
// counter move. Each side notifies the counter it moved, and waits on the other one when it
// cannot go on (the reader on `tail` while the ring is empty, the writer on `head` while full):
// Atomics.wait returns at once if the counter has moved since it was read, so no wake-up is lost.
const HEAD = 0;
const TAIL = 1;
const COUNTERS_BYTES = 8;
const RECORD_HEADER = 8;
const WRAP = 0xffffffff;

const align4 = (n) => (n + 3) & ~3;

export class Ring {
  /** A new ring's shared memory, to hand to both threads. */
  static allocate(capacity) {
    if (capacity < 64 || (capacity & (capacity - 1)) !== 0) throw new Error(`ring capacity ${capacity} is not a power of two >= 64`);
    return new SharedArrayBuffer(COUNTERS_BYTES + capacity);
  }

  constructor(buffer) {
    this.counters = new Int32Array(buffer, 0, 2);
    this.data = new Uint8Array(buffer, COUNTERS_BYTES);
    this.view = new DataView(buffer, COUNTERS_BYTES);
    this.capacity = this.data.length;
  }

  /** Writes one record if there is room; false when the ring is too full for it now. */
  tryWrite(kind, bytes) {
    const size = RECORD_HEADER + align4(bytes.length);
    // Half the capacity is the most that is sure to fit an empty ring wherever the last record ended.
    if (size > this.capacity / 2) throw new Error(`a message of ${bytes.length} bytes does not fit a ring of ${this.capacity}`);
    const head = Atomics.load(this.counters, HEAD);
    const tail = Atomics.load(this.counters, TAIL);
    const offset = tail & (this.capacity - 1);
    const skip = size > this.capacity - offset ? this.capacity - offset : 0;
    if (((tail - head) | 0) + skip + size > this.capacity) return false;
    let at = offset;
    if (skip > 0) {
      this.view.setUint32(offset, WRAP);
      at = 0;
    }
    this.view.setUint32(at, bytes.length);
    this.data[at + 4] = kind;
    this.data.set(bytes, at + RECORD_HEADER);
    Atomics.store(this.counters, TAIL, (tail + skip + size) | 0);
    Atomics.notify(this.counters, TAIL);
    return true;
  }

  /** Takes one record out, copied, if there is one; null when the ring is empty. */
  tryRead() {
    let head = Atomics.load(this.counters, HEAD);
    if (head === Atomics.load(this.counters, TAIL)) return null;
    let at = head & (this.capacity - 1);
    let length = this.view.getUint32(at);
    if (length === WRAP) {
      head = (head + this.capacity - at) | 0;
      at = 0;
      length = this.view.getUint32(0);
    }
    const message = { kind: this.data[at + 4], bytes: this.data.slice(at + RECORD_HEADER, at + RECORD_HEADER + length) };
    Atomics.store(this.counters, HEAD, (head + RECORD_HEADER + align4(length)) | 0);
    Atomics.notify(this.counters, HEAD);
    return message;
  }

  /** Blocks the thread until the record is written (for a worker, which has nothing else to do). */
  write(kind, bytes) {
    for (;;) {
      const head = Atomics.load(this.counters, HEAD);
      if (this.tryWrite(kind, bytes)) return;
      Atomics.wait(this.counters, HEAD, head);
    }
  }

  /** Blocks the thread until a record arrives. */
  read() {
    for (;;) {
      const message = this.tryRead();
      if (message) return message;
      this.waitForRecord(Infinity);
    }
  }

  /** Blocks while the ring is empty, at most `timeoutMs`; false if it was still empty then. */
  waitForRecord(timeoutMs) {
    const tail = Atomics.load(this.counters, TAIL);
    if (tail !== Atomics.load(this.counters, HEAD)) return true;
    return Atomics.wait(this.counters, TAIL, tail, timeoutMs) !== "timed-out";
  }
}
