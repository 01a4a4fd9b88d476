import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { datesOf, headlines, loadNow, measurementsMarkdown, MEASUREMENTS_MD, readMeasurements, readmeFiguresTable, recordMeasurement, thisMachine } from "../../benchmarks/lib/measurements.ts";
import { RUN_TO_RUN_SHIFT, shiftTableRows } from "../../src/compare/noise.ts";
import { MEASUREMENTS } from "../../src/core/measurements.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { html } from "../../src/site/html.ts";
import { bundleAssets } from "../../src/site/bundle.ts";
import { methodologyBody } from "../../src/site/methodology.ts";

const read = (file: string) => readFileSync(join(REPO_ROOT, file), "utf8");
/** How the methodology page writes a text: escaped as the page escapes it. */
const onPage = (text: string | number) => html`${text}`.text;

test("docs/measurements.md is what scripts/docs generates from docs/measurements.json", () => {
  assert.equal(read(MEASUREMENTS_MD), measurementsMarkdown(readMeasurements()), "run scripts/docs after editing docs/measurements.json");
});

test("the README's figures table is what scripts/docs generates from docs/measurements.json", () => {
  assert.ok(read("README.md").includes(readmeFiguresTable(readMeasurements())), "run scripts/docs after editing docs/measurements.json");
});

test("the JSON the code imports is the file on disk, and every entry says what, when, where and under which load", () => {
  assert.deepEqual(MEASUREMENTS, readMeasurements());
  for (const [id, entry] of Object.entries(MEASUREMENTS.entries)) {
    for (const field of ["title", "benchmark", "when", "where", "load"] as const) assert.ok(entry[field].trim() !== "", `${id}: ${field}`);
    assert.match(entry.when, /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?$/, `${id}: when`);
  }
});

test("the run-to-run shifts of compare are the JSON's: local and hosted the shared machine's, dedicated the quiet one's", () => {
  const { shared, quiet } = MEASUREMENTS.entries["run-to-run-shift"].shifts;
  for (const suite of new Set([...Object.keys(shared), ...Object.keys(quiet)])) {
    assert.deepEqual(RUN_TO_RUN_SHIFT[suite]?.local, shared[suite], `${suite} local`);
    assert.deepEqual(RUN_TO_RUN_SHIFT[suite]?.hosted, shared[suite], `${suite} hosted`);
    assert.deepEqual(RUN_TO_RUN_SHIFT[suite]?.dedicated, quiet[suite], `${suite} dedicated`);
  }
  assert.deepEqual(Object.keys(RUN_TO_RUN_SHIFT).sort(), [...new Set([...Object.keys(shared), ...Object.keys(quiet)])].sort());
});

test("the methodology page shows the JSON's shifts, false alarms and detection power", () => {
  const page = methodologyBody([], [], { generated_at: "2026-11-22T00:00:00Z", testbeds: [], scenarios: [], versions: {}, release_pairs: {}, compare_default: null }).text;
  for (const row of shiftTableRows()) assert.ok(page.includes(`<tr><td>${row.map(onPage).join("</td><td>")}</td></tr>`), `shift row ${row.join(", ")}`);
  for (const row of MEASUREMENTS.entries["false-alarms"].rows) {
    assert.ok(page.includes(`<td>${onPage(row.runs)}</td><td>${onPage(row.when)}</td><td>${onPage(row.load)}</td>`), `false-alarm row ${row.runs}`);
    assert.ok(page.includes(`<td>${row.pairs}</td><td>${row.rows}</td><td>${row.verdicts} (`), `false-alarm counts of ${row.runs}`);
  }
  for (const row of MEASUREMENTS.entries["detection-power"].rows) {
    const cells = [`${row.suite} (${row.trials})`, row.noise, row.smallest_step, row.false_alarms_per_version, row.series_with_false_alarm];
    assert.ok(page.includes(`<tr><td>${cells.map(onPage).join("</td><td>")}</td></tr>`), `detection-power row ${cells.join(", ")}`);
  }
});

test("no code comment cites a README heading as the source of a figure: the JSON entry is the source", () => {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? (name === "node_modules" ? [] : walk(path)) : /\.(ts|js|mjs)$/.test(name) ? [path] : [];
    });
  const citing = ["src", "benchmarks", "apps", "site/src"]
    .flatMap((dir) => walk(join(REPO_ROOT, dir)))
    .filter((file) => /README[,'’]s? *["“']|\(README,|see README/.test(readFileSync(file, "utf8")))
    .map((file) => relative(REPO_ROOT, file));
  assert.deepEqual(citing, []);
});

