/**
 * The file walks of src/tools/sizes.ts on a folder made here: regular files only, symlinks not
 * followed, nested folders walked, and a file written after a moment counted once however many
 * hard links it has, in every folder given.
 */
import assert from "node:assert/strict";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { filesChangedSince, fileSystemNow, folderSize } from "../../src/tools/sizes.ts";

/** A folder of 30,000 bytes in two files (one nested) and a symlink to a folder of 1 MB outside it. */
function tree(): { dir: string; outside: string } {
  const dir = tempDir("sizes");
  const outside = tempDir("sizes-outside");
  writeFileSync(join(outside, "big"), Buffer.alloc(1_000_000));
  writeFileSync(join(dir, "a"), Buffer.alloc(10_000));
  mkdirSync(join(dir, "nested", "deeper"), { recursive: true });
  writeFileSync(join(dir, "nested", "deeper", "b"), Buffer.alloc(20_000));
  symlinkSync(outside, join(dir, "link"));
  return { dir, outside };
}

describe("sizes", () => {
  it("adds up the regular files under a folder, nested ones included and symlinks not followed", () => {
    const { dir } = tree();
    assert.deepEqual(folderSize(dir), { mb: 0.03, files: 2 });
    assert.deepEqual(folderSize(join(dir, "missing")), { mb: 0, files: 0 });
  });

  it("counts the files written after a moment once, however many hard links they have", async () => {
    const { dir, outside } = tree();
    const since = await fileSystemNow(dir);
    assert.equal(filesChangedSince([dir, outside], since), 0);
    writeFileSync(join(dir, "nested", "new"), "x");
    linkSync(join(dir, "nested", "new"), join(outside, "new-link"));
    writeFileSync(join(dir, "a"), "changed");
    writeFileSync(join(outside, "other"), "y");
    assert.equal(filesChangedSince([dir, outside], since), 3);
    assert.equal(filesChangedSince([dir], since), 2, "the symlink to the other folder is not followed");
  });
});
