import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { onJournalLessExt4, secondsLeft, SETTLE_S, settleSeconds } from "../../src/suites/install/freed-inodes.ts";

const MOUNTINFO = [
  "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard",
  "23 22 0:21 / /proc rw,nosuid shared:2 - proc proc rw",
  "24 22 0:22 / /dev/shm rw,nosuid shared:3 - tmpfs tmpfs rw",
  "25 22 254:16 / /data rw,relatime shared:4 - ext4 /dev/vdb rw",
].join("\n");

describe("install trees on a file system slow to reuse inodes", () => {
  it("knows ext4 without a journal by the mount a path lies on and the journals jbd2 runs", () => {
    assert.equal(onJournalLessExt4("/tmp/runtime-bench-run-x/install", MOUNTINFO, []), true);
    assert.equal(onJournalLessExt4("/tmp/x", MOUNTINFO, ["vda-8"]), false, "a journal on the root's device");
    assert.equal(onJournalLessExt4("/data/x", MOUNTINFO, ["vda-8"]), true, "the deepest mount wins: /data is vdb's, which has no journal");
    assert.equal(onJournalLessExt4("/database/x", MOUNTINFO, ["vda-8"]), false, "/database is not under /data");
    assert.equal(onJournalLessExt4("/dev/shm/x", MOUNTINFO, []), false, "tmpfs reuses inodes at once");
  });

  it("waits out what is left of the window since the last deletion, and not for a stamp it cannot read", () => {
    const at = 1_000_000;
    const stamp = JSON.stringify({ at, files: 46_000 });
    assert.deepEqual(secondsLeft(stamp, at + 10_000, SETTLE_S), { seconds: SETTLE_S - 10, files: 46_000 });
    assert.equal(secondsLeft(stamp, at + SETTLE_S * 1000, SETTLE_S).seconds, 0);
    assert.equal(secondsLeft(stamp, at - 1, SETTLE_S).seconds, 0, "a stamp ahead of the clock is no reason to wait six minutes");
    assert.equal(secondsLeft('{"at": 10', at, SETTLE_S).seconds, 0);
    assert.equal(secondsLeft('{"at": "10", "files": 3}', at, SETTLE_S).seconds, 0);
  });

  it("takes the window from RUNTIME_BENCH_INSTALL_SETTLE in whole seconds, 0 to never wait", () => {
    assert.equal(settleSeconds({}), SETTLE_S);
    assert.equal(settleSeconds({ RUNTIME_BENCH_INSTALL_SETTLE: "0" }), 0);
    assert.throws(() => settleSeconds({ RUNTIME_BENCH_INSTALL_SETTLE: "six minutes" }), (error: unknown) => error instanceof UserError && /RUNTIME_BENCH_INSTALL_SETTLE: 'six minutes'/.test(error.message));
  });
});
