/** Fetches one of the site's JSON files, relative to the page, so the site works below any path. */
export async function fetchJson<T>(path: string): Promise<T> {
  const response = await fetch(new URL(path, document.baseURI));
  if (!response.ok) throw new Error(`${path}: ${response.status} ${response.statusText}`);
  return (await response.json()) as T;
}
