/**
 * A resource a suite's session starts on first use (a database server, a database file) and stops
 * when the session closes. Once closed it starts nothing again: an interrupt closes the session while
 * a check may still be under way, and that check must not start a server inside the folder the
 * interrupt is removing (nor leave one running after the session's stop).
 */
export class OnDemand<T> {
  private pending: Promise<T> | null = null;
  private closed = false;

  constructor(
    private readonly what: string,
    private readonly start: () => Promise<T>,
  ) {}

  /** The resource, started on first use and after `forget`; refused once the session is closed. */
  get(): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`${this.what}: the session is closed, so it does not start`));
    this.pending ??= this.start();
    return this.pending;
  }

  /** What was started, without starting it: null where nothing was (or it was forgotten). */
  started(): Promise<T> | null {
    return this.pending;
  }

  /** Forgets what was started (a server that died), so that the next `get` starts anew; returns it, for its caller to stop. */
  forget(): Promise<T> | null {
    const pending = this.pending;
    this.pending = null;
    return pending;
  }

  /** Closes it for good; returns what was started, for its caller to stop. */
  close(): Promise<T> | null {
    this.closed = true;
    return this.forget();
  }
}
