import { h } from "./dom.ts";

export type Option = readonly [value: string, label: string];

/** A labelled row of radio buttons that look like a segmented switch: for a few choices. */
export function segmented(label: string, name: string, options: readonly Option[], value: string, onChange: (value: string) => void): HTMLElement {
  const group = h("div", { class: "segmented", role: "radiogroup", "aria-label": label });
  for (const [optionValue, optionLabel] of options) {
    const input = h("input", { type: "radio", name, value: optionValue, checked: optionValue === value });
    input.addEventListener("change", () => onChange(optionValue));
    group.append(h("label", {}, input, h("span", {}, optionLabel)));
  }
  return h("div", { class: "control", "data-control": name }, h("span", { class: "label" }, label), group);
}

/** A labelled drop-down: for longer lists. */
export function select(label: string, name: string, options: readonly Option[], value: string, onChange: (value: string) => void): HTMLElement {
  const id = `control-${name}`;
  const element = h("select", { id, name }, ...options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
  element.addEventListener("change", () => onChange(element.value));
  return h("div", { class: "control", "data-control": name }, h("label", { class: "label", for: id }, label), element);
}
