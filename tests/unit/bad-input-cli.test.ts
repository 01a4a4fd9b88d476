import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { bench } from "../../benchmarks/lib/cli.ts";
import { ownTempDir } from "../helpers/temp.ts";

/** Runs each case and checks that it says its problem in one line, with exit status 2. */
async function rejects(cases: readonly (readonly [readonly string[], RegExp])[]): Promise<void> {
  for (const [args, message] of cases) {
    const result = await bench(args);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stderr.trim().split("\n").length, 1, `${args.join(" ")}: one line, not ${result.stderr}`);
    assert.match(result.stderr.trim(), message, args.join(" "));
  }
}

describe("bad input on the command line: one line naming what and where, exit status 2", () => {
  it("a file named by an option that does not exist", async () => {
    const missing = join(ownTempDir("bad-input"), "missing.json");
    await rejects([
      [["collect", ownTempDir("artifacts"), "--runners", missing], /missing\.json: no such file$/],
      [["collect", ownTempDir("artifacts"), "--plan", missing], /missing\.json: no such file$/],
      [["sweep", "--plan", "--runners", missing], /missing\.json: no such file$/],
    ]);
  });
});
