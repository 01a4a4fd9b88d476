import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readResults } from "../../src/results/store.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { exportedEntries, zeroValued } from "../helpers/gab.ts";

describe("websocket suite: a quick run", () => {
  it("measures echo on the native app with wsclient and k6, records both clients and the CPU split, and validates", async () => {
    const out = tempDir("websocket-run");
    const result = await bench(["run", "--suite", "websocket", "--scenario", "echo", "--app", "native", "--runtime", "node@22.11.0", "--profile", "quick", "--out", out]);
    assert.equal(result.code, 0, result.stderr);
    const [saved] = readResults([out]);
    const doc = saved!.doc;
    assert.equal(doc.status, "ok", doc.error);
    assert.deepEqual(doc.params, { connections: 50, rate: 1000 });
    assert.match(doc.tools.wsclient!, /^[0-9a-f]{12} \(gorilla\/websocket v\d+\.\d+\.\d+\)$/);
    assert.match(doc.tools.k6!, /^\d+\.\d+\.\d+$/);
    for (const metric of ["messages_per_s", "rtt_p50_ms", "rtt_p99_ms", "rate_rtt_p50_ms", "rate_rtt_p99_ms", "server_peak_rss_mb", "server_cpu_s", "client_cpu_s"]) {
      assert.equal(doc.metrics[metric]?.samples.length, 2, metric);
    }
    assert.deepEqual(doc.metrics.success_rate!.samples, [1, 1]);
    assert.ok(doc.metrics.rtt_p99_ms!.median >= doc.metrics.rtt_p50_ms!.median);
    assert.ok(doc.metrics.server_peak_rss_mb!.median > 10, "the server's own memory, read from /proc");
    assert.equal(doc.verification?.status, "passed");
    const details = doc.details!;
    assert.equal(details.server, "ws package on node:http (Node has no built-in WebSocket server)");
    assert.equal(typeof details.client_bound, "boolean");
    const trial = details.trial_1 as { throughput: { close_answered: number }; fixed_rate: { target_per_s: number; rtt_resolution_ms: number } };
    assert.equal(trial.throughput.close_answered, 50, "every connection's close frame was answered under load too");
    assert.equal(trial.fixed_rate.target_per_s, 1000);
    assert.equal((await bench(["validate", out])).code, 0);
    // k6 reports whole milliseconds: a round trip under one reads 0, recorded with its resolution and never exported.
    assert.equal(doc.metrics.rate_rtt_p50_ms!.resolution, 1);
    const entries = await exportedEntries(out);
    assert.ok(entries.length > 0);
    assert.deepEqual(zeroValued(entries), [], "no exported entry is 0");
  });
});
