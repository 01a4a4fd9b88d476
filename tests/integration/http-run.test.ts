import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadApps } from "../../src/apps/manifest.ts";
import { readResults } from "../../src/results/store.ts";
import { parseCpuList } from "../../src/tools/cpu-split.ts";
import { PINNED, bench, tempDir } from "../../benchmarks/lib/cli.ts";

describe("http suite on real runtimes", () => {
  it("measures native json on node, bun and deno with oha: verified, pinned, valid results", async () => {
    const out = tempDir("http-json");
    const runtimes = PINNED.flatMap((spec) => ["--runtime", spec]);
    const result = await bench(["run", "--suite", "http", "--scenario", "json", "--app", "native", ...runtimes, "--profile", "quick", "--out", out]);
    assert.equal(result.code, 0, result.stderr);
    const docs = readResults([out]).map((r) => r.doc);
    assert.deepEqual(docs.map((d) => d.runtime.name).sort(), ["bun", "deno", "node"]);
    for (const doc of docs) {
      const where = `native on ${doc.runtime.name}`;
      assert.equal(doc.status, "ok", `${where}: ${doc.error}`);
      assert.equal(doc.app, "native");
      assert.deepEqual(doc.params, { connections: 10, keepalive: true, rate: 1000 });
      assert.equal(doc.metrics.rps!.samples.length, 2, `${where}: one sample per trial`);
      assert.ok(doc.metrics.rps!.median > 100, `${where}: plausible throughput`);
      assert.ok(doc.metrics.latency_p99_ms!.median > 0);
      assert.ok(doc.metrics.latency_p50_ms!.median <= doc.metrics.latency_p999_ms!.median);
      assert.equal(doc.metrics.success_rate!.median, 1);
      assert.ok(doc.metrics.server_peak_rss_mb!.median > 5);
      assert.match(doc.tools.oha!, /^\d+\.\d+/);
      const verification = doc.verification as { status: string; responses: { headers: Record<string, string>; body_bytes: number }[] };
      assert.equal(verification.status, "passed");
      assert.match(verification.responses[0]!.headers["content-type"]!, /^application\/json/);
      assert.equal(verification.responses[0]!.body_bytes, 27, "the same bytes on every runtime: no compression");
      assert.equal((doc.verification as { before?: { status: string } }).before?.status, "passed", "the check before measuring is kept beside the one after");
      assert.equal(doc.details?.accept_encoding, "identity");
      assert.equal(doc.details?.keepalive, true);
      assert.equal(typeof doc.details?.client_bound, "boolean");
      if (doc.environment.cpus >= 2) {
        const split = doc.details?.cpu_split as { server: string; client: string };
        const server = parseCpuList(split.server);
        assert.ok(server.length === 1 || server.length === 2, "a single-process server gets one core (two CPUs with SMT)");
        assert.ok(!parseCpuList(split.client).some((cpu) => server.includes(cpu)), "oha runs on other CPUs");
      }
      assert.match(doc.reproduce, /--app native/);
    }
    const validation = await bench(["validate", out]);
    assert.equal(validation.code, 0, validation.stderr);
  });

  it("an unknown app is one line of bad input", async () => {
    const result = await bench(["run", "--suite", "http", "--app", "nope", "--runtime", "node@22.11.0", "--out", tempDir("http-nope")]);
    assert.equal(result.code, 2);
    const apps = loadApps("http").map((app) => app.name);
    assert.ok(apps.includes("native") && apps.includes("express"), apps.join(", "));
    assert.ok(result.stderr.split("\n").includes(`runtime-bench: unknown app 'nope': the chosen suites have apps ${apps.join(", ")}`), result.stderr);
  });
});
