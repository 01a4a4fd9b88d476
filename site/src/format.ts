import type { Better } from "../../src/results/types.ts";
import { formatNumber } from "../../src/ui/table.ts";
export { metricLabel, metricTitle } from "../../src/site/labels.ts";

export function betterText(better: Better): string {
  return better === "lower" ? "lower is better" : "higher is better";
}

/** `23.8 ms`: the harness's own number format, with the unit. */
export function formatValue(value: number, unit: string): string {
  return `${formatNumber(value)} ${unit}`;
}

/** Axis ticks: short, `60k` rather than `60000`. */
export function formatTick(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6) return `${trimZeros((value / 1e6).toFixed(1))}M`;
  if (magnitude >= 1e4) return `${trimZeros((value / 1e3).toFixed(1))}k`;
  if (magnitude >= 100 || value === 0) return value.toFixed(0);
  return trimZeros(value.toPrecision(3));
}

function trimZeros(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** `2026-11-22` */
export function formatDate(iso: string): string {
  return iso.slice(0, 10);
}

/** `2026-11-22 01:54 UTC` */
export function formatDateTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** `[22.9, 24.1]` in the metric's unit. */
export function formatInterval(low: number, high: number, unit: string): string {
  return `${formatNumber(low)}–${formatNumber(high)} ${unit}`;
}
