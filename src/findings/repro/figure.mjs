// Prints the headline figure of one reproduction run the way runtime-bench computes it, and the
// runtime that ran it. Plain JavaScript on node: built-ins only, so Node, Deno and Bun all run it.
//   figure.mjs in-process REPORT.json SPEC   the in-process protocol's report (apps/inprocess/protocol.js)
//   figure.mjs server OHA.json SPEC          oha's --output-format json
//   figure.mjs process HYPERFINE.json SPEC   hyperfine's --export-json: each timed start, in ms
import { readFileSync } from "node:fs";
import process from "node:process";

const [kind, file, specText] = process.argv.slice(2);
const spec = JSON.parse(specText);
const report = JSON.parse(readFileSync(file, "utf8"));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function runtime() {
  if (typeof globalThis.Bun !== "undefined") return `bun ${globalThis.Bun.version}`;
  if (typeof globalThis.Deno !== "undefined") return `deno ${globalThis.Deno.version.deno}`;
  return `node ${process.versions.node}`;
}

let values;
if (kind === "in-process") {
  if (typeof report.error === "string") {
    console.error(`the app failed: ${report.error}`);
    process.exit(1);
  }
  if (spec.digest !== undefined && report.digest !== spec.digest) {
    console.error(`the app reported digest ${report.digest}, expected ${spec.digest}: what it read or wrote is not what runtime-bench measured`);
    process.exit(1);
  }
  values = "rate" in spec ? report.samples.wall_ms.map((ms) => spec.rate / (ms / 1000)) : report.samples[spec.sample];
} else if (kind === "process") {
  values = report.results[0].times.map((seconds) => seconds * 1000);
} else {
  values = [report.summary.requestsPerSec];
}
const figure = median(values);
const shown = figure >= 100 ? figure.toFixed(0) : figure.toPrecision(3);
console.log(`${spec.metric}: ${shown} ${spec.unit} (median of ${values.length}) on ${runtime()}`);
