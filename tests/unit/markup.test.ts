import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { escapeMarkdown, escapeMarkup } from "../../src/core/markup.ts";
import { gabEntries } from "../../src/export/gab.ts";
import { regressionsAtom } from "../../src/regressions/feed-atom.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { resultPath } from "../../src/results/store.ts";
import { html } from "../../src/site/html.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";
import { syntheticHistory } from "../helpers/series.ts";

const FENCE = "22.0.0\n```\n@maintainer <img src=x onerror=alert(1)>";
const HOSTILE = ["```", "@maintainer", "<script>alert(1)</script>", "a | b", "[link](https://evil.invalid)", "**bold**", "&amp;"];

describe("strings from results, where they reach Markdown, HTML and Atom", () => {
  it("validate refuses a version holding a code fence, an @mention or HTML, naming the file and the field", async () => {
    const data = tempDir("hostile-data");
    const versions = ["22.0.0```", "22.0.0-@maintainer", "22.0.0+<b>x</b>", FENCE];
    for (const [i, version] of versions.entries()) {
      const doc = makeResult({ run: { id: `20261101T00000${i}Z-abcdef` }, runtime: { ...makeResult().runtime, version } });
      // Written by hand: the store itself refuses to write an invalid result.
      const path = resultPath(data, { ...doc, runtime: { ...doc.runtime, version: "22.0.0" } });
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, JSON.stringify(doc));
    }
    const valid = makeResult({ run: { id: "20261101T000009Z-abcdef" }, runtime: { ...makeResult().runtime, version: "1.2.0-canary.20261101+0a1b2c3" } });
    const path = resultPath(data, valid);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(valid));
    const result = await bench(["validate", data]);
    assert.equal(result.code, 1, result.stdout);
    const refused = result.stderr.split("\n").filter((line) => /\/runtime\/version: must match pattern/.test(line));
    assert.equal(refused.length, versions.length, result.stderr);
    assert.doesNotMatch(result.stderr, /20261101T000009Z/, "a canary's pre-release and build parts are a version");
  });

  it("Markdown: no fence, mention, HTML, link, emphasis or table column survives", () => {
    for (const text of [...HOSTILE, FENCE]) {
      const escaped = escapeMarkdown(text);
      assert.doesNotMatch(escaped, /(^|[^\\])[`|*[\]]/, escaped);
      assert.doesNotMatch(escaped, /[<>\n]/, escaped);
      assert.doesNotMatch(escaped, /(^|[^A-Za-z0-9])@(?!&#8203;)/, escaped);
    }
    assert.equal(escapeMarkdown("node@22.11.0 wall_ms"), "node@22.11.0 wall_ms", "no mention inside a word");
    assert.equal(escapeMarkdown("node 22.11.0 · startup/hello"), "node 22.11.0 · startup/hello", "ordinary text stays readable");
  });

  it("HTML and XML: no tag, attribute or entity survives, and no character XML cannot hold", () => {
    for (const text of [...HOSTILE, FENCE, "\u0000\u001b"]) {
      const escaped = escapeMarkup(text);
      assert.doesNotMatch(escaped, /[<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f]|&(?!amp;|lt;|gt;|quot;|#39;)/, escaped);
    }
    assert.equal(String(html`<td title="${'"><script>'}">${"<b>"}</td>`), '<td title="&quot;&gt;&lt;script&gt;">&lt;b&gt;</td>');
  });

  it("the Atom feed escapes a hostile reason and series in every element", () => {
    const report = detectRegressions([...syntheticHistory({ seed: 1, runNoise: 0.01, step: 0.1, stepAt: 6 })], { now: new Date("2026-12-01T00:00:00.000Z") });
    const change = { ...report.changes[0]!, reason: "<script>alert(1)</script>", series: "<x>", updated: "<y>" };
    const atom = regressionsAtom({ ...report, changes: [change] });
    assert.doesNotMatch(atom, /<script>|<x>|<y>/);
    assert.match(atom, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it("github-action-benchmark names and details carry no markup, whatever a parameter holds", () => {
    const doc = makeResult({ params: { mode: "```<b>@maintainer</b>|[x](y)" } });
    const entries = gabEntries([doc], "lower");
    assert.ok(entries.length > 0);
    for (const entry of entries) {
      assert.doesNotMatch(entry.name, /[`<>@|[\]()*]/, entry.name);
      assert.doesNotMatch(entry.extra, /[`<>@|]/, entry.extra);
    }
  });
});
