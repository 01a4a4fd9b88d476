// Replies of a channel that answers in order (a worker's message port, a ring, a WebSocket): the
// n-th reply settles the n-th pending send. Once the channel fails, every pending and later send
// rejects with that failure.
export class ReplyQueue {
  #pending = [];
  #next = 0;
  failure = null;

  expect() {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.#pending.push({ resolve, reject }));
  }

  resolveNext(value) {
    const waiter = this.#pending[this.#next];
    if (!waiter) {
      this.fail(new Error("a reply arrived that no message was waiting for"));
      return;
    }
    this.#pending[this.#next++] = undefined;
    if (this.#next === this.#pending.length) {
      this.#pending.length = 0;
      this.#next = 0;
    }
    waiter.resolve(value);
  }

  fail(error) {
    this.failure ??= error;
    const waiting = this.#pending.slice(this.#next);
    this.#pending.length = 0;
    this.#next = 0;
    for (const waiter of waiting) waiter.reject(this.failure);
  }

  /** Throws the failure the channel had, if any: the worker must still be alive at the end. */
  assertAlive() {
    if (this.failure) throw new Error(`the worker failed before the end: ${this.failure.message}`);
  }
}
