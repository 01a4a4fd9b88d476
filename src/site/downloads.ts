import { csvField } from "../core/markup.ts";
import type { MetricDefinition } from "../results/types.ts";
import type { ChainData, ReducedResult, OverviewData, SeriesKey, TestbedRef, TrendData } from "./model.ts";

const COLUMNS = [
  "arch", "runner", "runner_kind", "testbed", "suite", "scenario", "app", "params", "runtime", "version", "started_at", "run",
  "profile", "status", "metric", "unit", "better", "median", "ci95_low", "ci95_high", "samples", "reproduce", "error",
] as const;

/** One line per metric of an ok result, one line (without numbers) for a failed or unsupported one. */
function resultLines(testbed: TestbedRef, series: SeriesKey, metrics: Readonly<Record<string, MetricDefinition>>, points: readonly ReducedResult[]): string[] {
  const lines: string[] = [];
  // The fields of the testbed and series are the same on every line, and a point's on each of its metrics' lines: quoted once.
  const fields = (values: readonly (string | number | null)[]) => values.map(csvField).join(",");
  const where = fields([testbed.arch, testbed.runner, testbed.kind, testbed.id, series.suite, series.scenario, series.app, series.params]);
  for (const p of points) {
    const common = `${where},${fields([p.runtime, p.version, p.started_at, p.run, p.profile, p.status])}`;
    const tail = fields([p.reproduce, p.error ?? null]);
    const measured = Object.entries(p.values);
    if (measured.length === 0) lines.push(`${common},${fields([null, null, null, null, null, null, null])},${tail}`);
    for (const [name, [median, low, high, samples]] of measured) {
      const info = metrics[name];
      lines.push(`${common},${fields([name, info?.unit ?? null, info?.better ?? null, median, low, high, samples])},${tail}`);
    }
  }
  return lines;
}

function csv(lines: readonly string[]): string {
  return `${[COLUMNS.join(","), ...lines].join("\r\n")}\r\n`;
}

export function trendCsv(trend: TrendData): string {
  const points = Object.values(trend.runtimes).flat();
  return csv(resultLines(trend.testbed, trend.series, trend.metrics, points));
}

export type OverviewCard = OverviewData["scenarios"][number];

export function overviewCardCsv(card: OverviewCard): string {
  // A group that joins apps each running on one runtime names each figure's own app.
  const seriesOf = (group: OverviewCard["groups"][number], figure: ReducedResult) => ({ ...card.headline, app: group.apps?.[figure.runtime] ?? card.headline.app });
  return csv(card.groups.flatMap((group) => group.figures.flatMap((figure) => resultLines(group.testbed, seriesOf(group, figure), card.metrics, [figure]))));
}

const CHAIN_COLUMNS = ["runner", "suite", "scenario", "app", "params", "runtime", "metric", "version", "ratio_to_first", "ci95_low", "ci95_high", "links", "link_from", "link_ratio", "link_pairs", "link_run", "link_cpu_model", "link_fingerprint", "machine_changed"] as const;

/** A chained trend as CSV: one line per release of each chain, with the link into it. */
export function chainCsv(chain: ChainData): string {
  const { series } = chain;
  const lines = Object.entries(chain.runtimes).flatMap(([runtime, metrics]) =>
    Object.entries(metrics ?? {}).flatMap(([metric, chains]) =>
      chains.flat().map((p) =>
        [chain.runner, series.suite, series.scenario, series.app, series.params, runtime, metric, p.version, p.ratio, p.ci95[0], p.ci95[1], p.links, p.link?.from ?? null, p.link?.ratio ?? null, p.link?.pairs ?? null, p.link?.run_id ?? null, p.link?.machine.cpu_model ?? null, p.link?.machine.fingerprint ?? null, String(p.machine_changed)]
          .map(csvField)
          .join(","),
      ),
    ),
  );
  return `${[CHAIN_COLUMNS.join(","), ...lines].join("\r\n")}\r\n`;
}
