import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UpstreamGate } from "../../src/suites/install/gate.ts";
import { installCommand, pathsIn, prepareScript, type Manager } from "../../src/suites/install/managers.ts";
import { CANONICAL_REGISTRY, withRegistry } from "../../src/suites/install/registry.ts";
import { readInstalledTree, treeDifference, treeProblem } from "../../src/suites/install/tree.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

function pkg(dir: string, manifest: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest));
}

function project(dependencies: Record<string, string>): string {
  const dir = tempDir("install-tree");
  pkg(dir, { name: "fixture", dependencies });
  return dir;
}

describe("install verification", () => {
  it("accepts a hoisted tree and counts every reachable package once", () => {
    const dir = project({ a: "1.0.0" });
    pkg(join(dir, "node_modules/a"), { name: "a", version: "1.0.0", dependencies: { b: "^2.0.0" }, optionalDependencies: { c: "1.0.0" } });
    pkg(join(dir, "node_modules/b"), { name: "b", version: "2.1.0" });
    pkg(join(dir, "node_modules/a/node_modules/b"), { name: "b", version: "2.1.0" }); // a nested copy of the same version
    const tree = readInstalledTree(dir);
    assert.deepEqual(tree.packages, ["a@1.0.0", "b@2.1.0"]);
    assert.equal(treeProblem(tree), null, "a missing optional dependency is no problem");
  });

  it("follows pnpm's symlinked layout", () => {
    const dir = project({ a: "1.0.0" });
    pkg(join(dir, "node_modules/.pnpm/a@1.0.0/node_modules/a"), { name: "a", version: "1.0.0", dependencies: { b: "2.0.0" } });
    pkg(join(dir, "node_modules/.pnpm/b@2.0.0/node_modules/b"), { name: "b", version: "2.0.0" });
    symlinkSync("../../b@2.0.0/node_modules/b", join(dir, "node_modules/.pnpm/a@1.0.0/node_modules/b"));
    symlinkSync(".pnpm/a@1.0.0/node_modules/a", join(dir, "node_modules/a"));
    const tree = readInstalledTree(dir);
    assert.deepEqual(tree.packages, ["a@1.0.0", "b@2.0.0"]);
    assert.equal(treeProblem(tree), null);
  });

  it("calls a tree with a missing dependency or a wrong top-level version broken", () => {
    const dir = project({ a: "1.0.0", c: "3.0.0" });
    pkg(join(dir, "node_modules/a"), { name: "a", version: "1.0.0", dependencies: { b: "^2.0.0" } });
    pkg(join(dir, "node_modules/c"), { name: "c", version: "3.0.1" });
    const tree = readInstalledTree(dir);
    assert.deepEqual(tree.missing, ["a@1.0.0 > b"]);
    assert.deepEqual(tree.wrongTopLevel, ["c: 3.0.1 installed, wanted 3.0.0"]);
    assert.match(treeProblem(tree)!, /^broken install: c: 3\.0\.1 installed, wanted 3\.0\.0; missing a@1\.0\.0 > b$/);
  });

  it("names the packages two trees do not share", () => {
    const a = { packages: ["x@1.0.0", "y@1.0.0"], wrongTopLevel: [], missing: [] };
    const b = { packages: ["x@1.0.0", "y@1.1.0"], wrongTopLevel: [], missing: [] };
    assert.deepEqual(treeDifference(a, b), { only_here: ["y@1.0.0"], only_there: ["y@1.1.0"] });
  });
});

const manager: Manager = {
  name: "npm",
  dir: "/apps/install/npm",
  manifest: {
    description: "npm for tests",
    runtimes: { node: { entry: "cli.js" } },
    lockfile: "package-lock.json",
    args: ["install", "--ignore-scripts", "--registry={registry}", "--cache={cache}"],
    env: { SOME_SETTING: "{cache}/x" },
    project_state: [".state"],
  },
};

