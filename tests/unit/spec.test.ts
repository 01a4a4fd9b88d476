import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { parseSpec, pickVersion } from "../../src/runtimes/spec.ts";

const published = ["20.18.0", "22.10.0", "22.11.0", "22.12.0-rc.1", "23.0.0", "23.1.0"];

describe("parseSpec", () => {
  it("reads the four forms", () => {
    assert.deepEqual(parseSpec("node@22.11.0").request, { kind: "exact", version: "22.11.0" });
    assert.deepEqual(parseSpec("node@22").request, { kind: "line", prefix: "22" });
    assert.deepEqual(parseSpec("deno@2.1").request, { kind: "line", prefix: "2.1" });
    assert.deepEqual(parseSpec("bun@latest").request, { kind: "latest" });
    assert.deepEqual(parseSpec("bun").request, { kind: "latest" });
    assert.deepEqual(parseSpec("deno@path:/opt/deno/bin/deno").request, { kind: "path", path: "/opt/deno/bin/deno" });
    assert.equal(parseSpec("node@v22.11.0").request.kind, "exact");
  });

  it("rejects an unknown runtime, naming the known ones", () => {
    assert.throws(() => parseSpec("python@3.12"), (e: Error) => e instanceof UserError && /unknown runtime 'python'.*node, deno, bun/.test(e.message));
  });

  it("rejects a relative path and an unreadable version", () => {
    assert.throws(() => parseSpec("node@path:bin/node"), /must be absolute/);
    assert.throws(() => parseSpec("node@22.x.y"), /cannot read the version/);
  });
});

describe("pickVersion", () => {
  it("keeps an exact version that exists", () => {
    assert.equal(pickVersion(parseSpec("node@22.11.0"), published), "22.11.0");
  });

  it("takes the newest stable release of a line, never a prerelease", () => {
    assert.equal(pickVersion(parseSpec("node@22"), published), "22.11.0");
    assert.equal(pickVersion(parseSpec("node@23.0"), published), "23.0.0");
    assert.equal(pickVersion(parseSpec("node@latest"), published), "23.1.0");
  });

  it("names the newest release when the version does not exist", () => {
    assert.throws(() => pickVersion(parseSpec("node@99.0.0"), published), (e: Error) => e instanceof UserError && /99\.0\.0 does not exist.*newest node is 23\.1\.0/.test(e.message));
    assert.throws(() => pickVersion(parseSpec("node@21"), published), /21\.x does not exist.*23\.1\.0/);
  });
});
