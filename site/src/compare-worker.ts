/**
 * The compare page's computation, off the page's thread: fetches one suite's files of the two
 * versions and of the runtimes' histories, and runs the CLI's own comparisons on them (paired where
 * the two versions were measured in one run, compareResults elsewhere) (a few seconds of bootstrap
 * on a long history would otherwise freeze the page). The page keeps one worker and asks it for
 * one suite at a time. Bundled as assets/compare-worker.js.
 */
import { compareWithPairs } from "../../src/compare/paired.ts";
import { explainRows, type ExplainedRow } from "../../src/compare/syscall-diff.ts";
import { bundleDocuments, historyDocuments, type CompareBundle, type CompareHistory } from "../../src/site/compare-data.ts";

/** Absolute URLs of the files one suite's comparison needs; `id` comes back with its reply. */
export interface CompareRequest {
  id: number;
  base: string;
  head: string;
  histories: string[];
}

export type CompareReply = { id: number } & ({ rows: ExplainedRow[] } | { error: string });

async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${new URL(url).pathname}: ${response.status} ${response.statusText}`);
  return (await response.json()) as T;
}

self.onmessage = async (event: MessageEvent<CompareRequest>) => {
  const { id, base, head, histories } = event.data;
  let reply: CompareReply;
  try {
    const [baseBundle, headBundle, ...runtimeHistories] = await Promise.all([
      fetchJson<CompareBundle>(base),
      fetchJson<CompareBundle>(head),
      ...histories.map((url) => fetchJson<CompareHistory>(url)),
    ]);
    const [baseDocs, headDocs] = [bundleDocuments(baseBundle), bundleDocuments(headBundle)];
    reply = { id, rows: explainRows(compareWithPairs(baseDocs, headDocs, { history: runtimeHistories.flatMap(historyDocuments) }), baseDocs, headDocs) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  postMessage(reply);
};
