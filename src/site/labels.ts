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
  max_sustained_rps: "Highest sustained requests per second",
  throughput_mb_s: "Throughput",
  messages_per_s: "Messages per second",
  cpu_s: "CPU time",
  database_cpu_s: "Database CPU time",
  rtt_us: "Round-trip time",
  speedup: "Speed-up",
  ops_per_s: "Operations per second",
  success_rate: "Success rate",
  // Counts (docs/methodology.md, "Counts").
  syscalls: "System calls",
  path_syscalls: "Path lookups",
  syscalls_per_request: "System calls",
  syscalls_per_message: "System calls",
  syscalls_per_op: "System calls",
  minor_faults: "Minor page faults",
  major_faults: "Major page faults",
  voluntary_switches: "Voluntary context switches",
  involuntary_switches: "Involuntary context switches",
  threads: "Threads",
  server_threads: "Server threads",
  server_fds: "Server file descriptors",
  rss_growth_mb_per_10k: "Memory growth",
  binary_mb: "Binary size",
  package_mb: "Package size",
  files_written: "Files written",
};

const percentileText = (digits: string) => `p${digits.length > 2 ? `${digits.slice(0, 2)}.${digits.slice(2)}` : digits}`;

/**
 * `latency_p99_ms` → `p99 latency`, `rtt_p999_us` → `p99.9 round-trip time`; other names lose their
 * unit suffix and underscores. Words only: where the unit is known, `metricTitle` adds it.
 */
export function metricLabel(name: string): string {
  const known = KNOWN_METRICS[name];
  if (known) return known;
  const percentile = /^(rate_)?(latency|rtt)?_?p(\d+)_(ms|us)$/.exec(name);
  if (percentile) {
    const what = percentile[2] === "rtt" ? "round-trip time" : "latency";
    return `${percentileText(percentile[3]!)} ${what}${percentile[1] ? " at a fixed rate" : ""}`;
  }
  const words = name.replace(/_(mb_s|ms|us|s|mb|kb|bytes|per_s)$/, "").replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `Throughput (MB/s)`: a metric's words with its unit, for controls and axis titles. */
export function metricTitle(name: string, unit: string): string {
  return `${metricLabel(name)} (${unit})`;
}
