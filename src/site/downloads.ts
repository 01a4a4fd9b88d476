import type { Measurement, MetricInfo, OverviewData, SeriesKey, TestbedRef, TrendData } from "./model.ts";

const COLUMNS = [
  "arch", "runner", "runner_kind", "testbed", "suite", "scenario", "app", "params", "runtime", "version", "started_at", "run",
  "profile", "status", "metric", "unit", "better", "median", "ci95_low", "ci95_high", "samples", "reproduce", "error",
] as const;

/** RFC 4180: quote a field only when it holds a comma, a quote or a line break. */
function csvField(value: string | number | null): string {
  const text = value === null ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line per metric of an ok result, one line (without numbers) for a failed or unsupported one. */
function measurementLines(testbed: TestbedRef, series: SeriesKey, metrics: Readonly<Record<string, MetricInfo>>, points: readonly Measurement[]): string[] {
  const lines: string[] = [];
  for (const p of points) {
    const common = [testbed.arch, testbed.runner, testbed.kind, testbed.id, series.suite, series.scenario, series.app, series.params, p.runtime, p.version, p.started_at, p.run, p.profile, p.status];
    const tail = [p.reproduce, p.error ?? null];
    const measured = Object.entries(p.values);
    if (measured.length === 0) lines.push([...common, null, null, null, null, null, null, null, ...tail].map(csvField).join(","));
    for (const [name, [median, low, high, samples]] of measured) {
      const info = metrics[name];
      lines.push([...common, name, info?.unit ?? null, info?.better ?? null, median, low, high, samples, ...tail].map(csvField).join(","));
    }
  }
  return lines;
}

function csv(lines: readonly string[]): string {
  return `${[COLUMNS.join(","), ...lines].join("\r\n")}\r\n`;
}

export function trendCsv(trend: TrendData): string {
  const points = Object.values(trend.runtimes).flat();
  return csv(measurementLines(trend.testbed, trend.series, trend.metrics, points));
}

export type OverviewCard = OverviewData["scenarios"][number];

export function overviewCardCsv(card: OverviewCard): string {
  return csv(card.groups.flatMap((group) => measurementLines(group.testbed, card.headline, card.metrics, group.figures)));
}