test("a benchmark's entry replaces the old one in the JSON, and the generated documents follow it", () => {
  const root = tempDir("measurements");
  mkdirSync(join(root, "docs"));
  cpSync(join(REPO_ROOT, "README.md"), join(root, "README.md"));
  cpSync(join(REPO_ROOT, "docs/measurements.json"), join(root, "docs/measurements.json"));
  const before = readMeasurements(root);
  const machine = thisMachine(loadNow());
  recordMeasurement(
    "detection-power",
    (entry) => ({
      ...entry!,
      ...machine,
      rows: [{ suite: "startup", design: "paired", trials: "10 trials × 30", noise: "1 %", smallest_step: "9.9 % (1 of 1)", false_alarms_per_version: "0 %", series_with_false_alarm: "0 %" }],
    }),
    root,
  );
  const after = readMeasurements(root);
  assert.deepEqual(Object.keys(after.entries), Object.keys(before.entries), "the other entries, in their order");
  assert.deepEqual(after.entries["false-alarms"], before.entries["false-alarms"]);
  assert.equal(after.entries["detection-power"].rows.length, 1);
  assert.match(after.entries["detection-power"].load, /^\d+\.\d at the start, \d+\.\d at the end/);
  assert.equal(readFileSync(join(root, MEASUREMENTS_MD), "utf8"), measurementsMarkdown(after));
  const readme = readFileSync(join(root, "README.md"), "utf8");
  assert.ok(readme.includes(readmeFiguresTable(after)) && readme.includes("startup 9.9 % (1 of 1)"), "the README's table shows the new figure");
});

test("a headline of an entry measured in parts carries its own row's time and load, unless it names its own", () => {
  const entry = {
    title: "t",
    benchmark: "scripts/benchmark t",
    when: "2026-11-28 01:43",
    where: "here",
    load: "per row",
    columns: { runtime: "runtime", spread: "spread", measured_at: "measured" },
    rows: [
      { runtime: "node", spread: "0.1 %", measured_at: "2026-11-27 23:27 (0.8 at the start, 1.4 at the end)" },
      { runtime: "deno", spread: "0.5 %", measured_at: "2026-11-28 01:24 (1.1 at the start, 1.6 at the end)" },
    ],
    summary: [
      { measure: "node", row: 0, figure: "{spread}" },
      { measure: "deno", row: 1, figure: "{spread}" },
      { measure: "deno, by hand", row: 1, figure: "{spread}", when: "2026-11-20 10:00", load: "0.3 (1-minute load average)" },
    ],
  };
  const [node, deno, byHand] = headlines("t", entry);
  assert.deepEqual(node, { measure: "node", figure: "0.1 %", when: "2026-11-27 23:27", load: "0.8 at the start, 1.4 at the end (1-minute load average)" });
  assert.deepEqual(deno, { measure: "deno", figure: "0.5 %", when: "2026-11-28 01:24", load: "1.1 at the start, 1.6 at the end (1-minute load average)" });
  assert.deepEqual(byHand, { measure: "deno, by hand", figure: "0.5 %", when: "2026-11-20 10:00", load: "0.3 (1-minute load average)" });
});

test("the README names every day a figure measured over several days spans", () => {
  assert.equal(datesOf("2026-11-28 01:43"), "2026-11-28");
  assert.equal(datesOf("2026-11-26 09:12 to 2026-11-26 17:40"), "2026-11-26");
  assert.equal(datesOf("2026-11-27 18:17 to 2026-11-28 08:50"), "2026-11-27 to 2026-11-28");
});

test("the browser bundle holds the run-to-run shifts from the JSON, and none of its prose", async () => {
  const out = tempDir("measurements-bundle");
  await bundleAssets(out);
  const worker = readFileSync(join(out, "assets/compare-worker.js"), "utf8");
  const { shifts } = MEASUREMENTS.entries["run-to-run-shift"];
  assert.ok(worker.includes(`latency_p99_ms:${shifts.quiet.database!.metrics!.latency_p99_ms}`), "the shifts are in the worker");
  for (const entry of Object.values(MEASUREMENTS.entries)) assert.ok(!worker.includes(entry.title), `no "${entry.title}" in the worker`);
});
