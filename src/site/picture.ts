/**
 * The picture the README opens with, drawn from the history's chained trends: for each runtime,
 * its cold start (startup/hello, wall time) release by release against the first release of its
 * chain, the product of the paired steps between, with its 95 % band. A standalone SVG (no script,
 * no external style), written by the site build beside the pages and by `scripts/docs` for the
 * README, so neither is ever made by hand.
 */
import { escapeMarkup } from "../core/markup.ts";
import type { ChainedSeries, ChainedTrends } from "../regressions/chains.ts";
import { SITE_RUNTIMES } from "./model.ts";

export const PICTURE_FILE = "history.svg";

/** What the picture draws: the scenario every runtime runs, on its headline metric. */
const SUBJECT = { suite: "startup", scenario: "hello", metric: "wall_ms" } as const;
const COLOURS: Record<string, string> = { node: "#2f9e6e", deno: "#4c7fd9", bun: "#e39a2d" };
const WIDTH = 840;
const HEIGHT = 300;
const MARGIN = { top: 74, right: 16, bottom: 42, left: 52 };
const GAP = 28;

/** Each runtime's longest chain of the subject, whichever runner measured it. */
function chainsToDraw(trends: ChainedTrends): ChainedSeries[] {
  const candidates = trends.chains.filter((c) => c.suite === SUBJECT.suite && c.scenario === SUBJECT.scenario && c.metric === SUBJECT.metric && c.app === null);
  return SITE_RUNTIMES.flatMap((runtime) => {
    const longest = candidates.filter((c) => c.runtime === runtime).sort((a, b) => b.points.length - a.points.length)[0];
    return longest ? [longest] : [];
  });
}

/** The day of the newest link drawn: the picture changes only when the history does. */
const newestLink = (chains: readonly ChainedSeries[]) => chains.flatMap((c) => c.points.map((p) => p.link?.started_at ?? "")).sort().at(-1)!.slice(0, 10);

const fixed = (value: number) => Number(value.toFixed(1));

/** Ticks of a log axis between `low` and `high`: the usual ratios a reader knows. */
function logTicks(low: number, high: number): number[] {
  return [0.1, 0.25, 0.5, 1, 2, 4, 10].filter((t) => t >= low && t <= high);
}

function panel(chain: ChainedSeries, x0: number, width: number, y: (ratio: number) => number, ticks: readonly number[]): string {
  const n = chain.points.length;
  const x = (i: number) => fixed(x0 + (n === 1 ? width / 2 : (i * width) / (n - 1)));
  const colour = COLOURS[chain.runtime] ?? "#5a6472";
  const upper = chain.points.map((p, i) => `${x(i)},${fixed(y(p.ci95[1]))}`);
  const lower = chain.points.map((p, i) => `${x(i)},${fixed(y(p.ci95[0]))}`).reverse();
  const line = chain.points.map((p, i) => `${x(i)},${fixed(y(p.ratio))}`).join(" ");
  const last = chain.points.at(-1)!;
  const machineChanges = chain.points.flatMap((p, i) => (p.machine_changed ? [`<line x1="${x(i)}" x2="${x(i)}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}" stroke="#8a93a0" stroke-dasharray="2 3"><title>machine changed at ${escapeMarkup(p.version)}</title></line>`] : []));
  return [
    ...ticks.map((t) => `<line x1="${x0}" x2="${fixed(x0 + width)}" y1="${fixed(y(t))}" y2="${fixed(y(t))}" stroke="#8a93a0" stroke-opacity="${t === 1 ? 0.9 : 0.3}"${t === 1 ? "" : ' stroke-dasharray="3 3"'}/>`),
    ...machineChanges,
    `<polygon points="${[...upper, ...lower].join(" ")}" fill="${colour}" fill-opacity="0.18"/>`,
    `<polyline points="${line}" fill="none" stroke="${colour}" stroke-width="2"/>`,
    ...chain.points.map((p, i) => `<circle cx="${x(i)}" cy="${fixed(y(p.ratio))}" r="2.6" fill="${colour}"><title>${escapeMarkup(`${chain.runtime} ${p.version}: ×${p.ratio.toFixed(3)} of ${chain.first} (95 % ${p.ci95[0].toFixed(3)}–${p.ci95[1].toFixed(3)})`)}</title></circle>`),
    `<text x="${x0}" y="${MARGIN.top - 8}" font-weight="600" fill="${colour}">${escapeMarkup(`${chain.runtime} ${chain.first} → ${last.version}`)}</text>`,
    `<text x="${fixed(x0 + width)}" y="${MARGIN.top - 8}" text-anchor="end" fill="#5a6472">${escapeMarkup(`×${last.ratio.toFixed(2)}, ${n - 1} link${n === 2 ? "" : "s"}`)}</text>`,
    `<text x="${x0}" y="${HEIGHT - MARGIN.bottom + 16}" fill="#5a6472">${escapeMarkup(chain.first)}</text>`,
    `<text x="${fixed(x0 + width)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="end" fill="#5a6472">${escapeMarkup(last.version)}</text>`,
  ].join("");
}

/** The picture as SVG text, or null when the history has no chain of its subject yet. */
export function historyPicture(trends: ChainedTrends): string | null {
  const chains = chainsToDraw(trends);
  if (chains.length === 0) return null;
  const ratios = chains.flatMap((c) => c.points.flatMap((p) => [p.ci95[0], p.ci95[1]]));
  const [low, high] = [Math.min(0.8, ...ratios) * 0.95, Math.max(1.25, ...ratios) * 1.05];
  const y = (ratio: number) => MARGIN.top + ((Math.log(high) - Math.log(ratio)) / (Math.log(high) - Math.log(low))) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const ticks = logTicks(low, high);
  const width = (WIDTH - MARGIN.left - MARGIN.right - GAP * (chains.length - 1)) / chains.length;
  const runners = [...new Set(chains.map((c) => c.runner))].join(" and ");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12" role="img" aria-label="Cold start of each release against the first of its chain">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="20" font-size="14" font-weight="600" fill="#14181f">Cold start (startup/hello, wall time), each release against the first of its chain</text>`,
    `<text x="${MARGIN.left}" y="37" fill="#5a6472">${escapeMarkup(`the product of the paired steps (each release beside its predecessor) on ${runners} · 95 % band · lower is faster`)}</text>`,
    ...ticks.map((t) => `<text x="${MARGIN.left - 6}" y="${fixed(y(t) + 4)}" text-anchor="end" fill="#5a6472">×${t}</text>`),
    ...chains.map((chain, i) => panel(chain, MARGIN.left + i * (width + GAP), width, y, ticks)),
    `<text x="${WIDTH - MARGIN.right}" y="${HEIGHT - 8}" text-anchor="end" fill="#8a93a0">${escapeMarkup(`drawn by the site build from data/, links measured up to ${newestLink(chains)}`)}</text>`,
    "</svg>",
  ].join("\n");
}
