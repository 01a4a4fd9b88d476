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
 * The load points a run measures (`run --param NAME=VALUE`): by parameter, the values a cell's must
 * be one of. A cell without such a parameter is left out; no parameter given keeps every cell.
 */
export type LoadPointFilter = Readonly<Record<string, readonly string[]>>;

export function atLoadPoint(params: Readonly<Record<string, ParamValue>>, filter: LoadPointFilter = {}): boolean {
  return Object.entries(filter).every(([name, values]) => name in params && values.includes(String(params[name])));
}

/** The filter as `run` takes it: `--param batch=100 --param payload=bytes`. */
export function loadPointOptions(filter: LoadPointFilter): string {
  return Object.keys(filter)
    .sort()
    .flatMap((name) => filter[name]!.map((value) => `--param ${name}=${value}`))
    .join(" ");
}
