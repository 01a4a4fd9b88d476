/**
 * Charts are drawn at their container's width, and again when it changes (rotation, resizing),
 * through one shared ResizeObserver. The first chart drawn on a page sets the `first-chart`
 * performance mark, which the scale benchmark reads.
 */
const draws = new WeakMap<Element, (width: number) => void>();
const drawnWidth = new WeakMap<Element, number>();

const observer = new ResizeObserver((entries) => {
  for (const entry of entries) {
    if (!entry.target.isConnected) {
      observer.unobserve(entry.target);
      continue;
    }
    const width = Math.floor(entry.contentRect.width);
    if (width < 1 || width === drawnWidth.get(entry.target)) continue;
    drawnWidth.set(entry.target, width);
    draws.get(entry.target)?.(width);
  }
});

export function onWidthChange(element: Element, draw: (width: number) => void): void {
  draws.set(element, draw);
  observer.observe(element);
}

let firstChartMarked = false;

/** Marks a chart as drawn: for the tests (`data-drawn`) and the benchmark (`first-chart`). */
export function markChartDrawn(figure: HTMLElement): void {
  figure.dataset.drawn = String(Number(figure.dataset.drawn ?? 0) + 1);
  if (!firstChartMarked) {
    firstChartMarked = true;
    performance.mark("first-chart");
  }
}
