import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadApps } from "../../src/apps/manifest.ts";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { runProcess } from "../../benchmarks/lib/cli.ts";
import { broadcastProblem } from "../../src/suites/websocket/verify.ts";
import { wsclientArgs } from "../../src/suites/websocket/wsclient.ts";

const CLEAN = { expected: 1000, delivered_once: 1000, duplicated: 0, missing: 0, corrupted: 0, to_sender: 0, receivers_not_joined: 0 };

describe("websocket suite", () => {
  it("runs the load client's own go tests (echo, corruption, close handshake, broadcast exactly once)", async () => {
    const result = await runProcess("go", ["test", "-count=1", "./..."], { cwd: join(REPO_ROOT, "src/suites/websocket/client") });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^ok\s+runtime-bench\/wsclient/m);
  });

  it("says what a broadcast check found, and nothing when every receiver got every message once", () => {
    assert.equal(broadcastProblem(CLEAN), null);
    assert.equal(broadcastProblem({ ...CLEAN, duplicated: 20 }), "broadcast: 20 duplicated (of 1000 expected)");
    assert.equal(
      broadcastProblem({ ...CLEAN, delivered_once: 900, missing: 100, to_sender: 3 }),
      "broadcast: 100 deliveries missing, 3 sent back to the sender (of 1000 expected)",
    );
    assert.equal(broadcastProblem({ ...CLEAN, delivered_once: 999 }), "broadcast: 999 of 1000 delivered once (of 1000 expected)");
  });

  it("gives wsclient the same load flags for every runtime", () => {
    assert.deepEqual(wsclientArgs({ mode: "echo", url: "ws://127.0.0.1:1/echo", connections: 50, size: 65536, binary: true, warmupS: 0, durationS: 1.5 }), [
      "echo", "-url", "ws://127.0.0.1:1/echo", "-size", "65536", "-warmup", "0ms", "-duration", "1500ms", "-binary", "-connections", "50",
    ]);
    assert.deepEqual(wsclientArgs({ mode: "broadcast", url: "ws://h/broadcast", receivers: 10, window: 4, size: 32, binary: false, warmupS: 0.5, durationS: 2 }), [
      "broadcast", "-url", "ws://h/broadcast", "-size", "32", "-warmup", "500ms", "-duration", "2000ms", "-receivers", "10", "-window", "4",
    ]);
  });

  it("has native and ws apps on all three runtimes, each saying which server it is", () => {
    const apps = loadApps<{ servers: Record<string, string> }>("websocket", join(REPO_ROOT, "apps/websocket"));
    assert.deepEqual(apps.map((app) => app.name), ["native", "ws"]);
    for (const app of apps) {
      assert.deepEqual(Object.keys(app.manifest.runtimes).sort(), ["bun", "deno", "node"]);
      assert.deepEqual(Object.keys(app.manifest.servers).sort(), ["bun", "deno", "node"]);
    }
  });
});
