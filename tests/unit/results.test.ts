import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { recordedCommit, runnerIdentity } from "../../src/orchestrate/run-info.ts";
import { readResults } from "../../src/results/store.ts";
import { checkAgainst } from "../../src/core/schema.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { incompleteResult } from "../../src/results/limits.ts";
import { readResultFile, resultPath, writeResult } from "../../src/results/store.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult } from "../../benchmarks/lib/documents.ts";

/** An object of the result schema: its fields, and which it requires. */
interface SchemaNode {
  readonly properties?: Record<string, unknown>;
  readonly required?: readonly string[];
}

describe("result schema", () => {
  it("accepts a complete document", () => {
    assert.deepEqual(checkAgainst("result.schema.json", makeResult()), []);
  });

  it("names what is missing or wrong", () => {
    const { runtime: _gone, ...noRuntime } = makeResult();
    assert.match(checkAgainst("result.schema.json", noRuntime).join(), /must have required property 'runtime'/);
    assert.match(checkAgainst("result.schema.json", makeResult({ status: "failed" })).join(), /must have required property 'error'/);
    assert.match(checkAgainst("result.schema.json", makeResult({ metrics: {} })).join(), /\/metrics: must NOT have fewer than 1 properties/);
    const badSha = makeResult({ runtime: { sha256: "xyz" } });
    assert.match(checkAgainst("result.schema.json", badSha).join(), /\/runtime\/sha256: must match pattern/);
  });

  it("leaves to the schema every field it makes optional: a read never refuses a valid document for lacking one", () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, "schemas", "result.schema.json"), "utf8")) as SchemaNode & { properties: Record<string, SchemaNode>; $defs: Record<string, SchemaNode> };
    const complete = makeResult({ sequential: { looks: [3, 12, 21, 30], alpha: 0.0008, stopped: "decided" } });
    const objects: [string[], SchemaNode][] = [[[], schema], ...["run", "environment", "runtime"].map((key): [string[], SchemaNode] => [[key], schema.properties[key]!]), ...Object.keys(complete.metrics).map((name): [string[], SchemaNode] => [["metrics", name], schema.$defs.metric!])];
    const dropped: string[] = [];
    for (const [at, node] of objects) {
      for (const key of Object.keys(node.properties ?? {}).filter((k) => !(node.required ?? []).includes(k))) {
        const doc = structuredClone(complete) as unknown as Record<string, unknown>;
        const holder = at.reduce<Record<string, unknown>>((inner, k) => inner[k] as Record<string, unknown>, doc);
        if (!(key in holder)) continue;
        delete holder[key];
        const field = [...at, key].join("/");
        assert.deepEqual(checkAgainst("result.schema.json", doc), [], `without /${field} the document is still valid`);
        assert.equal(incompleteResult(doc), undefined, `/${field} is optional in the schema`);
        dropped.push(field);
      }
    }
    assert.ok(dropped.length >= 5, `optional fields tried: ${dropped.join(", ")}`);
  });

  it("allows a failed or unsupported result without metrics", () => {
    assert.deepEqual(checkAgainst("result.schema.json", makeResult({ status: "unsupported", error: "needs node >= 22.6.0", metrics: {} })), []);
  });
});

describe("writing results", () => {
  it("lays files out by runner, run, suite and scenario, with app and params in the name", () => {
    const doc = makeResult({ app: "hono", params: { rate: 500, connections: 10 } });
    assert.equal(
      resultPath("/data", doc),
      "/data/bench-x64-1/20261101T000000Z-abcdef/startup/hello/node-22.11.0--hono--connections=10,rate=500.json",
    );
  });

  it("checks the schema before writing and never rewrites a file", async () => {
    const out = tempDir("write");
    const doc = makeResult();
    const path = await writeResult(out, doc);
    assert.deepEqual(readResultFile(path), doc);
    await assert.rejects(writeResult(out, doc), /EEXIST/);
    await assert.rejects(writeResult(out, makeResult({ run: { id: "not-an-id" } })), /breaks the schema: \/run\/id/);
  });
});

describe("reading results", () => {
  it("reads every .json below the folders in name order, skipping hidden entries and other files", () => {
    const data = tempDir("read");
    const put = (path: string, doc: unknown) => {
      mkdirSync(join(data, path, ".."), { recursive: true });
      writeFileSync(join(data, path), typeof doc === "string" ? doc : JSON.stringify(doc));
    };
    put("r/b/x.json", makeResult({ scenario: "second" }));
    put("r/a/y.json", makeResult({ scenario: "first" }));
    put("r/a/notes.txt", "not a result");
    put("r/.tmp/z.json", "{ half written");
    assert.deepEqual(readResults([join(data, "r")]).map((r) => r.doc.scenario), ["first", "second"]);
    assert.deepEqual(readResults([join(data, "r/b/x.json")]).map((r) => r.path), [join(data, "r/b/x.json")]);
  });

  it("names a file that is not JSON", () => {
    const data = tempDir("read-bad");
    writeFileSync(join(data, "broken.json"), "{ nope");
    assert.throws(() => readResults([data]), /broken\.json: not valid JSON/);
  });
});

describe("runner identity", () => {
  it("labels a developer's machine as local, whatever it is called", () => {
    assert.deepEqual(runnerIdentity({ RUNTIME_BENCH_RUNNER: "bench-x64-1" }), { runner: "local-bench-x64-1", runner_kind: "local" });
  });

  it("names a benchmark runner only when its kind is set", () => {
    assert.deepEqual(runnerIdentity({ RUNTIME_BENCH_RUNNER: "bench-x64-1", RUNTIME_BENCH_RUNNER_KIND: "dedicated" }), { runner: "bench-x64-1", runner_kind: "dedicated" });
    assert.throws(() => runnerIdentity({ RUNTIME_BENCH_RUNNER: "local-x", RUNTIME_BENCH_RUNNER_KIND: "dedicated" }), /reserved for local runs/);
    assert.throws(() => runnerIdentity({ RUNTIME_BENCH_RUNNER_KIND: "cloud" }), /must be one of/);
  });
});

describe("the harness commit a run records", () => {
  const clean = (head: string) => ({ head, dirty: false });
  it("is the commit whose code the process loaded, dirty when the tree then or now differs from it", () => {
    assert.equal(recordedCommit(clean("a1"), clean("a1")), "a1");
    assert.equal(recordedCommit(clean("a1"), { head: "a1", dirty: true }), "a1-dirty", "edited since the process began: the run reads apps from the tree");
    assert.equal(recordedCommit({ head: "a1", dirty: true }, clean("a1")), "a1-dirty", "loaded from an edited tree");
  });

  it("is not a commit made while a long command ran: its code is not what runs", () => {
    assert.equal(recordedCommit(clean("a1"), clean("b2")), "a1-dirty");
    assert.equal(recordedCommit(null, clean("b2")), "unknown");
  });
});
