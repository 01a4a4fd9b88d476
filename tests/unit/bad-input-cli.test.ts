import assert from "node:assert/strict";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { bench } from "../../benchmarks/lib/cli.ts";
import { RUN_FILE, writeResult } from "../../src/results/store.ts";
import { syntheticResult } from "../helpers/series.ts";
import { ownTempDir } from "../helpers/temp.ts";

/** Runs each case and checks that it says its problem in one line, with exit status 2. */
async function rejects(cases: readonly (readonly [readonly string[], RegExp])[]): Promise<void> {
  for (const [args, message] of cases) {
    const result = await bench(args);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stderr.trim().split("\n").length, 1, `${args.join(" ")}: one line, not ${result.stderr}`);
    assert.match(result.stderr.trim(), message, args.join(" "));
  }
}

describe("bad input on the command line: one line naming what and where, exit status 2", () => {
  it("a file named by an option that does not exist", async () => {
    const missing = join(ownTempDir("bad-input"), "missing.json");
    await rejects([
      [["collect", ownTempDir("artifacts"), "--runners", missing], /missing\.json: no such file$/],
      [["collect", ownTempDir("artifacts"), "--plan", missing], /missing\.json: no such file$/],
      [["sweep", "--plan", "--runners", missing], /missing\.json: no such file$/],
    ]);
  });
});

describe("a command that reads result files, given none", () => {
  it("asks for them and names its help", async () => {
    await rejects([
      [["repro"], /^runtime-bench: repro: name at least one result file or folder \(see scripts\/bench repro --help\)$/],
      [["profile"], /^runtime-bench: profile: name at least one result file or folder \(see scripts\/bench profile --help\)$/],
    ]);
  });
});

describe("an unknown suite where scripts/bench installs the suites' tools first", () => {
  it("is said once", async () => {
    await rejects([
      [["run", "--suite", "nope"], /unknown suite 'nope': known suites are /],
      [["sweep", "--plan", "--suite", "nope"], /unknown suite 'nope': known suites are /],
    ]);
  });
});

describe("a run's runtimes", () => {
  it("reads the sentinel's spec before provisioning any runtime", async () => {
    const out = ownTempDir("run-out");
    await rejects([[["run", "--suite", "startup", "--scenario", "hello", "--out", out, "--runtime", "node@path:/nonexistent/node", "--sentinel", "nosuch@1"], /unknown runtime 'nosuch' in 'nosuch@1'/]]);
  });
});

describe("plan checks the suites' options as run does", () => {
  it("refuses an app no chosen suite has, or an option for suites none of which is chosen", async () => {
    await rejects([
      [["plan", "--suite", "http", "--app", "nope"], /unknown app 'nope': the chosen suites have apps .*native/],
      [["plan", "--suite", "database", "--engine", "nope"], /unknown engine 'nope': the chosen suites have engines sqlite, postgres$/],
      [["plan", "--suite", "startup", "--app", "native"], /--app applies to the http, .* suite\(s\), and none of them is chosen$/],
    ]);
  });
});

describe("an --out where nothing can be written", () => {
  it("names the place and why", async () => {
    const results = ownTempDir("out-results");
    const written = await writeResult(results, syntheticResult({ index: 0, level: 30 }));
    const file = join(ownTempDir("out-file"), "a-file");
    writeFileSync(file, "");
    await rejects([
      [["export", "gab", results, "--better", "lower", "--out", join(file, "gab.json")], /export gab: --out \S+\/a-file\/gab\.json: a file is in the way$/],
      [["export", "gab", results, "--better", "lower", "--out", results], /export gab: --out \S+: a folder is there$/],
      [["site", "--data", results, "--out", file], /--out \S+\/a-file: a file is in the way$/],
      [["site", "--data", results, "--out", join(file, "sub")], /--out \S+\/a-file\/sub: a file is in the way$/],
      [["repro", written, "--out", file], /--out \S+\/a-file: a file is in the way$/],
    ]);
  });
});

describe("export without its arguments", () => {
  it("says what it takes", async () => {
    await rejects([[["export"], /export: give a format and the results: export gab DIR --better higher\|lower/]]);
  });
});

describe("a folder the site is told to read", () => {
  it("named and absent is a typo, not a site without it", async () => {
    const missing = join(ownTempDir("site-inputs"), "nope");
    await rejects([
      [["site", "--feed", missing], /site: --feed \S+\/nope: no such folder \(leave --feed out to build without it\)$/],
      [["site", "--profiles", missing], /site: --profiles \S+\/nope: no such folder/],
    ]);
  });
});

describe("result files that parse but lack what every reader relies on", () => {
  /** A data folder of two runs, the second's result (or its run.json) edited by `edit`. */
  async function editedData(edit: (doc: Record<string, unknown>) => void, file: "result" | "run.json" = "result"): Promise<{ data: string; base: string; head: string; broken: string }> {
    const data = ownTempDir("bad-result");
    const base = await writeResult(data, syntheticResult({ index: 0, level: 30 }));
    const head = await writeResult(data, syntheticResult({ index: 1, level: 15 }));
    const broken = file === "result" ? head : join(dirname(dirname(dirname(head))), RUN_FILE);
    const doc = JSON.parse(readFileSync(broken, "utf8")) as Record<string, unknown>;
    edit(doc);
    writeFileSync(broken, JSON.stringify(doc));
    return { data, base: dirname(base), head: dirname(head), broken: head };
  }

  it("names the file and the field, in every command that reads results", async () => {
    const noRuntime = await editedData((doc) => delete doc.runtime);
    const samples = await editedData((doc) => ((doc.metrics as { wall_ms: { samples: unknown } }).wall_ms.samples = "many"));
    const noEnvironment = await editedData((doc) => delete doc.environment, "run.json");
    const history = ownTempDir("no-history");
    await rejects([
      [["compare", noRuntime.base, noRuntime.head, "--history", history], /-\S+\.json: not a complete result: \/runtime: must be an object \(scripts\/bench validate/],
      [["compare", samples.base, samples.head, "--history", history], /\.json: not a complete result: \/metrics\/wall_ms\/samples: must be a list of numbers/],
      [["compare", noEnvironment.base, noEnvironment.head, "--history", history], /\.json: not a complete result: \/environment: must be an object/],
      [["regressions", "--data", noRuntime.data, "--no-cache"], /\.json: not a complete result: \/runtime: must be an object/],
      [["findings", samples.head], /\.json: not a complete result: \/metrics\/wall_ms\/samples/],
      [["export", "gab", noEnvironment.head, "--better", "lower"], /\.json: not a complete result: \/environment/],
      [["repro", noRuntime.broken], /\.json: not a complete result: \/runtime/],
    ]);
  });
});

describe("a path or a subject given wrong", () => {
  it("says which and why: a folder sweep is told to read, a symbolic link that loops, a runtime given twice", async () => {
    const dir = ownTempDir("wrong-paths");
    const loop = join(dir, "loop");
    symlinkSync(loop, loop);
    await rejects([
      [["sweep", "--plan", "--runtime", "node@22.11.0", "--runtime", "node@22.12.0", "--data", join(dir, "nope")], /sweep: --data \S+\/nope: no such folder \(make it first to start a history there\)$/],
      [["validate", loop], /\/loop: its symbolic links loop$/],
      [["plan", "--suite", "startup", "--runtime", "node@22.11.0", "--runtime", "node@22.11.0"], /plan: node@22\.11\.0 is given twice, and run refuses to measure one binary beside itself$/],
    ]);
  });
});
