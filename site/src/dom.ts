/** Small element builders: the pages build their DOM from data, never from HTML strings. */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

const SVG_NS = "http://www.w3.org/2000/svg";

function fill<E extends Element>(element: E, attributes: Attributes, children: readonly Child[]): E {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attributes, children);
}

/** An SVG element. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  return fill(document.createElementNS(SVG_NS, tag), attributes, children);
}

export function byId<E extends HTMLElement = HTMLElement>(id: string): E {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as E;
}

/** Two decimals at most in SVG coordinates: enough for any screen, and a smaller DOM. */
export function px(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The elements that exist, for replaceChildren and append, which take no null. */
export function present(...elements: (HTMLElement | null)[]): HTMLElement[] {
  return elements.filter((e): e is HTMLElement => e !== null);
}
