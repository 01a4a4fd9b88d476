/** How metrics are named for readers, on the pages the build writes and those the browser draws alike. */

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
