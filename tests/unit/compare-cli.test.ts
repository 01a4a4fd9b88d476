import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { writeResult } from "../../src/results/store.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { syntheticHistory, syntheticResult } from "../helpers/series.ts";

describe("compare, regressions and export on the command line", () => {
  const base = tempDir("cli-base");
  const head = tempDir("cli-head");
  const history = tempDir("cli-history");

  before(async () => {
    await writeResult(base, syntheticResult({ index: 0, level: 30 }));
    await writeResult(head, syntheticResult({ index: 1, level: 15, runtime: "bun", version: "1.2.0" }));
    for (const doc of syntheticHistory({ seed: 1, runNoise: 0.01, step: 0.1, stepAt: 6 })) await writeResult(history, doc);
  });

  it("prints rows as a table, JSON or markdown", async () => {
    const table = await bench(["compare", base, head, "--history", history]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /startup\/hello\s+wall_ms\s+node@22\.11\.0 \S+ ms\s+bun@1\.2\.0 \S+ ms\s+0\.\d{3}× \(−\d+\.\d %\)\s+\[0\.\d{3}, 0\.\d{3}\] 95 % separate runs\s+\d+\.\d % noise floor\s+faster/);
    const json = await bench(["compare", base, head, "--json", "--history", history]);
    const [row] = JSON.parse(json.stdout) as Record<string, unknown>[];
    for (const field of ["suite", "scenario", "app", "metric", "ratio", "ci95", "verdict", "base_version", "head_version"]) assert.ok(field in row!, field);
    const markdown = await bench(["compare", base, head, "--markdown", "--history", history, "--min-effect", "7"]);
    assert.match(markdown.stdout, /^\*\*HEAD against BASE\*\*: 0 worse, 1 better, 0 inconclusive, 0 with no significant change\.\n\n\| scenario \|/);
  });

  it("rejects bad input with one line and exit 2", async () => {
    const cases: [string[], RegExp][] = [
      [["compare", base], /give exactly two paths, BASE and HEAD/],
      [["compare", base, join(head, "missing")], /missing: no such file or folder/],
      [["compare", base, head, "--json", "--markdown"], /choose one of --json and --markdown/],
      [["compare", base, head, "--min-effect", "lots"], /--min-effect: 'lots' is not a percentage/],
      [["compare", base, head, "--min-effect", "-1"], /compare: Option '--min-effect' argument is ambiguous\..*'--min-effect=-XYZ'/],
      [["compare", base, tempDir("empty")], /HEAD: no result files in/],
      [["regressions", "--data", join(base, "missing")], /missing: no such data folder/],
      [["export", "gab", base], /--better must be higher or lower/],
      [["export", "csv", base, "--better", "lower"], /unknown format 'csv'/],
    ];
    for (const [args, message] of cases) {
      const result = await bench(args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split("\n").length, 1, "one line");
    }
  });

  it("writes the feed and the github-action-benchmark file where asked", async () => {
    const feed = join(tempDir("cli-feed"), "feed");
    const report = await bench(["regressions", "--data", history, "--feed-dir", feed]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /^1 series, 1 change \(1 confirmed, 0 unconfirmed\)/);
    assert.ok(existsSync(join(feed, "regressions.json")) && existsSync(join(feed, "regressions.atom")));
    const out = join(feed, "smaller.json");
    const exported = await bench(["export", "gab", history, "--better", "lower", "--out", out]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual((JSON.parse(readFileSync(out, "utf8")) as { name: string }[]).map((e) => e.name), ["node 22.x · startup/hello · wall_ms · bench-x64-1"]);
    const none = await bench(["export", "gab", history, "--better", "higher"]);
    assert.deepEqual([none.code, none.stdout.trim()], [0, "[]"]);
  });
});
