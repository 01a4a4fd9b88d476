import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bench, tempDir } from "../../benchmarks/lib/cli.ts";
import { measurementsOf } from "../../src/compare/series-key.ts";
import { writeResult } from "../../src/results/store.ts";
import { chainedTrends, type ChainedTrends } from "../../src/regressions/chains.ts";
import { buildSeries } from "../../src/regressions/series.ts";
import { linkRun, TESTBED_AMD, TESTBED_INTEL, type Machine } from "../helpers/links.ts";

const VERSIONS = Array.from({ length: 9 }, (_, minor) => `22.${minor}.0`);
const minor = (version: string) => Number(version.split(".")[1]);
/** The true speed of a release: 10 % faster from 22.2.0, 10 % slower again from 22.6.0; the Intel host is 30 % slower at everything. */
const truth = (version: string) => (minor(version) >= 2 ? 0.9 : 1) * (minor(version) >= 6 ? 1.1 : 1);
const levelOn = (machine: Machine) => (version: string) => 100 * truth(version) * (machine === TESTBED_INTEL ? 1.3 : 1);

/** Each release beside the one before it; the first four links on the AMD host, the last four on the Intel host. */
const docs = VERSIONS.slice(1).flatMap((to, i) => {
  const machine = i < 4 ? TESTBED_AMD : TESTBED_INTEL;
  return linkRun({ machine, index: i + 1, from: VERSIONS[i]!, to, level: levelOn(machine), noise: 0.004 });
});

describe("chained trends across a change of machine", () => {
  it("splits the absolute series where the machine changed", () => {
    const series = buildSeries(measurementsOf(docs), new Set());
    assert.deepEqual(series.map((s) => [s.identity.series.split(" ")[0], s.points.map((p) => p.version)]), [
      ["reference-x64#aaaaaaaaaaaaaaaa", VERSIONS.slice(0, 5)],
      ["reference-x64#bbbbbbbbbbbbbbbb", VERSIONS.slice(4)],
    ]);
  });

  it("continues the chain across it, with the product of the paired ratios and an interval propagated on the log scale", () => {
    const { chains } = chainedTrends(docs, new Date("2026-12-01T00:00:00Z"));
    assert.equal(chains.length, 1);
    const [chain] = chains;
    assert.deepEqual([chain!.runner, chain!.runtime, chain!.first, chain!.metric], ["reference-x64", "node", "22.0.0", "wall_ms"]);
    assert.deepEqual(chain!.points.map((p) => p.version), VERSIONS);
    assert.deepEqual(chain!.points.filter((p) => p.machine_changed).map((p) => p.version), ["22.5.0"], "marked where the links moved to the Intel host");
    let log = 0;
    let variance = 0;
    for (const point of chain!.points.slice(1)) {
      const link = point.link!;
      log += Math.log(link.ratio);
      variance += ((Math.log(link.ci95[1]) - Math.log(link.ci95[0])) / 2) ** 2;
      assert.ok(Math.abs(Math.log(point.ratio) - log) < 1e-12, `${point.version}: the product of the links' ratios`);
      assert.ok(Math.abs(Math.log(point.ci95[1]) - log - Math.sqrt(variance)) < 1e-12, `${point.version}: half-width √Σ h²`);
      assert.ok(Math.abs(Math.log(point.ci95[0]) - log + Math.sqrt(variance)) < 1e-12);
      assert.ok(point.ci95[0] < truth(point.version) && truth(point.version) < point.ci95[1], `${point.version}: ${point.ci95} holds the true ${truth(point.version)}`);
      assert.ok(Math.abs(point.ratio / truth(point.version) - 1) < 0.01, `${point.version}: ${point.ratio} against ${truth(point.version)}`);
    }
    const across = chain!.points.find((p) => p.version === "22.5.0")!;
    assert.ok(Math.abs(across.link!.ratio - 1) < 0.01, "no jump where the machine changed: the link is measured on one machine");
    const widths = chain!.points.slice(1).map((p) => Math.log(p.ci95[1] / p.ci95[0]));
    assert.ok(widths.every((w, i) => i === 0 || w > widths[i - 1]!), "the interval widens link by link");
  });

  it("reaches a release by the links whose intervals compound narrowest, not by the fewest", () => {
    // A coarse link over three releases, cut at two trials with much noise (Bun's first chain beside its later links).
    const coarse = linkRun({ machine: TESTBED_AMD, index: 70, from: "22.0.0", to: "22.3.0", level: levelOn(TESTBED_AMD), noise: 0.05, trials: 2 });
    const [chain] = chainedTrends([...docs, ...coarse]).chains;
    const point = chain!.points.find((p) => p.version === "22.3.0")!;
    assert.equal(point.link!.from, "22.2.0");
    assert.equal(point.links, 3);
    const direct = chainedTrends(coarse).chains[0]!.points.find((p) => p.version === "22.3.0")!;
    assert.ok(Math.log(point.ci95[1] / point.ci95[0]) < Math.log(direct.ci95[1] / direct.ci95[0]), "three narrow links are narrower than the coarse one");
  });

  it("records each link's profile, its run's", () => {
    const full = linkRun({ machine: TESTBED_AMD, index: 60, from: "22.8.0", to: "22.9.0", level: levelOn(TESTBED_AMD), profile: "full" });
    const [chain] = chainedTrends([...docs, ...full]).chains;
    const profiles = chain!.points.slice(1).map((p) => [p.version, p.link!.profile]);
    assert.deepEqual(profiles, [...VERSIONS.slice(1).map((v) => [v, "quick"]), ["22.9.0", "full"]]);
  });

  it("starts a chain again where no link reaches, and leaves out labelled builds", () => {
    const gap = docs.filter((doc) => doc.runtime.version !== "22.4.0");
    const labelled = linkRun({ machine: TESTBED_AMD, index: 50, from: "22.3.0", to: "22.4.0", level: levelOn(TESTBED_AMD) }).map((doc) => ({ ...doc, label: `patched-${doc.runtime.version}` }));
    const { chains } = chainedTrends([...gap, ...labelled]);
    assert.deepEqual(chains.map((c) => c.points.map((p) => p.version)), [VERSIONS.slice(0, 4), VERSIONS.slice(5)]);
  });
});

describe("scripts/bench regressions --chains", () => {
  it("prints the chains, marks the change of machine, and writes chains.json beside the feed", async () => {
    const data = tempDir("chains-data");
    const feed = tempDir("chains-feed");
    for (const doc of docs) await writeResult(data, doc);
    const text = await bench(["regressions", "--data", data, "--chains", "--feed-dir", feed]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^1 chain: each release against the first of its chain/);
    assert.match(text.stdout, /22\.5\.0 .*Intel\(R\) Xeon\(R\) Processor \(bbbbbbbb\): machine changed/);
    const json = await bench(["regressions", "--data", data, "--chains", "--json"]);
    const trends = JSON.parse(json.stdout) as ChainedTrends;
    assert.deepEqual([trends.schema, trends.chains.length, trends.chains[0]!.points.length], ["runtime-bench/chains/v2", 1, 9]);
    assert.match(text.stdout, new RegExp(`chains written: ${feed}/chains\\.json`));
  });
});
