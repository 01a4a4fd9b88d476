/**
 * Progress of a long run. On a terminal one line is redrawn in place; elsewhere (CI logs, pipes)
 * each step is a plain line. Log lines always go above the progress line.
 */
export class Progress {
  private total = 0;
  private done = 0;
  private readonly startedAt = Date.now();
  private current = "";
  private readonly tty: boolean;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.tty = stream.isTTY === true && process.env.CI === undefined;
  }

  addWork(steps: number): void {
    this.total += steps;
  }

  /** Starts a step: `label` names what is measured now, e.g. `startup/hello node@22.11.0 trial 2/3`. */
  begin(label: string): void {
    this.current = label;
    if (this.tty) this.draw();
    else this.stream.write(`[${this.done + 1}/${this.total}] ${label}\n`);
  }

  end(): void {
    this.done += 1;
    if (this.tty) this.draw();
  }

  /** Counts steps that will not run (cells that failed their check or are unsupported) as done. */
  skip(steps: number): void {
    this.done += steps;
  }

  log(line: string): void {
    if (this.tty) this.stream.write("\r\x1b[K");
    this.stream.write(`${line}\n`);
    if (this.tty && this.current) this.draw();
  }

  finish(): void {
    if (this.tty) this.stream.write("\r\x1b[K");
    this.current = "";
  }

  private draw(): void {
    const width = Math.max(20, (this.stream.columns ?? 100) - 1);
    const line = `[${this.done}/${this.total}] ${this.current}  ${this.remaining()}`;
    this.stream.write(`\r\x1b[K${line.slice(0, width)}`);
  }

  private remaining(): string {
    if (this.done === 0) return "";
    const perStep = (Date.now() - this.startedAt) / this.done;
    const seconds = Math.round((perStep * Math.max(0, this.total - this.done)) / 1000);
    return seconds >= 60 ? `~${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s left` : `~${seconds}s left`;
  }
}
