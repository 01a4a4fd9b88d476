import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { UserError } from "../../src/core/errors.ts";
import { chainedTrends } from "../../src/regressions/chains.ts";
import { CHAINS_JSON_FILE } from "../../src/regressions/feed-files.ts";
import { writeChainFiles } from "../../src/site/chains.ts";
import { PICTURE_FILE, historyPicture } from "../../src/site/picture.ts";
import { DEFAULT_DATA_DIR, REPO_ROOT } from "../../src/core/paths.ts";
import { readIndexedDocuments } from "../../src/results/run-index.ts";
import { README_PICTURE } from "../../benchmarks/lib/measurements.ts";
import { CHAIN_INDEX_PATH, chainPath, type ChainData } from "../../src/site/model.ts";
import { linkRun, TESTBED_AMD } from "../helpers/links.ts";

describe("the site's chain files", () => {
  it("writes one file per runner and series, listed in the index, with each runtime's chains of each metric", async () => {
    const docs = ["22.1.0", "22.2.0"].flatMap((to, i) => linkRun({ machine: TESTBED_AMD, index: i + 1, from: `22.${i}.0`, to, level: () => 100 }));
    const feedDir = tempDir("site-chains-feed");
    writeFileSync(join(feedDir, CHAINS_JSON_FILE), JSON.stringify(chainedTrends(docs)));
    const outDir = tempDir("site-chains-out");
    assert.equal(await writeChainFiles(feedDir, outDir), 3);
    assert.match(readFileSync(join(outDir, PICTURE_FILE), "utf8"), /^<svg [^]*node 22\.0\.0 → 22\.2\.0[^]*<\/svg>$/, "the picture, of the node chain");
    const path = chainPath(TESTBED_AMD.runner, { suite: "startup", scenario: "hello", app: null, params: "" });
    assert.deepEqual(JSON.parse(readFileSync(join(outDir, CHAIN_INDEX_PATH), "utf8")), { files: [path] });
    const data = JSON.parse(readFileSync(join(outDir, path), "utf8")) as ChainData;
    assert.deepEqual(data.runtimes.node!.wall_ms!.map((chain) => chain.map((p) => p.version)), [["22.0.0", "22.1.0", "22.2.0"]]);
  });

  it("writes an empty index without a feed, and names a chains.json it cannot read", async () => {
    const outDir = tempDir("site-chains-none");
    assert.equal(await writeChainFiles(undefined, outDir), 1);
    assert.deepEqual(JSON.parse(readFileSync(join(outDir, CHAIN_INDEX_PATH), "utf8")), { files: [] });
    const feedDir = tempDir("site-chains-bad");
    mkdirSync(feedDir, { recursive: true });
    writeFileSync(join(feedDir, CHAINS_JSON_FILE), "{ not json");
    await assert.rejects(writeChainFiles(feedDir, outDir), (error: unknown) => error instanceof UserError && error.message.includes(join(feedDir, CHAINS_JSON_FILE)));
    writeFileSync(join(feedDir, CHAINS_JSON_FILE), JSON.stringify({ schema: "something/else", chains: [] }));
    await assert.rejects(writeChainFiles(feedDir, outDir), /not a runtime-bench\/chains\/v2 file/);
    // An edited or forged file: a field the site would draw, with a bidirectional control in it.
    const trends = chainedTrends(["22.1.0"].flatMap((to) => linkRun({ machine: TESTBED_AMD, index: 1, from: "22.0.0", to, level: () => 100 })));
    trends.chains[0]!.points[1]!.link!.machine.cpu_model = "AMD \u202eEPYC";
    writeFileSync(join(feedDir, CHAINS_JSON_FILE), JSON.stringify(trends));
    await assert.rejects(
      writeChainFiles(feedDir, outDir),
      (error: unknown) => error instanceof UserError && /chains\.json: \/chains\/0\/points\/1\/link\/machine\/cpu_model: must be one line with no control character .*, which schemas\/chains\.schema\.json does not allow \(run scripts\/bench regressions --feed-dir again\)$/.test(error.message),
    );
  });

  it("the README opens with the picture the site build draws from data/, as it stands", () => {
    assert.match(readFileSync(join(REPO_ROOT, "README.md"), "utf8"), new RegExp(`^# runtime-bench\n\n!\\[[^\\]]+\\]\\(${README_PICTURE}\\)`));
    const drawn = historyPicture(chainedTrends(readIndexedDocuments(DEFAULT_DATA_DIR)));
    assert.ok(drawn !== null, "data/ holds a chain of startup/hello");
    assert.equal(readFileSync(join(REPO_ROOT, README_PICTURE), "utf8"), `${drawn}\n`, `${README_PICTURE} is not what data/ draws: run scripts/docs`);
  });
});
