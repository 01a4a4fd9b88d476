import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT, cacheDir } from "../../src/core/paths.ts";
import { readResults } from "../../src/results/store.ts";
import { bench, startBench, tempDir } from "../../benchmarks/lib/cli.ts";

const FIXTURE_SUITES = join(REPO_ROOT, "tests/fixtures/suites");
const FIXTURE_APPS = join(REPO_ROOT, "tests/fixtures/apps");
const RUNTIMES = ["--runtime", "node@22.11.0", "--runtime", "bun@1.2.0", "--runtime", "deno@2.1.4"];

/** Running verdaccios of the tiny scenario: verdaccio renames its process, so they are found by their folder. */
function registriesLeft(): string[] {
  return readdirSync("/proc")
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("verdaccio") && readlinkSync(`/proc/${pid}/cwd`).includes("/install/registry/tiny");
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    });
}

describe("install suite on real managers", () => {
  it("times every manager from the local registry with the upstream unreachable, touches no cache in HOME, and leaves no registry behind", async () => {
    const env = { RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES };
    // Setup installs the pinned npm, pnpm and Yarn (on a fresh clone, from the configured registry,
    // which the isolated run below cannot reach); the first run primes the cached registry storage (a no-op when it is already there).
    const setup = await bench(["setup", "--suite", "install", "--runtime", "node@22.11.0"], env);
    assert.equal(setup.code, 0, setup.stderr);
    const priming = await bench(["run", "--suite", "install", "--scenario", "tiny", "--app", "npm", "--runtime", "node@22.11.0", "--out", tempDir("install-prime")], env);
    assert.equal(priming.code, 0, priming.stderr);
    const out = tempDir("install-offline");
    // A HOME of its own shows where the managers write: never into the user's caches. (The harness's
    // own `deno eval` probe of the runtime leaves Deno's analysis cache there; its npm cache stays empty.)
    const home = tempDir("install-home");
    const isolated = {
      ...env,
      npm_config_registry: "http://127.0.0.1:9/",
      HOME: home,
      RUNTIME_BENCH_CACHE: cacheDir(),
      RUNTIME_BENCH_TOOLS: process.env.RUNTIME_BENCH_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "runtime-bench/tools"),
    };
    const result = await bench(["run", "--suite", "install", "--scenario", "tiny", ...RUNTIMES, "--out", out], isolated);
    assert.equal(result.code, 0, result.stderr);
    const docs = readResults([out]).map((r) => r.doc);
    assert.equal(docs.length, 10, "5 managers × 2 states");
    for (const doc of docs) {
      const where = `${doc.app} ${String(doc.params.state)}`;
      assert.equal(doc.status, "ok", `${where}: ${doc.error}`);
      assert.equal(doc.params.registry, "local");
      const details = doc.details as Record<string, unknown>;
      assert.equal(details.requests_beyond_loopback, 0, where);
      assert.equal(details.packages, 2, `${where}: debug and ms`);
      assert.match(String(details.command), /127\.0\.0\.1/);
      assert.deepEqual(details.tree_differences, {}, where);
      assert.ok(doc.metrics.wall_ms!.median > 0 && doc.metrics.peak_rss_mb!.median > 5, where);
      assert.match(doc.tools.verdaccio!, /^\d+\.\d+\.\d+$/);
    }
    assert.match(String(docs.find((d) => d.app === "npm")!.details!.command), /--ignore-scripts/);
    assert.deepEqual(registriesLeft(), []);
    for (const cache of [".npm/_cacache", ".bun", ".cache/deno/npm", ".cache/pnpm", ".local/share/pnpm", ".yarn", ".cache/yarn"]) {
      assert.ok(!existsSync(join(home, cache)), `a manager wrote ${cache} in HOME`);
    }
    assert.equal((await bench(["validate", out], env)).code, 0);
  });

  it("stops the registry on Ctrl-C", async () => {
    const out = tempDir("install-interrupt");
    const running = startBench(["run", "--suite", "install", "--scenario", "tiny", "--app", "npm", "--runtime", "node@22.11.0", "--out", out], {
      RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES,
    });
    await running.waitFor("trial 1/1");
    assert.equal(registriesLeft().length, 1, "the registry runs while trials do");
    running.child.kill("SIGINT");
    assert.equal(await running.exited, 130, running.stderr());
    assert.deepEqual(registriesLeft(), []);
  });

  it("on Ctrl-C while priming the registry, says nothing was measured and blames no cell", async () => {
    const out = tempDir("install-interrupt-priming");
    const running = startBench(["run", "--suite", "install", "--scenario", "tiny", "--app", "npm", "--runtime", "node@22.11.0", "--out", out], {
      RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES,
    });
    await running.waitFor("local registry (storage");
    while (registriesLeft().length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    running.child.kill("SIGINT");
    assert.equal(await running.exited, 130, running.stderr());
    assert.doesNotMatch(running.stderr(), /failed/, "a check the interrupt killed is not a failed cell");
    assert.match(running.stdout(), /interrupted before any cell was measured: no result written to /, running.stderr());
    assert.deepEqual(readResults([out]), []);
    assert.deepEqual(registriesLeft(), []);
  });

  it("records an install that exits 0 but leaves a dependency missing as failed", async () => {
    const out = tempDir("install-broken");
    const env = { RUNTIME_BENCH_SUITES_DIR: FIXTURE_SUITES, RUNTIME_BENCH_APPS_DIR: FIXTURE_APPS };
    const result = await bench(["run", "--suite", "install", "--scenario", "tiny", "--runtime", "node@22.11.0", "--out", out], env);
    assert.equal(result.code, 1, "a failed result makes the run exit 1");
    const docs = readResults([out]).map((r) => r.doc);
    assert.equal(docs.length, 2);
    for (const doc of docs) {
      assert.equal(doc.app, "broken");
      assert.equal(doc.status, "failed");
      assert.match(doc.error!, /install exited 0 but left a broken install: missing debug@4\.4\.3 > ms/);
    }
    assert.equal((await bench(["validate", out], env)).code, 0);
  });
});
