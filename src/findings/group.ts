import { documentedChanges, type DocumentedChange } from "../core/known-changes.ts";
import { paramsSlug, type ParamValue } from "../core/params.ts";
import { groupBy } from "../compare/series-key.ts";
import type { Finding } from "./detect.ts";

/**
 * The cells of one cause: one runtime on one scenario and app, off the same way for the same
 * reason (far off the others; or the same release step), on any load point and machine. A runtime
 * team acts on the cause once, so it reads one finding with its cells listed, not one per cell.
 */
export interface FindingGroup {
  /**
   * Stable while the cause holds: made of what the cells share, never of which cells there are, so
   * a cell joining or leaving the group keeps its feed entry and its anchor.
   */
  id: string;
  kind: Finding["kind"];
  runtime: string;
  suite: string;
  scenario: string;
  app: string | null;
  metric: string;
  unit: string;
  better: Finding["better"];
  direction: Finding["direction"];
  /** The cell that shows the cause most clearly, the largest gap: its reproduction and profile stand for the group. */
  representative: Finding;
  /** Every cell, largest gap first (the representative first). */
  cells: Finding[];
  /** The load parameters every cell has alike; what tells the cells apart is in `varying`. */
  shared: Record<string, ParamValue>;
  varying: string[];
  /** The start of the newest result any cell rests on. */
  updated: string;
  /** For a step: the changes the runtime's team documented on its cell between the two releases (docs/known-changes.json). */
  documented?: DocumentedChange[];
}

/** What the cells of one cause share: the kind, the cell without its load point or machine, the runtime, the direction, and a step's releases. */
function causeKey(f: Finding): string {
  const release = f.kind === "step" ? ` ${f.from_version}→${f.version}` : "";
  return `${f.kind} ${f.suite}/${f.scenario}@v${f.scenario_version} ${f.app ?? "-"} ${f.metric} ${f.runtime} ${f.direction}${release}`;
}

/** Parameters whose value is the same in every cell, and the names of the others. */
function splitParams(cells: readonly Finding[]): { shared: Record<string, ParamValue>; varying: string[] } {
  const names = [...new Set(cells.flatMap((c) => Object.keys(c.params)))].sort();
  const shared: Record<string, ParamValue> = {};
  const varying: string[] = [];
  for (const name of names) {
    const values = new Set(cells.map((c) => (name in c.params ? String(c.params[name]) : "\u0000")));
    if (values.size === 1 && name in cells[0]!.params) shared[name] = cells[0]!.params[name]!;
    else varying.push(name);
  }
  return { shared, varying };
}

const largestFirst = (a: Finding, b: Finding) => b.factor - a.factor || a.id.localeCompare(b.id);

/** Findings grouped by cause, the group with the largest gap first. */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups = [...groupBy(findings, causeKey)].map(([id, members]): FindingGroup => {
    const cells = [...members].sort(largestFirst);
    const representative = cells[0]!;
    const { kind, runtime, suite, scenario, app, metric, unit, better, direction } = representative;
    const step = kind === "step" && representative.from_version !== undefined ? { ...representative, from: representative.from_version, to: representative.version } : null;
    const documented = step === null ? [] : documentedChanges(step);
    return {
      id,
      kind,
      runtime,
      suite,
      scenario,
      app,
      metric,
      unit,
      better,
      direction,
      representative,
      cells,
      ...splitParams(cells),
      updated: cells.reduce((latest, c) => (c.updated > latest ? c.updated : latest), ""),
      ...(documented.length > 0 ? { documented } : {}),
    };
  });
  return groups.sort((a, b) => largestFirst(a.representative, b.representative));
}

/** What tells one cell of a group from the others: its varying load parameters, and its machine when the group spans several. */
export function cellWithinGroup(group: FindingGroup, cell: Finding): string {
  const params = paramsSlug(Object.fromEntries(group.varying.filter((name) => name in cell.params).map((name) => [name, cell.params[name]!])));
  const machines = new Set(group.cells.map((c) => c.runner));
  return [params, machines.size > 1 ? `on ${cell.runner}` : ""].filter(Boolean).join(" ") || "one cell";
}

/** `15–675×`, or `675×` for one cell: how far off the group's cells are. */
export function factorRange(group: FindingGroup): string {
  const factors = group.cells.map((c) => c.factor);
  const [low, high] = [Math.min(...factors), Math.max(...factors)];
  const text = (v: number) => (v >= 10 ? v.toFixed(0) : v.toFixed(1));
  return text(low) === text(high) ? `${text(high)}×` : `${text(low)}–${text(high)}×`;
}
