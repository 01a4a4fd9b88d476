import assert from "node:assert/strict";
import { test } from "node:test";
import { findFindings } from "../../src/findings/detect.ts";
import { findingsAtom } from "../../src/findings/feed-atom.ts";
import { findingsTable, groupAnchor } from "../../src/findings/format.ts";
import { cellWithinGroup, factorRange, groupFindings } from "../../src/findings/group.ts";
import type { ParamValue } from "../../src/core/params.ts";
import { makeResult, metricOf } from "../../benchmarks/lib/documents.ts";

const around = (value: number) => [value * 0.98, value * 1.01, value, value * 1.02, value * 0.99, value * 1.005];

/** One workers/throughput cell of Deno's byte messages beside Node and Bun, Deno `gap` times slower. */
function cell(params: Record<string, ParamValue>, gap: number, app = "worker-threads") {
  return (["node", "bun", "deno"] as const).map((name) =>
    makeResult({
      run: { id: `20261101T000000Z-${name}00`, trials: 3 },
      runtime: { name, version: { node: "26.10.0", bun: "1.4.5", deno: "2.9.6" }[name] },
      suite: "workers",
      scenario: "throughput",
      app,
      params,
      metrics: { throughput_mb_s: metricOf(around(name === "deno" ? 6400 / gap : name === "bun" ? 6300 : 6400), "MB/s", "higher") },
    }),
  );
}

const bytes = (size: number, batch: number, transfer = false) => ({ payload: "bytes", size, batch, transfer });

test("cells of one cause are one finding, its cells largest first; a cell of another cause stands apart", () => {
  const docs = [
    ...cell(bytes(1024, 1), 675),
    ...cell(bytes(65536, 64), 15),
    ...cell(bytes(1048576, 64, true), 120),
    // Another app is another cause, even with the same runtime far off the same way.
    ...cell(bytes(1024, 1), 40, "web-workers"),
  ];
  const groups = groupFindings(findFindings(docs));
  assert.equal(groups.length, 2);
  const [threads, web] = groups;
  assert.equal(threads!.app, "worker-threads");
  assert.equal(threads!.runtime, "deno");
  assert.deepEqual(threads!.cells.map((c) => c.params.size), [1024, 1048576, 65536], "largest gap first");
  assert.equal(threads!.representative, threads!.cells[0]);
  assert.deepEqual(threads!.shared, { payload: "bytes" });
  assert.deepEqual(threads!.varying, ["batch", "size", "transfer"]);
  assert.equal(cellWithinGroup(threads!, threads!.cells[0]!), "batch=1,size=1024,transfer=false");
  assert.match(factorRange(threads!), /^1[45]–6\d\d×$/);
  assert.deepEqual(web!.cells.map((c) => c.app), ["web-workers"]);

  const table = findingsTable(findFindings(docs));
  assert.equal(table.split("\n").filter((line) => line.startsWith("outlier")).length, 2, table);
  assert.match(table, /^outlier\s+workers\/throughput worker-threads payload=bytes\s+throughput_mb_s \(higher\)\s+1[45]–6\d\d× slower\s+3 cells, largest first/m);

  const atom = findingsAtom(groups, () => ({}), "2026-11-25T00:00:00.000Z");
  assert.equal(atom.match(/<entry>/g)?.length, 2, "one feed entry per cause");
});

test("a step and an outlier of the same runtime on the same scenario are two causes, and so are two directions", () => {
  const step = (version: string, mbs: number) =>
    makeResult({ run: { id: `run-${version}`, trials: 3 }, runtime: { name: "node", version }, suite: "workers", scenario: "throughput", app: "worker-threads", params: bytes(1024, 1), metrics: { throughput_mb_s: metricOf(around(mbs), "MB/s", "higher") } });
  const slowerHere = cell(bytes(65536, 64), 20);
  const fasterThere = cell(bytes(1024, 64), 1 / 20);
  const groups = groupFindings(findFindings([step("26.9.0", 6400), step("26.10.0", 2000), ...slowerHere, ...fasterThere]));
  assert.deepEqual(groups.map((g) => `${g.kind} ${g.runtime} ${g.direction}`).sort(), ["outlier deno faster", "outlier deno slower", "step node slower"]);
});

test("a finding keeps its id and anchor when a cell joins or leaves it", () => {
  const two = [...cell(bytes(1024, 1), 675), ...cell(bytes(65536, 64), 15)];
  const three = [...two, ...cell(bytes(1048576, 64, true), 900)];
  const [before] = groupFindings(findFindings(two));
  const [joined] = groupFindings(findFindings(three));
  const [left] = groupFindings(findFindings(cell(bytes(65536, 64), 15)));
  assert.equal(joined!.cells.length, 3);
  assert.equal(joined!.representative.params.size, 1048576, "the new, larger cell now stands for the group");
  assert.equal(left!.cells.length, 1);
  assert.equal(joined!.id, before!.id);
  assert.equal(left!.id, before!.id);
  assert.equal(groupAnchor(joined!), groupAnchor(before!));
  assert.equal(groupAnchor(left!), groupAnchor(before!));
  const entryId = (atom: string) => /<entry>\s*<id>([^<]+)<\/id>/.exec(atom)?.[1];
  const feed = (groups: ReturnType<typeof groupFindings>) => findingsAtom(groups, () => ({}), "2026-11-25T00:00:00.000Z");
  assert.equal(entryId(feed([joined!])), entryId(feed([before!])));
  assert.equal(entryId(feed([left!])), entryId(feed([before!])));
});

test("a step between two releases that takes in a documented change names it, in the group, the table and the feed", () => {
  // Node 20.5.0's readFileSync utf8 fast path (nodejs/node#48658), on startup/read-text, here twice as fast: a step worth a finding.
  const start = (version: string, ms: number, id: string) =>
    makeResult({ run: { id: `2026110${id}T000000Z-node00`, trials: 3 }, runtime: { name: "node", version }, suite: "startup", scenario: "read-text", app: null, params: {}, metrics: { wall_ms: metricOf(around(ms), "ms", "lower") } });
  const groups = groupFindings(findFindings([start("20.4.0", 250, "1"), start("20.5.0", 100, "2")]));
  const step = groups.find((g) => g.kind === "step")!;
  assert.deepEqual(step.documented?.map((d) => [d.id, d.source]), [["node-readfilesync-utf8", "nodejs/node#48658"]]);
  assert.match(findingsTable(findFindings([start("20.4.0", 250, "1"), start("20.5.0", 100, "2")])), /documented: nodejs\/node#48658: faster ×1\.726/);
  const atom = findingsAtom(groups, () => ({}), "2026-11-25T00:00:00.000Z");
  assert.match(atom, /<link rel="related" title="documented: nodejs\/node#48658" href="https:\/\/nodejs\.org\/en\/blog\/release\/v20\.5\.0"\/>/);
});
