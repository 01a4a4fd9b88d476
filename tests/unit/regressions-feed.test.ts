import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { FEED_ATOM_FILE, regressionsAtom } from "../../src/regressions/feed-atom.ts";
import { FEED_JSON_FILE, regressionsJson } from "../../src/regressions/feed-json.ts";
import { regressionsText } from "../../src/regressions/format.ts";
import type { RegressionReport } from "../../src/regressions/types.ts";
import { syntheticHistory } from "../helpers/series.ts";

const NOW = new Date("2026-12-01T00:00:00.000Z");
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Tags open and close in order, and nothing but the declaration sits outside the root: enough to call it well-formed here. */
function assertBalanced(xml: string): void {
  const stack: string[] = [];
  for (const [, closing, name, selfClosing] of xml.replace(/^<\?xml[^>]*\?>/, "").matchAll(/<(\/?)([A-Za-z][\w:-]*)[^>]*?(\/?)>/g)) {
    if (selfClosing) continue;
    if (closing) assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
    else stack.push(name!);
  }
  assert.deepEqual(stack, []);
  assert.doesNotMatch(xml.replace(/<[^>]*>/g, ""), /[<>]|&(?!(amp|lt|gt|quot|#39);)/, "text is escaped");
}

function elements(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}\\b[^>]*>([\\s\\S]*?)</${name}>`, "g"))].map((m) => m[1]!);
}

describe("regressions feed", () => {
  const stepped = [...syntheticHistory({ seed: 1, runNoise: 0.01, step: 0.1, stepAt: 6 })];
  const report = detectRegressions(stepped, { now: NOW });

  it("writes the whole report as JSON", () => {
    assert.equal(FEED_JSON_FILE, "regressions.json");
    assert.deepEqual(JSON.parse(regressionsJson(report)), report);
  });

  it("writes valid Atom 1.0: feed id, title, updated, author; each entry id, title, updated, link, summary", () => {
    assert.equal(FEED_ATOM_FILE, "regressions.atom");
    const atom = regressionsAtom(report);
    assert.match(atom, /^<\?xml version="1\.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
    assertBalanced(atom);
    const feedHead = atom.slice(0, atom.indexOf("<entry>"));
    assert.equal(elements(feedHead, "id").length, 1);
    assert.equal(elements(feedHead, "title").length, 1);
    assert.match(elements(feedHead, "updated")[0]!, RFC3339);
    assert.match(feedHead, /<author><name>runtime-bench<\/name><\/author>/);
    const entries = elements(atom, "entry");
    assert.equal(entries.length, 1);
    const [entry] = entries;
    assert.equal(elements(entry!, "id")[0], "tag:runtime-bench,2026:release-node-22.5.0-22.6.0-bench-x64-1");
    assert.equal(elements(entry!, "title")[0], "node 22.5.0 → 22.6.0 on bench-x64-1: 1 regression, 0 improvements");
    assert.match(elements(entry!, "updated")[0]!, RFC3339);
    assert.match(entry!, /<link rel="alternate" href="regressions.html#release-node-22\.5\.0-22\.6\.0-bench-x64-1"\/>/);
    assert.match(entry!, /<category term="regression"\/>/);
    assert.match(elements(entry!, "summary")[0]!, /^1 regression, 0 improvements\. On a headline metric: startup\/hello wall_ms \+\d+\.\d % \(regression\)\. Each: startup\/hello wall_ms regression \+\d+\.\d % \(noise floor \d\.\d %\) \[1\.\d{3}, 1\.\d{3}\]: 22\.7\.0 confirms it\.$/);
  });

  it("gives each release one entry, however many series it changed: its headline metrics and largest changes named, the rest counted", () => {
    const change = report.changes[0]!;
    const cell = (metric: string, ratio: number, headline: boolean) => ({ ...change, series: `${change.series} ${metric}`, metric, ratio, headline, kind: ratio > 1 ? ("regression" as const) : ("improvement" as const) });
    const many: RegressionReport = {
      ...report,
      changes: [cell("wall_ms", 1.1, true), ...[1.5, 0.6, 1.02, 0.97, 1.3, 0.99].map((ratio, i) => cell(`m${i}`, ratio, false)), { ...change, from_version: "22.6.0", to_version: "22.7.0", updated: "2026-01-01T00:00:00.000Z" }],
    };
    const entries = elements(regressionsAtom(many), "entry");
    assert.deepEqual(entries.map((e) => elements(e, "title")[0]), [
      "node 22.5.0 → 22.6.0 on bench-x64-1: 4 regressions, 3 improvements",
      "node 22.6.0 → 22.7.0 on bench-x64-1: 1 regression, 0 improvements",
    ], "the most recently measured first");
    const summary = elements(entries[0]!, "summary")[0]!;
    assert.match(summary, /The largest 5: startup\/hello wall_ms regression \+10\.0 %.*; startup\/hello m1 improvement −40\.0 %.*; startup\/hello m0 regression \+50\.0 %.*; startup\/hello m4 regression \+30\.0 %.*; startup\/hello m3 improvement −3\.0 %.*; and 2 more on the page\.$/);
    assert.match(entries[0]!, /<category term="regression"\/>\n {4}<category term="improvement"\/>/);
  });

  it("names and links, once, a change the runtime's team documented on any of the release's cells", () => {
    const change = report.changes[0]!;
    const documented = { id: "node-x", direction: "slower" as const, factor: 1.1, measure: "a start", source: "nodejs/node#1", url: "https://github.com/nodejs/node/pull/1" };
    const twice: RegressionReport = { ...report, changes: [{ ...change, documented: [documented] }, { ...change, series: `${change.series} cpu`, metric: "cpu_s", headline: false, documented: [documented] }] };
    const [entry] = elements(regressionsAtom(twice), "entry");
    assert.equal(entry!.match(/<link rel="related" title="documented: nodejs\/node#1" href="https:\/\/github\.com\/nodejs\/node\/pull\/1"\/>/g)?.length, 1);
    assert.equal(elements(entry!, "summary")[0]!.match(/Documented by the runtime&#39;s team: [^(]+\(https:\/\/github\.com\/nodejs\/node\/pull\/1\)\./g)?.length, 1);
  });

  it("keeps entry ids and the feed's date when regenerated later, and links entries to the given page", () => {
    const later = detectRegressions(stepped, { now: new Date("2027-01-01T00:00:00.000Z") });
    assert.equal(elements(regressionsAtom(later), "id").join(), elements(regressionsAtom(report), "id").join());
    assert.equal(elements(regressionsAtom(later), "updated")[0], report.changes[0]!.updated);
    assert.match(regressionsAtom(report, "https://bench.example/regressions.html"), /href="https:\/\/bench\.example\/regressions\.html#release-node-22\.5\.0-22\.6\.0-bench-x64-1"/);
  });

  it("alerts only confirmed changes, and escapes text", () => {
    const change = { ...report.changes[0]!, reason: "a <b> & 'c'" };
    const mixed: RegressionReport = { ...report, changes: [change, { ...change, to_version: "22.9.0", status: "unconfirmed" }] };
    const atom = regressionsAtom(mixed);
    assertBalanced(atom);
    assert.equal(elements(atom, "entry").length, 1);
    assert.match(atom, /a &lt;b&gt; &amp; &#39;c&#39;/);
  });

  it("dates an empty feed by when it was made", () => {
    const quiet = detectRegressions(syntheticHistory({ seed: 2, runNoise: 0.01, versions: 6 }), { now: NOW });
    assert.equal(quiet.changes.length, 0);
    const atom = regressionsAtom(quiet);
    assertBalanced(atom);
    assert.equal(elements(atom, "updated")[0], NOW.toISOString());
  });

  it("prints changes, drift and, on request, every series' noise floor", () => {
    const text = regressionsText(report, true);
    assert.match(text, /^1 series, 1 change \(1 confirmed, 0 unconfirmed\), 0 runs with environment drift/);
    assert.match(text, /confirmed\s+regression\s+node startup\/hello wall_ms on bench-x64-1\s+22\.5\.0 → 22\.6\.0\s+\+\d+\.\d % \(noise floor \d\.\d %\)/);
    assert.match(text, /release by release \(each change is in the table below\):\nrelease\s+runner\s+regressions\s+improvements\s+on a headline metric\n[- ]+\nnode 22\.5\.0 → 22\.6\.0\s+bench-x64-1\s+1\s+0\s+startup\/hello wall_ms \+\d+\.\d % \(regression\)\n/);
    assert.match(text, /node startup\/hello wall_ms on bench-x64-1\s+10: 22\.0\.0 … 22\.9\.0\s+10\s+\d\.\d %$/m);
  });
});
