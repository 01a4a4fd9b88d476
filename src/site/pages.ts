import { html, type SafeHtml } from "./html.ts";

export type PageName = "overview" | "scenario" | "compare" | "findings" | "regressions" | "methodology";

/** Every page, in navigation order; scenario pages are reached from the overview, not the menu. */
export const PAGES: readonly { name: PageName; file: string; nav: string | null }[] = [
  { name: "overview", file: "index.html", nav: "Overview" },
  { name: "scenario", file: "scenario.html", nav: "Trends" },
  { name: "compare", file: "compare.html", nav: "Compare" },
  { name: "findings", file: "findings.html", nav: "Findings" },
  { name: "regressions", file: "regressions.html", nav: "Regressions" },
  { name: "methodology", file: "methodology.html", nav: "Methodology" },
];

export interface PageFrame {
  /** The text of site/templates/page.html. */
  readonly template: string;
  /** A hash of the bundled assets: appended to their URLs, so a new build is never served stale. */
  readonly assetVersion: string;
  readonly footer: SafeHtml;
  /** Extra `<head>` lines on every page (the Atom link, when there is a feed). */
  readonly head: SafeHtml;
}

function nav(current: PageName): SafeHtml {
  return html`${PAGES.filter((p) => p.nav !== null).map(
    (p) => html`<a href="${p.file}"${p.name === current ? html` aria-current="page"` : ""}>${p.nav}</a>`,
  )}`;
}

/** Fills the page template. Every URL in it is relative, so the site works from any sub-path. */
export function renderPage(frame: PageFrame, page: PageName, title: string, main: SafeHtml): string {
  const slots: Record<string, string> = {
    title: html`${title}`.text,
    page,
    asset_version: frame.assetVersion,
    head: frame.head.text,
    nav: nav(page).text,
    main: main.text,
    footer: frame.footer.text,
  };
  return frame.template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => slots[name] ?? whole);
}

const noscript = (what: string) =>
  html`<noscript><p class="empty">${what} are drawn with JavaScript. Every chart's data is also published as files: start from <a href="data/catalog.json">data/catalog.json</a>, or read the <a href="methodology.html">methodology</a>.</p></noscript>`;

/** The overview, scenario and compare pages: a heading and the places their script fills in. */
export const overviewBody = html`<h1>How Node.js, Deno and Bun compare</h1>
<p class="lede">The newest measured version of each runtime, side by side, for every scenario and architecture. Each bar is a median; its whisker is the 95 % confidence interval. Every figure names the machine and date it comes from.</p>
<div id="overview-controls" class="controls"></div>
<div id="overview" class="cards" aria-live="polite"><p class="loading">Loading the latest figures…</p></div>
${noscript("The overview charts")}`;

export const scenarioBody = html`<nav class="crumbs" aria-label="Breadcrumb" id="crumbs"><a href="index.html">Overview</a></nav>
<h1 id="scenario-title">Trends</h1>
<p class="lede" id="scenario-description">How each runtime moved, release by release.</p>
<div id="scenario-controls" class="controls"></div>
<div id="scenario" aria-live="polite"><p class="loading">Loading the trend…</p></div>
${noscript("Trend charts")}`;

export const compareBody = html`<h1>Compare</h1>
<p class="lede">Two runtime versions, or two runtimes, on one machine: every scenario with the ratio of medians, its 95 % confidence interval and a verdict that must beat the series' own noise. Computed by the same function as <code>scripts/bench compare</code>.</p>
<div id="compare-controls" class="controls"></div>
<div id="compare" aria-live="polite"><p class="loading">Loading…</p></div>
${noscript("Comparisons")}`;
