import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { allScenarios } from "../../src/cli/site-inputs.ts";
import { findFindings } from "../../src/findings/detect.ts";
import { findingAnchor, groupAnchor } from "../../src/findings/format.ts";
import { groupFindings } from "../../src/findings/group.ts";
import { reproductionArchive } from "../../src/findings/repro/archive.ts";
import { runCommand } from "../../src/process/children.ts";
import { writeResult } from "../../src/results/store.ts";
import { buildSite } from "../../src/site/build.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

const around = (value: number) => [value * 0.98, value * 1.01, value, value * 1.02, value * 0.99, value * 1.005];
const POINT = { payload: "bytes", size: 65536, batch: 64, transfer: false };

/** A synthetic history of workers/throughput on Node: steady, then halved at 22.11.0 (a 2× regression). */
function history(scenarioVersion?: number) {
  const versions: [string, number][] = [
    ["22.8.0", 900],
    ["22.9.0", 910],
    ["22.10.0", 905],
    ["22.11.0", 450],
    ["22.12.0", 455],
  ];
  return versions.map(([version, mbs], i) =>
    makeResult({
      run: { id: `2026110${i}T000000Z-00000${i}`, started_at: `2026-11-0${i + 1}T00:00:00.000Z` },
      runtime: { version, spec: `node@${version}` },
      suite: "workers",
      scenario: "throughput",
      ...(scenarioVersion !== undefined ? { scenario_version: scenarioVersion } : {}),
      app: "worker-threads",
      params: POINT,
      tools: {},
      metrics: { throughput_mb_s: metricOf(around(mbs), "MB/s", "higher"), messages_per_s: metricOf(around(mbs * 15), "msg/s", "higher"), peak_rss_mb: metricOf(around(60), "MB") },
    }),
  );
}

describe("findings on the site", () => {
  let dataDir: string;
  let siteDir: string;
  let anchor: string;
  let row: string;
  before(async () => {
    dataDir = tempDir("findings-data");
    siteDir = tempDir("findings-site");
    const docs = history();
    for (const doc of docs) await writeResult(dataDir, doc);
    const [regression] = findFindings(docs);
    anchor = findingAnchor(regression!);
    row = groupAnchor(groupFindings([regression!])[0]!);
    // What `scripts/bench findings --profile` leaves for a finding: its profiles and their summary.
    const profiles = join(tempDir("findings-profiles"), anchor, "profiles");
    mkdirSync(join(profiles, "node-22.11.0"), { recursive: true });
    writeFileSync(join(profiles, "node-22.11.0", "CPU.1.cpuprofile"), '{"nodes":[],"samples":[],"timeDeltas":[]}');
    const summary = [{ runtime: "node", version: "22.11.0", figure: null, files: ["node-22.11.0/CPU.1.cpuprofile"], top: [{ name: "postMessage (node:internal/worker:468)", self_ms: 12, share: 0.6 }] }];
    writeFileSync(join(profiles, "summary.json"), JSON.stringify(summary));
    await buildSite({ dataDir, outDir: siteDir, scenarios: allScenarios(), reproductionArchive, profilesDir: join(profiles, "..", ".."), now: new Date("2026-11-25T00:00:00Z") });
  });

  it("an injected 2× regression is one finding: the step between the two releases, nothing else", () => {
    const findings = findFindings(history());
    assert.deepEqual(findings.map((f) => [f.kind, f.from_version, f.version, f.direction]), [["step", "22.10.0", "22.11.0", "slower"]]);
  });

  it("the Findings page lists it with its figures, its trend, its reproduction, its profiles and the release notes of its range", () => {
    const page = readFileSync(join(siteDir, "findings.html"), "utf8");
    assert.match(page, new RegExp(`<tr id="${row}">`));
    assert.match(page, /22\.10\.0 → 22\.11\.0/);
    assert.match(page, /scenario\.html\?scenario=workers%2Fthroughput&amp;metric=throughput_mb_s/);
    assert.match(page, new RegExp(`href="findings/${anchor}-repro\\.tar\\.gz" download`));
    assert.match(page, /https:\/\/nodejs\.org\/en\/blog\/release\/v22\.11\.0/);
    assert.match(page, /https:\/\/github\.com\/nodejs\/node\/compare\/v22\.10\.0\.\.\.v22\.11\.0/);
    assert.match(page, /postMessage \(node:internal\/worker:468\)<\/code> <span class="muted">60\.0 %/);
    assert.match(page, new RegExp(`href="findings/${anchor}-profiles/node-22\\.11\\.0/CPU\\.1\\.cpuprofile" download`));
    assert.deepEqual(readdirSync(join(siteDir, "findings", `${anchor}-profiles`, "node-22.11.0")), ["CPU.1.cpuprofile"]);
  });

  it("the findings feed carries it with the same links", () => {
    const atom = readFileSync(join(siteDir, "findings.atom"), "utf8");
    assert.match(atom, new RegExp(`<id>tag:runtime-bench,2026:finding/${row}</id>`));
    assert.match(atom, new RegExp(`<link rel="related" title="reproduction" href="findings/${anchor}-repro.tar.gz"/>`));
    assert.match(atom, new RegExp(`<link rel="related" title="CPU profiles" href="findings/${anchor}-profiles/summary.json"/>`));
    assert.match(atom, /<link rel="related" title="commits in the range" href="https:\/\/github.com\/nodejs\/node\/compare\/v22.10.0...v22.11.0"\/>/);
  });

  it("the reproduction download unpacks to the app, its protocol and one script per version", async () => {
    const unpacked = tempDir("findings-unpacked");
    const result = await runCommand("tar", ["-xzf", join(siteDir, "findings", `${anchor}-repro.tar.gz`), "-C", unpacked]);
    assert.equal(result.code, 0, result.stderr);
    const [folder] = readdirSync(unpacked);
    const files = readdirSync(join(unpacked, folder!)).sort();
    assert.deepEqual(files, ["README.md", "apps", "figure.mjs", "input.json", "run-node-22.10.0.sh", "run-node-22.11.0.sh", "scenario.json"]);
    assert.match(readFileSync(join(unpacked, folder!, "README.md"), "utf8"), /\| node 22\.11\.0 \| 451\.1 MB\/s \|/);
  });

  it("says in its place why a finding measured at another version of its scenario has no reproduction", async () => {
    const [older, olderSite] = [tempDir("findings-data-older"), tempDir("findings-site-older")];
    for (const doc of history(99)) await writeResult(older, doc);
    await buildSite({ dataDir: older, outDir: olderSite, scenarios: allScenarios(), reproductionArchive, now: new Date("2026-11-25T00:00:00Z") });
    const page = readFileSync(join(olderSite, "findings.html"), "utf8");
    assert.match(page, /<td data-label="reproduce"><div><span class="muted">workers\/throughput is at version \d+ here, the results measured version 99<\/span>/);
    assert.doesNotMatch(page, /-repro\.tar\.gz/);
  });
});
