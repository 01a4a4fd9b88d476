import assert from "node:assert/strict";
import { mkdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { smallFileName } from "../../apps/fileio/shared/content.js";
import { treePlan, writeLargeFile, writeSmallFiles } from "../../apps/fileio/shared/data.js";
import { bytesNeeded, checkLargeFile, checkSmallFiles, largeFileDigest, smallFilesDigest, treeDigest } from "../../src/suites/fileio/data.ts";
import { dropCachesRefusal, filesystemOf } from "../../src/suites/fileio/filesystem.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

const scratch = tempDir("fileio");
after(() => rmSync(scratch, { recursive: true, force: true }));

test("the filesystem of a path is its deepest mount, with the mount's and the filesystem's options", () => {
  const mountinfo = [
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro",
    `30 22 0:25 / ${scratch} rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=1024k`,
    "31 22 0:26 / /mnt/with\\040space rw - xfs /dev/sdb rw",
  ].join("\n");
  const inside = filesystemOf(scratch, mountinfo);
  assert.deepEqual(inside, { mount_point: scratch, type: "tmpfs", source: "tmpfs", mount_options: "rw,nosuid,nodev", super_options: "rw,size=1024k", tmpfs: true });
  const root = filesystemOf("/", mountinfo);
  assert.equal(root.type, "ext4");
  assert.equal(root.tmpfs, false);
  assert.equal(root.super_options, "rw,errors=remount-ro");
});

test("cold cache is refused with the reason where drop_caches cannot be written", () => {
  const readOnly = join(scratch, "drop_caches");
  writeFileSync(readOnly, "", { mode: 0o444 });
  const refusal = process.getuid?.() === 0 ? dropCachesRefusal(join(scratch, "missing", "drop_caches")) : dropCachesRefusal(readOnly);
  assert.match(refusal ?? "", /^cold cache needs write access to .*drop_caches.*\((ENOENT|EACCES)/);
});

test("the tree is shaped like node_modules, about 17 entries a package, and its digest names every entry", () => {
  const plan = treePlan(1200);
  assert.ok(plan.length > 19_000 && plan.length < 21_000, `${plan.length} entries`);
  assert.ok(plan.some((entry) => entry.path === "@scope-0/pkg-0/node_modules/dep-1/package.json"));
  assert.equal(new Set(plan.map((entry) => entry.path)).size, plan.length, "no entry twice");
  const changed = plan.map((entry, i) => (i === 5 ? { ...entry, size: (entry.size ?? 0) + 1 } : entry));
  assert.notEqual(treeDigest(changed), treeDigest(plan));
  assert.equal(treeDigest([...plan].reverse()), treeDigest(plan), "the order a walk finds entries in does not matter");
});

test("written small files are checked for count, size and sampled content", async () => {
  const shape = { files: 40, file_bytes: 1024, large_bytes: 0, tree_packages: 0 };
  const dir = join(scratch, "small");
  await writeSmallFiles(dir, shape);
  assert.equal(await checkSmallFiles(dir, shape), null);
  assert.notEqual(smallFilesDigest(shape), smallFilesDigest({ ...shape, files: 39 }));

  const handle = await open(join(dir, smallFileName(39)), "r+");
  await handle.write(new Uint8Array([1, 2, 3]), 0, 3, 100);
  await handle.close();
  assert.match((await checkSmallFiles(dir, shape)) ?? "", /file-39\.bin: the bytes at offset 0 differ/);
  truncateSync(join(dir, smallFileName(7)), 1000);
  assert.match((await checkSmallFiles(dir, shape)) ?? "", /file-7\.bin: 1000 bytes, expected 1024 bytes/);
  rmSync(join(dir, smallFileName(3)));
  assert.match((await checkSmallFiles(dir, shape)) ?? "", /39 files after the trial, expected 40/);
});

test("after a wrong digest every written file is read back, so the one that differs is named even where the sample missed it", async () => {
  const shape = { files: 40, file_bytes: 1024, large_bytes: 0, tree_packages: 0 };
  const dir = join(scratch, "small-every");
  await writeSmallFiles(dir, shape);
  // With 40 files the sample reads every other one: file 1 is not among them.
  const handle = await open(join(dir, smallFileName(1)), "r+");
  await handle.write(new Uint8Array([1, 2, 3]), 0, 3, 100);
  await handle.close();
  assert.equal(await checkSmallFiles(dir, shape), null);
  assert.match((await checkSmallFiles(dir, shape, "every")) ?? "", /^file-1\.bin: the bytes at offset 0 differ/);
});

test("a written large file is checked for size and sampled chunks", async () => {
  const bytes = 3 * 1024 * 1024 + 100;
  const path = join(scratch, "large", "large.bin");
  mkdirSync(join(scratch, "large"));
  await writeLargeFile(path, bytes);
  assert.equal(await checkLargeFile(path, bytes), null);
  assert.notEqual(largeFileDigest(bytes), largeFileDigest(bytes - 1));
  const handle = await open(path, "r+");
  await handle.write(new Uint8Array(16), 0, 16, bytes - 50);
  await handle.close();
  assert.match((await checkLargeFile(path, bytes)) ?? "", /the bytes at offset \d+ differ/);
  assert.match((await checkLargeFile(path, bytes + 1)) ?? "", /bytes, expected/);
  assert.match((await checkLargeFile(join(scratch, "nothing"), bytes)) ?? "", /missing after the trial/);
});

test("the space a scenario needs counts whole blocks per small file and both files of a copy", () => {
  const shape = { files: 10_000, file_bytes: 1024, large_bytes: 256 * 1024 * 1024, tree_packages: 10 };
  assert.equal(bytesNeeded("read-many", shape, 4096), 10_000 * 4096);
  assert.equal(bytesNeeded("copy-large", shape, 4096), 2 * 256 * 1024 * 1024);
  assert.ok(bytesNeeded("walk-tree", shape, 4096) >= treePlan(10).length * 4096);
});
