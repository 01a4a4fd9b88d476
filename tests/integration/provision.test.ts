import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { RUNTIMES, machineArch } from "../../src/runtimes/catalog.ts";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";

/**
 * A registry on loopback that serves one package, so integrity failures, races and missing
 * networks can be produced on purpose. Its "node" is a script that answers the identity probe.
 */
const nodePackage = RUNTIMES.node.packageName(machineArch());

/** `mode`: the binary's mode in the tarball; some published packages (Deno's 2.7.3) lack the executable bit. */
function fakeTarball(mode = 0o755): Buffer {
  const root = tempDir("tarball");
  mkdirSync(join(root, "package/bin"), { recursive: true });
  const binary = join(root, "package/bin/node");
  writeFileSync(binary, `#!/bin/sh\necho '{"version":"22.11.0","engine":"V8 fake"}'\n`);
  chmodSync(binary, mode);
  execFileSync("tar", ["-czf", join(root, "package.tgz"), "-C", root, "package"]);
  return readFileSync(join(root, "package.tgz"));
}

interface FakeRegistry {
  url: string;
  tarballRequests: number;
  close(): Promise<void>;
}

function startRegistry(integrityOf: (tarball: Buffer) => string, tarballDelayMs = 0, mode?: number): Promise<FakeRegistry> {
  const tarball = fakeTarball(mode);
  const state = { tarballRequests: 0 };
  const server: Server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === `/${nodePackage.replace("/", "%2f")}`) {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ versions: { "22.11.0": { dist: { tarball: `${base}/node.tgz`, integrity: integrityOf(tarball) } } } }));
    } else if (request.url === "/node.tgz") {
      state.tarballRequests += 1;
      setTimeout(() => response.end(tarball), tarballDelayMs);
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        get tarballRequests() {
          return state.tarballRequests;
        },
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

const sha512 = (data: Buffer) => `sha512-${createHash("sha512").update(data).digest("base64")}`;
const emptySuites = tempDir("no-suites");

function isolated(registry: string, cache = tempDir("cache")) {
  return { env: { RUNTIME_BENCH_REGISTRY: registry, RUNTIME_BENCH_CACHE: cache, RUNTIME_BENCH_SUITES_DIR: emptySuites }, cache };
}

/** Progress notes may come first; the error itself is the one `runtime-bench:` line, and no stack. */
function assertOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split("\n").filter((line) => line.startsWith("runtime-bench:"));
  assert.equal(lines.length, 1, `one line of error, got:\n${stderr}`);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
}

describe("provisioning from a registry", () => {
  let good: FakeRegistry;
  let corrupt: FakeRegistry;
  let unexecutable: FakeRegistry;
  before(async () => {
    good = await startRegistry(sha512, 500);
    corrupt = await startRegistry(() => sha512(Buffer.from("something else")));
    unexecutable = await startRegistry(sha512, 0, 0o644);
  });
  after(async () => {
    await good.close();
    await corrupt.close();
    await unexecutable.close();
  });

  it("makes a package's binary executable where the package left the bit off, and downloads it once", async () => {
    const { env, cache } = isolated(unexecutable.url);
    const first = await bench(["setup", "--runtime", "node@22.11.0"], env);
    assert.equal(first.code, 0, first.stderr);
    const binary = join(cache, "runtimes", nodePackage.replace("/", "__"), "22.11.0", "bin/node");
    assert.match(execFileSync(binary, { encoding: "utf8" }), /"version":"22.11.0"/);
    const second = await bench(["setup", "--runtime", "node@22.11.0"], env);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(unexecutable.tarballRequests, 1);
  });

  it("downloads, verifies, unpacks and then reuses the cache", async () => {
    const { env, cache } = isolated(good.url);
    const first = await bench(["setup", "--runtime", "node@22.11.0"], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /node 22\.11\.0 \(V8 fake\) from registry/);
    assert.ok(existsSync(join(cache, "runtimes", nodePackage.replace("/", "__"), "22.11.0", "bin/node")));
    const requestsBefore = good.tarballRequests;
    const second = await bench(["setup", "--runtime", "node@22.11.0"], env);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(good.tarballRequests, requestsBefore, "an exact cached version is not downloaded again");
  });

  it("lets two runs provision the same version at once without corrupting the cache", async () => {
    const { env, cache } = isolated(good.url);
    const [a, b] = await Promise.all([bench(["setup", "--runtime", "node@22"], env), bench(["setup", "--runtime", "node@22"], env)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const runtimes = join(cache, "runtimes");
    assert.deepEqual(readdirSync(runtimes).filter((e) => e.startsWith(".staging")), [], "no staging folder left");
    const binary = join(runtimes, nodePackage.replace("/", "__"), "22.11.0", "bin/node");
    assert.match(execFileSync(binary, { encoding: "utf8" }), /"version":"22.11.0"/);
  });

  it("refuses a tarball that fails its integrity check and caches nothing", async () => {
    const { env, cache } = isolated(corrupt.url);
    const result = await bench(["setup", "--runtime", "node@22.11.0"], env);
    assert.equal(result.code, 2);
    assertOneLineError(result.stderr, /failed its integrity check.*nothing was cached/);
    assert.deepEqual(readdirSync(join(cache, "runtimes")).filter((e) => e !== ".gitkeep"), []);
  });

  it("says so in one line when the registry cannot be reached", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const result = await bench(["setup", "--runtime", "node@22.11.0"], isolated(`http://127.0.0.1:${closedPort}/`).env);
    assert.equal(result.code, 2);
    assertOneLineError(result.stderr, /cannot reach the package registry \(http:\/\/127\.0\.0\.1:\d+\/.*\): ECONNREFUSED/);
  });
});

describe("bad input", () => {
  it("an unknown runtime", async () => {
    const result = await bench(["run", "--suite", "startup", "--runtime", "python@3.12"]);
    assert.equal(result.code, 2);
    assertOneLineError(result.stderr, /unknown runtime 'python'/);
  });

  it("a version that does not exist names the newest", async () => {
    const result = await bench(["run", "--suite", "startup", "--runtime", "node@99.0.0"]);
    assert.equal(result.code, 2);
    assertOneLineError(result.stderr, /node 99\.0\.0 does not exist in the registry; the newest node is \d+\.\d+\.\d+/);
  });

  it("a path that is not executable", async () => {
    const file = join(tempDir("notexec"), "node");
    writeFileSync(file, "not a program");
    const result = await bench(["run", "--suite", "startup", "--runtime", `node@path:${file}`]);
    assert.equal(result.code, 2);
    assertOneLineError(result.stderr, /is not an executable file/);
  });

  it("an unknown option or command", async () => {
    const option = await bench(["run", "--profle", "quick"]);
    assert.equal(option.code, 2);
    assertOneLineError(option.stderr, /run: Unknown option '--profle'/);
    const command = await bench(["rnu"]);
    assert.equal(command.code, 2);
    assertOneLineError(command.stderr, /unknown command 'rnu'/);
  });
});
