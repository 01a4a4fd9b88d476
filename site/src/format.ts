import type { Better } from "../../src/results/types.ts";
import { formatNumber } from "../../src/ui/table.ts";

const KNOWN_METRICS: Record<string, string> = {
  wall_ms: "Wall time",
  wall_s: "Wall time",
  peak_rss_mb: "Peak memory (RSS)",
  rss_mb: "Memory (RSS)",
  server_peak_rss_mb: "Server peak memory (RSS)",
  server_cpu_s: "Server CPU time",
  client_cpu_s: "Load generator CPU time",
  rps: "Requests per second",
  ops_per_s: "Operations per second",
  success_rate: "Success rate",
};

/** `latency_p99_ms` → `p99 latency`, `p999` → `p99.9`; other names lose their unit suffix and underscores. */
export function metricLabel(name: string): string {
  const known = KNOWN_METRICS[name];
  if (known) return known;
  const percentile = /^(?:latency_)?p(\d+)_ms$/.exec(name)?.[1];
  if (percentile) return `p${percentile.length > 2 ? `${percentile.slice(0, 2)}.${percentile.slice(2)}` : percentile} latency`;
  const words = name.replace(/_(ms|s|mb|kb|bytes|per_s)$/, "").replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

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
