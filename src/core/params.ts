/** A value of a result's load parameters. */
export type ParamValue = string | number | boolean;

/** `connections=100,keepalive=true`, in key order: the part of a file name that tells load points apart. */
export function paramsSlug(params: Readonly<Record<string, ParamValue>>): string {
  return Object.keys(params)
    .sort()
    .map((key) => `${key}=${String(params[key])}`)
    .join(",");
}

/**
 * The load points a run measures. `values` (`run --param NAME=VALUE`): by parameter, the values a
 * cell's must be one of, so the cells kept are a cross product. `points` (`run --load-point
 * NAME=VALUE,NAME=VALUE`): the cells at one of these, each a set of parameters' values, as a
 * narrowing run measures a step's cells and not every cell of their values' cross product. A cell
 * without a named parameter is left out; nothing given keeps every cell.
 */
export interface LoadPointFilter {
  readonly values?: Readonly<Record<string, readonly string[]>>;
  readonly points?: readonly Readonly<Record<string, string>>[];
}

export function atLoadPoint(params: Readonly<Record<string, ParamValue>>, filter: LoadPointFilter = {}): boolean {
  const has = (name: string, value: string) => name in params && String(params[name]) === value;
  const points = filter.points ?? [];
  return (
    Object.entries(filter.values ?? {}).every(([name, values]) => values.some((value) => has(name, value))) &&
    (points.length === 0 || points.some((point) => Object.entries(point).every(([name, value]) => has(name, value))))
  );
}

/** The filter as `run` takes it: `--param batch=100 --param payload=bytes --load-point batch=1,payload=string`. */
export function loadPointOptions(filter: LoadPointFilter): string {
  const values = filter.values ?? {};
  return [
    ...Object.keys(values)
      .sort()
      .flatMap((name) => values[name]!.map((value) => `--param ${name}=${value}`)),
    ...(filter.points ?? []).map((point) => `--load-point ${paramsSlug(point)}`),
  ].join(" ");
}

/** The bad input of a filter that leaves a scenario none of its cells (`none` for a cell without load parameters). */
export function leavesNoCell(filter: LoadPointFilter, scenario: string, points: readonly string[]): string {
  return `run: ${loadPointOptions(filter)} leaves ${scenario} no cell (its load points: ${points.join("; ")})`;
}
