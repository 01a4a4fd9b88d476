/**
 * Page state lives in the query string, so every view is a permalink: reading it restores the
 * filters, and every change replaces the URL (without a new history entry per click).
 */
export type PageState = Record<string, string>;

export function readState(): PageState {
  return Object.fromEntries(new URLSearchParams(location.search));
}

/** Writes the state into the URL, leaving out empty values and those equal to their defaults. */
export function writeState(state: PageState, defaults: PageState = {}): void {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) {
    if (value !== "" && value !== defaults[key]) query.set(key, value);
  }
  const search = query.toString();
  history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}${location.hash}`);
}

/** A link to another page of the site with the given state. */
export function pageLink(page: string, state: PageState): string {
  const query = new URLSearchParams(Object.entries(state).filter(([, value]) => value !== ""));
  const search = query.toString();
  return search ? `${page}?${search}` : page;
}
