import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { checkAgainst } from "../../src/core/schema.ts";
import { detectRegressions } from "../../src/regressions/detect.ts";
import { regressionsText } from "../../src/regressions/format.ts";
import { regressionsAtom } from "../../src/regressions/feed-atom.ts";
import { readFeed, regressionsBody } from "../../src/site/regressions.ts";
import { FEED_JSON_FILE, regressionsJson } from "../../src/regressions/feed-json.ts";
import { UserError } from "../../src/core/errors.ts";
import { ownTempDir } from "../helpers/temp.ts";
import { linkRun, steppedLevel, TESTBED_AMD, TESTBED_INTEL } from "../helpers/links.ts";

const LEVEL = steppedLevel(100, "22.6.0", 1.1);

/** A step of ×1.1 in two parts of ×1.049, at 22.6.0 and at 22.8.0. */
const SPREAD = (version: string) => steppedLevel(100, "22.6.0", Math.sqrt(1.1))(version) * (version === "22.8.0" ? Math.sqrt(1.1) : 1);

/**
 * The link 22.4.0 → 22.8.0 on the AMD host, showing a step of ×1.1, and its two halves over 22.6.0
 * on `halves`: with `spread`, each a noisy part of it that neither shows alone; with `flat`, none
 * of it, in tight intervals that contradict the link.
 */
function linkWithHalves(halves: typeof TESTBED_AMD, shape: "spread" | "flat" = "spread") {
  const [level, noise] = shape === "spread" ? [SPREAD, 0.06] : [() => 100, undefined];
  return [
    ...linkRun({ machine: TESTBED_AMD, index: 1, from: "22.4.0", to: "22.8.0", level: LEVEL }),
    ...linkRun({ machine: halves, index: 2, from: "22.4.0", to: "22.6.0", level, ...(noise === undefined ? {} : { noise }) }),
    ...linkRun({ machine: halves, index: 3, from: "22.6.0", to: "22.8.0", level, ...(noise === undefined ? {} : { noise }) }),
  ];
}

