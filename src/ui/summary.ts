import { paramsSlug } from "../core/params.ts";
import { clientLimitOf, type ResultDocument } from "../results/types.ts";
import { formatNumber, formatTable } from "./table.ts";
import { firstLine } from "./words.ts";

/** Results of one scenario, app and load point: one line of the summary. */
interface Group {
  readonly label: string;
  readonly docs: ResultDocument[];
}

/** A subject's own label, where it has one besides `runtime-version` (two builds of one version side by side). */
const ownLabel = (doc: ResultDocument) => (doc.label !== undefined && doc.label !== `${doc.runtime.name}-${doc.runtime.version}` ? doc.label : null);
const runtimeLabel = (doc: ResultDocument) => `${doc.runtime.name}@${doc.runtime.version}${ownLabel(doc) === null ? "" : ` (${ownLabel(doc)})`}`;
const shortName = (doc: ResultDocument) => ownLabel(doc) ?? doc.runtime.name;

/** An interrupted cell's status as the summary shows it: its samples are in its file, though it is never compared. */
function interruptedStatus(doc: ResultDocument): string | null {
  const kept = doc.details?.interrupted_after_trials;
  return typeof kept === "number" ? `interrupted, ${kept} of ${doc.run.trials} trials kept` : null;
}

function groupsOf(docs: readonly ResultDocument[]): Group[] {
  const groups = new Map<string, ResultDocument[]>();
  for (const doc of docs) {
    const label = [`${doc.suite}/${doc.scenario}`, doc.app ?? "", paramsSlug(doc.params)].filter(Boolean).join(" ");
    groups.set(label, [...(groups.get(label) ?? []), doc]);
  }
  return [...groups].map(([label, members]) => ({ label, docs: members }));
}

/** Where a figure is its load generator's limit: the side of it the server's own figure lies on. */
const boundMark = (doc: ResultDocument, metric: string) => {
  const m = doc.metrics[metric];
  return m && clientLimitOf(doc, m) !== null ? (m.better === "higher" ? "≥" : "≤") : "";
};

/**
 * A ratio to the best where either figure is its client's limit: the best's own is better still
 * (the gap is at least this), the other's own is better (at most this), both: unknown.
 */
function boundedRatio(best: string, other: string, ratio: string): string {
  if (best && other) return "? (both at their client's limit)";
  return `${best ? "≥ " : other ? "≤ " : ""}${ratio}`;
}

const BOUND_NOTE = "≥ / ≤: the load generator used all its CPU in a trial, so the figure is its limit and the server's own lies beyond it; a ratio to it is a bound.";

/**
 * One line per scenario, app and load point: each runtime's median of the scenario's headline
 * metric (its first), side by side, and each runtime's ratio to the best. A ratio is marked `*`
 * where the two medians' 95 % intervals do not overlap: a difference within this run that its own
 * spread cannot explain (it says nothing about run-to-run noise; `compare` judges that). A figure
 * its load generator set is marked as the bound it is.
 */
export function summaryTable(docs: readonly ResultDocument[]): string {
  let bounded = false;
  const runtimes = [...new Set(docs.map(runtimeLabel))];
  const rows = groupsOf(docs).map(({ label, docs: members }) => {
    const measured = members.filter((d) => d.status === "ok" && Object.keys(d.metrics).length > 0);
    const metric = measured[0] ? Object.keys(measured[0].metrics)[0]! : "";
    const ranked = measured.filter((d) => d.metrics[metric]);
    const better = ranked[0]?.metrics[metric]?.better ?? "lower";
    const best = ranked.reduce<ResultDocument | undefined>((winner, d) => {
      if (!winner) return d;
      const [a, b] = [d.metrics[metric]!.median, winner.metrics[metric]!.median];
      return (better === "lower" ? a < b : a > b) ? d : winner;
    }, undefined);
    const cells = runtimes.map((runtime) => {
      const doc = members.find((d) => runtimeLabel(d) === runtime);
      if (!doc) return "";
      const m = doc.metrics[metric];
      if (doc.status !== "ok" || !m) return interruptedStatus(doc) ?? doc.status;
      const mark = boundMark(doc, metric);
      bounded ||= mark !== "";
      return `${mark && `${mark} `}${formatNumber(m.median)} ${m.unit}`;
    });
    const ratios = ranked
      .filter((d) => d !== best)
      .map((d) => {
        const [m, top] = [d.metrics[metric]!, best!.metrics[metric]!];
        const ratio = better === "lower" ? m.median / top.median : top.median / m.median;
        const apart = m.ci95[0] > top.ci95[1] || m.ci95[1] < top.ci95[0];
        return `${shortName(d)} ${boundedRatio(boundMark(best!, metric), boundMark(d, metric), `${ratio.toFixed(2)}×${apart ? "*" : ""}`)}`;
      });
    const interrupted = members.some((d) => interruptedStatus(d) !== null);
    const verdict = best ? (ratios.length > 0 ? `${shortName(best)} best; ${ratios.join(", ")}` : `${shortName(best)} only`) : interrupted ? "interrupted" : "nothing measured";
    return [label, metric ? `${metric} (${better})` : "", ...cells, verdict];
  });
  const table = formatTable(["scenario", "headline", ...runtimes, "vs best (* = 95 % intervals apart)"], rows);
  return bounded ? `${table}\n${BOUND_NOTE}` : table;
}

/** One line per failed result: its cell, its runtime, and the first line of its reason. */
export function failureLines(docs: readonly ResultDocument[]): string[] {
  return groupsOf(docs).flatMap(({ label, docs: members }) =>
    members.filter((d) => d.status === "failed").map((d) => `${label} ${runtimeLabel(d)}: ${firstLine(d.error ?? "no reason recorded")}`),
  );
}

/**
 * Every metric of every cell: each runtime's median ± standard deviation, sample count, and its
 * ratio to the best runtime in that metric's own direction.
 */
export function fullTable(docs: readonly ResultDocument[]): string {
  const rows: string[][] = [];
  for (const { label, docs: members } of groupsOf(docs)) {
    const metricNames = [...new Set(members.flatMap((d) => Object.keys(d.metrics)))];
    for (const doc of members.filter((d) => d.status !== "ok")) {
      rows.push([label, runtimeLabel(doc), "", interruptedStatus(doc) ?? doc.status, "", (doc.error ?? "").split("\n")[0]!.slice(0, 80)]);
    }
    for (const metric of metricNames) {
      const measured = members.filter((d) => d.status === "ok" && d.metrics[metric]);
      const better = measured[0]?.metrics[metric]?.better ?? "lower";
      const medians = measured.map((d) => d.metrics[metric]!.median);
      const best = better === "lower" ? Math.min(...medians) : Math.max(...medians);
      for (const doc of measured) {
        const m = doc.metrics[metric]!;
        const ratio = better === "lower" ? m.median / best : best / m.median;
        rows.push([label, runtimeLabel(doc), metric, `${formatNumber(m.median)} ± ${formatNumber(m.stddev)} ${m.unit}`, `n=${m.samples.length}`, ratio === 1 ? "best" : `${ratio.toFixed(2)}×`]);
      }
    }
  }
  return formatTable(["scenario", "runtime", "metric", "median ± sd", "samples", "vs best"], rows);
}
