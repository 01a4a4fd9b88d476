// Writes graph/: 300 small ES modules in layers, each importing up to three modules of the next
// layer, the shape of a CLI tool's source tree. Deterministic, so every machine loads the same graph.
import { mkdirSync, rmSync, writeFileSync, renameSync } from "node:fs";

const MODULES = 300;
const FANOUT = 3;
const staging = `graph.tmp-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging);
for (let i = 0; i < MODULES; i++) {
  const children = [];
  for (let k = 1; k <= FANOUT; k++) {
    const child = i * FANOUT + k;
    if (child < MODULES) children.push(child);
  }
  const imports = children.map((c) => `import { value as v${c} } from "./m${c}.js";`).join("\n");
  const sum = children.map((c) => `v${c}()`).join(" + ") || "0";
  writeFileSync(
    `${staging}/m${i}.js`,
    `${imports}\nconst label = "module ${i}";\nexport function value() {\n  return label.length + ${sum};\n}\n`,
  );
}
rmSync("graph", { recursive: true, force: true });
renameSync(staging, "graph");
