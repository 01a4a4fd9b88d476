/** A value of a result's load parameters. */
export type ParamValue = string | number | boolean;

/** `connections=100,keepalive=true`, in key order: the part of a file name that tells load points apart. */
export function paramsSlug(params: Readonly<Record<string, ParamValue>>): string {
  return Object.keys(params)
    .sort()
    .map((key) => `${key}=${String(params[key])}`)
    .join(",");
}