describe("install commands and states", () => {
  it("fills in the registry and cache, isolates HOME, scrubs the harness's manager settings and blocks egress", () => {
    process.env.npm_config_registry = "http://elsewhere.invalid/";
    try {
      const paths = pathsIn("/work/s");
      const command = installCommand(manager, { name: "node", binary: "/bin/node" }, "http://127.0.0.1:5000/", paths, "http://127.0.0.1:6000/");
      assert.deepEqual(command.argv, ["/bin/node", "/apps/install/npm/cli.js", "install", "--ignore-scripts", "--registry=http://127.0.0.1:5000/", "--cache=/work/s/cache"]);
      assert.equal(command.env.npm_config_registry, undefined);
      assert.equal(command.env.HOME, "/work/s/home");
      assert.equal(command.env.SOME_SETTING, "/work/s/cache/x");
      assert.equal(command.env.HTTPS_PROXY, "http://127.0.0.1:6000/");
      assert.equal(command.env.NO_PROXY, "127.0.0.1,localhost,::1");
    } finally {
      delete process.env.npm_config_registry;
    }
  });

  it("keeps the machine's proxy and trust settings when timing against the upstream registry", () => {
    const saved = { HTTPS_PROXY: process.env.HTTPS_PROXY, NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS, NODE_OPTIONS: process.env.NODE_OPTIONS };
    Object.assign(process.env, { HTTPS_PROXY: "http://proxy.invalid:3128", NODE_EXTRA_CA_CERTS: "/etc/ca.pem", NODE_OPTIONS: "--inspect" });
    try {
      const command = installCommand(manager, { name: "node", binary: "/bin/node" }, "https://upstream.invalid/", pathsIn("/w"), null);
      assert.equal(command.env.HTTPS_PROXY, "http://proxy.invalid:3128");
      assert.equal(command.env.NODE_EXTRA_CA_CERTS, "/etc/ca.pem");
      assert.equal(command.env.NODE_OPTIONS, undefined);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("prepares each state: what is set aside, what is copied in, and nothing at all for repeat", () => {
    const paths = pathsIn("/w");
    const fixture = { packageJson: "/f/package.json", lockfile: "/f/package-lock.json", warmCache: "/f/warm" };
    const clean = prepareScript("clean", manager, paths, fixture);
    // HOME too: Bun 1.1 kept its cache there whatever folder it was given.
    assert.match(clean, /for p in \/w\/project\/node_modules \/w\/project\/package-lock.json \/w\/project\/.state \/w\/cache \/w\/home;/);
    assert.doesNotMatch(clean, /rm /, "a tree deleted before each trial slows the next trials' installs");
    assert.doesNotMatch(clean, /cp \/f\/package-lock.json|\/f\/warm/);
    assert.match(prepareScript("lockfile", manager, paths, fixture), /cp \/f\/package-lock.json \/w\/project\/package-lock.json/);
    assert.doesNotMatch(prepareScript("lockfile", manager, paths, fixture), /\/f\/warm/);
    assert.match(prepareScript("cache", manager, paths, fixture), /cp -a \/f\/warm \/w\/cache/);
    assert.equal(prepareScript("repeat", manager, paths, fixture), "set -e\nsync");
  });

  it("sets the last install's folders aside whole, one folder per preparation, and leaves the state asked for", () => {
    const fixtures = tempDir("install-fixture");
    const fixture = { packageJson: join(fixtures, "package.json"), lockfile: join(fixtures, "package-lock.json"), warmCache: join(fixtures, "warm") };
    writeFileSync(fixture.packageJson, "{}");
    writeFileSync(fixture.lockfile, "{}");
    mkdirSync(fixture.warmCache);
    writeFileSync(join(fixture.warmCache, "entry"), "cached");
    const paths = pathsIn(tempDir("install-state"));
    const prepareIn = (state: "clean" | "cache+lockfile") => execFileSync("/bin/sh", ["-c", prepareScript(state, manager, paths, fixture)]);
    prepareIn("cache+lockfile");
    assert.equal(readFileSync(join(paths.cache, "entry"), "utf8"), "cached");
    mkdirSync(join(paths.project, "node_modules/a"), { recursive: true });
    writeFileSync(join(paths.project, "node_modules/a/index.js"), "installed");
    symlinkSync("nowhere", join(paths.project, ".state"));
    prepareIn("clean");
    assert.deepEqual(readdirSync(paths.cache), []);
    assert.ok(!existsSync(join(paths.project, "node_modules")) && !existsSync(join(paths.project, "package-lock.json")));
    assert.throws(() => lstatSync(join(paths.project, ".state")), "a dangling link goes too");
    prepareIn("clean");
    const setAside = readdirSync(paths.removed).map((name) => readdirSync(join(paths.removed, name)).sort());
    assert.equal(setAside.length, 3);
    assert.ok(setAside.some((names) => names.length === 5), "node_modules, lockfile, .state, cache and home of the cache+lockfile install");
    const found = readdirSync(paths.removed).flatMap((name) => readdirSync(join(paths.removed, name)).map((entry) => join(paths.removed, name, entry, "a/index.js")));
    assert.equal(found.filter((file) => existsSync(file)).length, 1);
  });

  it("moves lockfiles between the committed registry address and the run's", () => {
    const committed = `"a": ["a@1.0.0", "${CANONICAL_REGISTRY}a/-/a-1.0.0.tgz"]`;
    const staged = withRegistry(committed, CANONICAL_REGISTRY, "http://127.0.0.1:39999/");
    assert.equal(staged, `"a": ["a@1.0.0", "http://127.0.0.1:39999/a/-/a-1.0.0.tgz"]`);
    assert.equal(withRegistry(staged, "http://127.0.0.1:39999/", CANONICAL_REGISTRY), committed);
  });
});

function get(url: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    request({ host: hostname, port, path, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    })
      .once("error", reject)
      .end();
  });
}

describe("the upstream gate", () => {
  it("refuses and counts every request while closed, and proxy requests always", async () => {
    const gate = await UpstreamGate.start("http://127.0.0.1:9/");
    try {
      assert.equal(await get(gate.url, "http://somewhere.invalid/x"), 503, "a proxy request is refused while open");
      gate.setOpen(false);
      assert.equal(await get(gate.url, "/debug"), 503);
      assert.equal(gate.refused, 2);
      assert.equal(gate.forwarded, 0);
      gate.setOpen(true);
      assert.equal(await get(gate.url, "/debug"), 502, "forwarded while open: the upstream here is unreachable");
      assert.equal(gate.forwarded, 1);
    } finally {
      await gate.close();
    }
  });
});
