import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { ResultDocument } from "../../src/results/types.ts";
import { writeResult } from "../../src/results/store.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

const around = (value: number) => [value * 0.98, value * 1.01, value, value * 1.02, value * 0.99, value * 1.005];

function file(dir: string, name: string, doc: ResultDocument): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

describe("findings, repro and profile on the command line", () => {
  it("findings lists a runtime far off the others, largest first, as a table and as JSON", async () => {
    const data = tempDir("findings-cli");
    const compute = (name: "node" | "bun", rps: number) =>
      makeResult({ runtime: { name }, suite: "http", scenario: "compute", app: "native", params: { connections: 10 }, metrics: { rps: metricOf(around(rps), "req/s", "higher") } });
    for (const doc of [compute("node", 2500), compute("bun", 500)]) await writeResult(data, doc);
    const table = await bench(["findings", data]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^outlier\s+http\/compute native connections=10\s+rps \(higher\)\s+5\.0× slower\s+bun@22\.11\.0 501\.3 req\/s; node@22\.11\.0 2506 req\/s/m);
    const json = await bench(["findings", data, "--json"]);
    assert.deepEqual((JSON.parse(json.stdout) as { runtime: string }[]).map((f) => f.runtime), ["bun"]);
    const none = await bench(["findings", data, "--outlier-factor", "6"]);
    assert.equal(none.stdout, "no findings\n");
  });

  it("bad input is one line naming it", async () => {
    const dir = tempDir("repro-bad");
    const bad = await bench(["findings", dir, "--outlier-factor", "0.5"]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.trim(), "runtime-bench: findings: --outlier-factor '0.5' is not a factor above 1 (e.g. 3)");

    const websocket = file(dir, "websocket", makeResult({ suite: "websocket", scenario: "echo", app: "native", params: { connections: 10 } }));
    const noRepro = await bench(["repro", websocket, "--out", join(dir, "out")]);
    assert.equal(noRepro.code, 2);
    assert.equal(noRepro.stderr.trim(), "runtime-bench: repro: the websocket suite has no standalone reproduction yet");

    const workers = (params: ResultDocument["params"], status: ResultDocument["status"] = "ok") =>
      makeResult({ suite: "workers", scenario: "throughput", app: "worker-threads", params, status, ...(status === "ok" ? {} : { error: "crashed" }) });
    const mixed = await bench(["repro", file(dir, "a", workers({ size: 1024 })), file(dir, "b", workers({ size: 65536 }))]);
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /^runtime-bench: repro: the results are of different cells \(workers\/throughput worker-threads size=1024 and workers\/throughput worker-threads size=65536\); give one cell's results\n$/);
    const failed = await bench(["repro", file(dir, "c", workers({ size: 1024 }, "failed"))]);
    assert.equal(failed.stderr.trim(), "runtime-bench: repro: the node@22.11.0 result of workers/throughput worker-threads size=1024 is failed, not a measurement");
  });
});