describe("the feed after a step was narrowed on another machine than its link", () => {
  it("names the release that brought it, and the link it was narrowed from, not the link on its own", () => {
    // The link on the testbed's AMD host; its narrowing on the Intel host it had the next day.
    const docs = [
      ...linkRun({ machine: TESTBED_AMD, index: 1, from: "22.4.0", to: "22.8.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 2, from: "22.4.0", to: "22.6.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 3, from: "22.6.0", to: "22.8.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 4, from: "22.4.0", to: "22.5.0", level: LEVEL }),
      ...linkRun({ machine: TESTBED_INTEL, index: 5, from: "22.5.0", to: "22.6.0", level: LEVEL }),
    ];
    const { changes } = detectRegressions(docs);
    assert.deepEqual(changes.map((c) => [c.from_version, c.to_version, c.narrowed_from]), [["22.5.0", "22.6.0", ["22.4.0 → 22.8.0"]]]);
    assert.equal(changes[0]!.release_notes?.changelog, "https://nodejs.org/en/blog/release/v22.6.0");
  });

  it("says which published releases lie between a change's two versions: none once narrowed, the link's otherwise", () => {
    const published = new Map([["node", ["22.4.0", "22.5.0", "22.6.0", "22.7.0", "22.7.1", "22.8.0", "23.0.0-rc.1"]]]);
    const link = linkRun({ machine: TESTBED_AMD, index: 1, from: "22.4.0", to: "22.8.0", level: LEVEL });
    const [wide] = detectRegressions(link, { published }).changes;
    assert.deepEqual(wide!.between, { releases: 4, first: "22.5.0", last: "22.7.1" });
    const halves = [...link, ...linkRun({ machine: TESTBED_AMD, index: 2, from: "22.4.0", to: "22.6.0", level: LEVEL }), ...linkRun({ machine: TESTBED_AMD, index: 3, from: "22.6.0", to: "22.8.0", level: LEVEL })];
    const [half, ...others] = detectRegressions(halves, { published }).changes;
    assert.deepEqual(others, [], "the link's step is the half's that showed it");
    assert.deepEqual([half!.from_version, half!.to_version, half!.between], ["22.4.0", "22.6.0", { releases: 1, first: "22.5.0", last: "22.5.0" }]);
    const report = detectRegressions(halves, { published });
    assert.match(regressionsText(report, false), /confirmed: 0 between adjacent releases, 1 not narrowed to one release \(others published between\), 1 of them on a scenario's headline metric: 0 on a version of its scenario since replaced, whose steps no sweep narrows any more; 1 on its current version \(the steps a history sweep narrows\): 0 split at a release between measured beside both ends, neither half showing the change alone; 1 with no release between measured beside both ends/);
    assert.match(regressionsText(report, false), /not narrowed to one release: 1 release between \(22\.5\.0\); no release between measured beside both ends/);
    assert.match(regressionsAtom(report), /<title>node 22\.4\.0 → 22\.6\.0 on [^:<]+: 1 regression, 0 improvements<\/title>/);
    assert.match(regressionsAtom(report), /<summary>1 regression, 0 improvements, not narrowed to one release: 1 release between \(22\.5\.0\)\. .*; no release between measured beside both ends\.<\/summary>/);
    const page = regressionsBody({ report, jsonPath: "regressions.json", atomPath: null }).text;
    assert.match(page, /<p id="not-narrowed">1 of the 1 confirmed changes lie between releases with others published between them, 1 of them on a scenario&#39;s headline metric: 0 on a version of its scenario since replaced, whose steps no sweep narrows any more; 1 on its current version \(the steps a history sweep narrows\): 0 split/);
    assert.match(page, /22\.4\.0 → 22\.6\.0<div class="muted not-narrowed">not narrowed to one release: 1 release between \(22\.5\.0\)<\/div>/);
    assert.match(page, /<div class="muted halves">no release between measured beside both ends<\/div>/);
    assert.match(page, /<h2>Confirmed across several releases, not placed in one <span class="count">1<\/span><\/h2>/);
    assert.doesNotMatch(page, /<h2>Confirmed changes, release by release/, "no release's step: not among the changes a reader blames a release for");
    assert.equal(detectRegressions(halves).changes[0]!.between, undefined, "unknown without the published releases");
    const narrowed = [...halves, ...linkRun({ machine: TESTBED_AMD, index: 4, from: "22.4.0", to: "22.5.0", level: LEVEL }), ...linkRun({ machine: TESTBED_AMD, index: 5, from: "22.5.0", to: "22.6.0", level: LEVEL })];
    const [adjacent] = detectRegressions(narrowed, { published }).changes;
    assert.deepEqual([adjacent!.from_version, adjacent!.to_version, adjacent!.between], ["22.5.0", "22.6.0", { releases: 0 }]);
    assert.match(regressionsText(detectRegressions(narrowed, { published }), false), /confirmed: 1 between adjacent releases, 0 not narrowed/);
    const narrowedPage = regressionsBody({ report: detectRegressions(narrowed, { published }), jsonPath: "regressions.json", atomPath: null }).text;
    assert.match(narrowedPage, /<h2>Confirmed changes, release by release <span class="count">1<\/span><\/h2>/);
    assert.match(narrowedPage, /<section class="release" id="release-node-22\.5\.0-22\.6\.0-[^"]+"><h3>/);
    assert.doesNotMatch(narrowedPage, /Confirmed across several releases/);
  });

  it("counts the releases between of the runner's own architecture, where they are known", () => {
    // 22.7.1 reached the other architecture's package alone: this runner can never measure it.
    const published = new Map([
      ["node", ["22.6.0", "22.7.0", "22.7.1", "22.8.0"]],
      [`node@${TESTBED_AMD.runner}`, ["22.6.0", "22.7.0", "22.8.0"]],
    ]);
    const docs = [
      ...linkRun({ machine: TESTBED_AMD, index: 1, from: "22.7.0", to: "22.8.0", level: steppedLevel(100, "22.8.0", 1.1) }),
      ...linkRun({ machine: { ...TESTBED_AMD, runner: "another-runner" }, index: 2, from: "22.7.0", to: "22.8.0", level: steppedLevel(100, "22.8.0", 1.1) }),
    ];
    const between = (runner: string) => detectRegressions(docs, { published }).changes.find((c) => c.runner === runner)?.between;
    assert.deepEqual(between(TESTBED_AMD.runner), { releases: 0 });
    assert.deepEqual(between("another-runner"), { releases: 1, first: "22.7.1", last: "22.7.1" });
  });

  it("keeps a link's step on the link when neither half, measured on the same machine, shows it alone", () => {
    const docs = linkWithHalves(TESTBED_AMD);
    const published = new Map([["node", ["22.4.0", "22.5.0", "22.6.0", "22.7.0", "22.8.0"]]]);
    const { changes } = detectRegressions(docs, { published });
    assert.deepEqual(
      changes.map((c) => [c.from_version, c.to_version, c.kind, c.between]),
      [["22.4.0", "22.8.0", "regression", { releases: 3, first: "22.5.0", last: "22.7.0" }]],
    );
    assert.match(changes[0]!.compare_command!, /^scripts\/bench compare 20260102T000000Z-000001 /);
    // What the halves said is the reader's evidence that the step is no one release's.
    assert.deepEqual(
      changes[0]!.halves?.map((half) => [half.from_version, half.to_version, half.verdict]),
      [
        ["22.4.0", "22.6.0", "inconclusive"],
        ["22.6.0", "22.8.0", "inconclusive"],
      ],
    );
    const report = detectRegressions(docs, { published });
    assert.match(regressionsText(report, false), /1 on its current version \(the steps a history sweep narrows\): 1 split at a release between measured beside both ends, neither half showing the change alone; 0 with no release between/);
    assert.match(regressionsText(report, false), /not narrowed to one release: 3 releases between \(22\.5\.0 … 22\.7\.0\); neither half showed it alone \(22\.4\.0 → 22\.6\.0 [+−]\d+\.\d % \[\d\.\d{3}, \d\.\d{3}\], inconclusive; 22\.6\.0 → 22\.8\.0 /);
    const page = regressionsBody({ report, jsonPath: "regressions.json", atomPath: null }).text;
    assert.match(page, /<div class="muted not-narrowed">not narrowed to one release: 3 releases between \(22\.5\.0 … 22\.7\.0\)<\/div>/);
    assert.match(page, /<div class="muted halves">neither half showed it alone \(22\.4\.0 → 22\.6\.0 [^<]+, inconclusive\)<\/div>/);
  });

  it("finds the halves a sweep measured on another machine than its link (the testbed's host changed between them)", () => {
    const docs = linkWithHalves(TESTBED_INTEL);
    const [link, ...others] = detectRegressions(docs).changes;
    assert.deepEqual(others, []);
    assert.deepEqual([link!.from_version, link!.to_version], ["22.4.0", "22.8.0"]);
    assert.deepEqual(
      link!.halves?.map((half) => [half.from_version, half.to_version, half.verdict]),
      [
        ["22.4.0", "22.6.0", "inconclusive"],
        ["22.6.0", "22.8.0", "inconclusive"],
      ],
    );
    assert.deepEqual(checkAgainst("regressions.schema.json", detectRegressions(docs, { published: new Map([["node", ["22.5.0", "22.6.0", "22.7.0"]]]) })), [], "the feed's schema allows halves and releases between");
    const oneHalf = detectRegressions(docs.filter((doc) => !(doc.runtime.version === "22.8.0" && doc.run.id.endsWith("3")))).changes;
    assert.equal(oneHalf.find((c) => c.from_version === "22.4.0" && c.to_version === "22.8.0")?.halves, undefined, "one half measured is no split");
  });

  it("says where a step not narrowed lies on a version of its scenario that a newer one replaced, which no sweep narrows any more", () => {
    const published = new Map([["node", ["22.4.0", "22.5.0", "22.6.0", "22.7.0", "22.8.0"]]]);
    const docs = [
      ...linkRun({ machine: TESTBED_AMD, index: 1, from: "22.4.0", to: "22.8.0", level: LEVEL, scenarioVersion: 1 }),
      ...linkRun({ machine: TESTBED_AMD, index: 2, from: "22.4.0", to: "22.8.0", level: LEVEL, scenarioVersion: 2 }),
    ];
    const report = detectRegressions(docs, { published });
    assert.deepEqual(
      report.changes.map((c) => [c.scenario_version, c.from_version, c.to_version, c.replaced_by]),
      [
        [2, "22.4.0", "22.8.0", undefined],
        [1, "22.4.0", "22.8.0", 2],
      ],
    );
    assert.deepEqual(checkAgainst("regressions.schema.json", report), [], "the feed's schema allows replaced_by");
    const text = regressionsText(report, false);
    assert.match(text, /2 of them on a scenario's headline metric: 1 on a version of its scenario since replaced, whose steps no sweep narrows any more; 1 on its current version \(the steps a history sweep narrows\): 0 split at a release between measured beside both ends, neither half showing the change alone; 1 with no release between/);
    assert.match(text, /no release between measured beside both ends; version 1 of its scenario, since replaced by version 2: its series ends there, and a sweep narrows the newer version's steps/);
    const page = regressionsBody({ report, jsonPath: "regressions.json", atomPath: null }).text;
    assert.match(page, /<div class="muted halves">no release between measured beside both ends; version 1 of its scenario, since replaced by version 2: its series ends there, and a sweep narrows the newer version&#39;s steps<\/div>/);
    assert.equal(detectRegressions(docs.filter((doc) => doc.scenario_version === 1), { published }).changes[0]!.replaced_by, undefined, "a version no newer one replaced in the results is current");
  });

  it("holds back a link's step that its halves, each paired in a run of its own, contradict", () => {
    const published = new Map([["node", ["22.4.0", "22.5.0", "22.6.0", "22.7.0", "22.8.0"]]]);
    const report = detectRegressions(linkWithHalves(TESTBED_AMD, "flat"), { published });
    const [link, ...others] = report.changes;
    assert.deepEqual(others, []);
    assert.deepEqual([link!.from_version, link!.to_version, link!.status], ["22.4.0", "22.8.0", "unconfirmed"]);
    assert.match(link!.reason, /^did not repeat: \+10\.\d % \[1\.\d{3}, 1\.\d{3}\] in its run, but its halves \(22\.4\.0 → 22\.6\.0, 22\.6\.0 → 22\.8\.0\), each paired in a run of its own, compound to [+−]0\.\d % \[0\.9\d\d, 1\.0\d\d\]$/);
    assert.match(regressionsText(report, false), /^1 series, 1 change \(0 confirmed, 1 unconfirmed\)/);
    assert.match(regressionsBody({ report, jsonPath: "regressions.json", atomPath: null }).text, /<h2>Unconfirmed changes <span class="count">1<\/span><\/h2>[^]*did not repeat/);
    const agreeing = detectRegressions(linkWithHalves(TESTBED_AMD, "spread"), { published }).changes[0]!;
    assert.equal(agreeing.status, "confirmed", "halves whose compounded interval reaches the link's leave it confirmed");
  });

  it("is refused by the site, naming the field, where an edited or forged feed has halves it cannot draw", () => {
    const docs = linkWithHalves(TESTBED_AMD);
    const report = detectRegressions(docs);
    const feedDir = ownTempDir("forged-feed");
    writeFileSync(join(feedDir, FEED_JSON_FILE), regressionsJson(report));
    assert.equal(readFeed(feedDir)?.report.changes[0]!.halves?.length, 2, "the feed as written is read");
    writeFileSync(join(feedDir, FEED_JSON_FILE), JSON.stringify({ ...report, changes: [{ ...report.changes[0]!, halves: "<script>" }] }));
    assert.throws(
      () => readFeed(feedDir),
      (error: unknown) => error instanceof UserError && /regressions\.json: \/changes\/0\/halves: must be array, which schemas\/regressions\.schema\.json does not allow/.test(error.message),
    );
  });
});
