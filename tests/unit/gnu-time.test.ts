import assert from "node:assert/strict";
import { test } from "node:test";
import { gnuTimeVersion } from "../../src/tools/gnu-time.ts";

// Debian's /usr/bin/time prints "time (GNU Time) UNKNOWN": results must still record a version.
test("GNU time's version is a version number, never UNKNOWN", async () => {
  assert.match(await gnuTimeVersion(), /^\d+\.\d+(\.\d+)?$/);
});
