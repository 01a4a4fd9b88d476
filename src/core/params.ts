/** A value of a result's load parameters. */
export type ParamValue = string | number | boolean;

/**
 * Each params object's slug, made once: a site build asks for the slug of every result's params
 * several times (its series, its findings' cells), some per cent of a part's time when each was made
 * again. Results are never changed once read, so an object's slug stays true.
 */
const slugs = new WeakMap<Readonly<Record<string, ParamValue>>, string>();

/** `connections=100,keepalive=true`, in key order: the part of a file name that tells load points apart. */
export function paramsSlug(params: Readonly<Record<string, ParamValue>>): string {
  let slug = slugs.get(params);
  if (slug === undefined) {
    slug = Object.keys(params)
      .sort()
      .map((key) => `${key}=${String(params[key])}`)
      .join(",");
    slugs.set(params, slug);
  }
  return slug;
}

