import { paramsSlug } from "../core/params.ts";
import type { ResultDocument } from "../results/types.ts";
import { formatNumber, formatTable } from "./table.ts";

/**
 * For each scenario (and app and load point), each runtime's median ± standard deviation of every
 * metric, and its ratio to the best runtime in that metric's own direction.
 */
export function summaryTable(docs: readonly ResultDocument[]): string {
  const groups = new Map<string, ResultDocument[]>();
  for (const doc of docs) {
    const key = [doc.suite, doc.scenario, doc.app ?? "", paramsSlug(doc.params)].filter(Boolean).join(" ");
    groups.set(key, [...(groups.get(key) ?? []), doc]);
  }
  const rows: string[][] = [];
  for (const [key, members] of groups) {
    const metricNames = [...new Set(members.flatMap((d) => Object.keys(d.metrics)))];
    for (const doc of members.filter((d) => d.status !== "ok")) {
      rows.push([key, `${doc.runtime.name}@${doc.runtime.version}`, "", doc.status, "", (doc.error ?? "").split("\n")[0]!.slice(0, 80)]);
    }
    for (const metric of metricNames) {
      const measured = members.filter((d) => d.status === "ok" && d.metrics[metric]);
      const better = measured[0]?.metrics[metric]?.better ?? "lower";
      const medians = measured.map((d) => d.metrics[metric]!.median);
      const best = better === "lower" ? Math.min(...medians) : Math.max(...medians);
      for (const doc of measured) {
        const m = doc.metrics[metric]!;
        const ratio = better === "lower" ? m.median / best : best / m.median;
        rows.push([key, `${doc.runtime.name}@${doc.runtime.version}`, metric, `${formatNumber(m.median)} ± ${formatNumber(m.stddev)} ${m.unit}`, `n=${m.samples.length}`, ratio === 1 ? "best" : `${ratio.toFixed(2)}×`]);
      }
    }
  }
  return formatTable(["scenario", "runtime", "metric", "median ± sd", "samples", "vs best"], rows);
}
