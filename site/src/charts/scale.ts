/** Scales and tick choices for the hand-drawn SVG charts. */

export interface LinearScale {
  (value: number): number;
  readonly domain: readonly [number, number];
  readonly ticks: readonly number[];
}

/** 1, 2, 2.5 or 5 times a power of ten: steps a reader can add up at a glance. */
function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

/**
 * A linear scale over [min, max] widened to round ticks. `count` is how many ticks are wanted,
 * roughly; a flat domain is widened around its value so it still has an axis.
 */
export function linearScale(min: number, max: number, rangeStart: number, rangeEnd: number, count: number): LinearScale {
  if (!(max > min)) {
    const pad = Math.abs(min) * 0.05 || 1;
    min -= pad;
    max += pad;
  }
  const step = niceStep(max - min, count);
  const low = Math.floor(min / step + 1e-9) * step;
  const high = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let t = low; t <= high + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  const scale = ((value: number) => rangeStart + ((value - low) / (high - low)) * (rangeEnd - rangeStart)) as LinearScale;
  return Object.assign(scale, { domain: [low, high] as const, ticks });
}

export interface TimeTick {
  readonly time: number;
  readonly label: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAY = 86_400_000;

/** Ticks for a time axis: years, months or days, whichever gives at most `count` of them (UTC). */
export function timeTicks(min: number, max: number, count: number): TimeTick[] {
  const ticks: TimeTick[] = [];
  const start = new Date(min);
  const years = (max - min) / (365 * DAY);
  if (years > count / 2) {
    const step = Math.max(1, Math.ceil(years / count));
    for (let y = start.getUTCFullYear() + 1; Date.UTC(y, 0, 1) <= max; y += step) ticks.push({ time: Date.UTC(y, 0, 1), label: String(y) });
    return ticks;
  }
  const months = (max - min) / (30.4 * DAY);
  if (months > count / 2) {
    const step = [1, 2, 3, 6, 12].find((m) => months / m <= count) ?? 12;
    let y = start.getUTCFullYear();
    let m = Math.ceil((start.getUTCMonth() + (start.getUTCDate() > 1 ? 1 : 0)) / step) * step;
    for (;;) {
      y += Math.floor(m / 12);
      m %= 12;
      const time = Date.UTC(y, m, 1);
      if (time > max) break;
      ticks.push({ time, label: m === 0 ? String(y) : `${MONTHS[m]} ${String(y).slice(2)}` });
      m += step;
    }
    return ticks;
  }
  const days = Math.max(1, (max - min) / DAY);
  const step = [1, 2, 7, 14].find((d) => days / d <= count) ?? 14;
  for (let t = Math.ceil(min / DAY) * DAY; t <= max; t += step * DAY) {
    const d = new Date(t);
    ticks.push({ time: t, label: `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}` });
  }
  return ticks;
}
