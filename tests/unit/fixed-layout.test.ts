import assert from "node:assert/strict";
import { test } from "node:test";
import { runCommand } from "../../src/process/children.ts";
import { countedLayout } from "../../src/tools/fixed-layout.ts";

// ADDR_NO_RANDOMIZE (0x0040000) in the personality the kernel shows for the process: set for what runs under the prefix, and only there.
const personality = async (argv: readonly string[]) => (await runCommand(argv[0]!, argv.slice(1))).stdout.trim();

test("a counted run's layout is fixed for it alone (setarch -R), where this machine allows it", async () => {
  const layout = await countedLayout();
  if (layout.prefix.length === 0) assert.fail(layout.detail);
  assert.equal(layout.detail, "fixed (setarch -R)");
  assert.equal(parseInt(await personality([...layout.prefix, "cat", "/proc/self/personality"]), 16) & 0x0040000, 0x0040000);
  assert.equal(parseInt(await personality(["cat", "/proc/self/personality"]), 16) & 0x0040000, 0);
});
