import { byId, h } from "./dom.ts";
import { comparePage } from "./pages/compare.ts";
import { overviewPage } from "./pages/overview.ts";
import { scenarioPage } from "./pages/scenario.ts";

/** Pages whose content is drawn here; the regressions and methodology pages are complete as built. */
const PAGES: Record<string, { root: string; run: () => Promise<void> }> = {
  overview: { root: "overview", run: overviewPage },
  scenario: { root: "scenario", run: scenarioPage },
  compare: { root: "compare", run: comparePage },
};

/**
 * `data-ready` on the body: the page has drawn what it draws on opening (or said why it could not).
 * The browser tests wait for it rather than for the network to stay idle, which costs half a second a page.
 */
const settled = () => (document.body.dataset.ready = "true");
const page = PAGES[document.body.dataset.page ?? ""];
if (page) {
  page
    .run()
    .catch((error: unknown) => {
      // Shown on the page, where a reader sees it, and logged, where a test does.
      byId(page.root).replaceChildren(h("p", { class: "error", role: "alert" }, `This page could not be drawn: ${error instanceof Error ? error.message : String(error)}`));
      console.error(error);
    })
    .finally(settled);
} else {
  settled();
}
