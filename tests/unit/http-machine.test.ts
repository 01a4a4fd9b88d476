import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { allowedCpus, parseCpuList, pinned } from "../../src/tools/cpu-split.ts";
import { groupUsage, parsePeakRssMb, parseStat } from "../../src/tools/proc-stats.ts";

test("CPU lists parse as the kernel writes them", () => {
  assert.deepEqual(parseCpuList("0-1"), [0, 1]);
  assert.deepEqual(parseCpuList("0,2-4,7\n"), [0, 2, 3, 4, 7]);
  assert.deepEqual(allowedCpus("Name:\tx\nCpus_allowed_list:\t0-3\n"), [0, 1, 2, 3]);
});

test("pinned CPUs become a taskset prefix; nothing pinned, no prefix", () => {
  assert.deepEqual(pinned([1, 2, 3, 5]), ["taskset", "-c", "1-3,5"]);
  assert.deepEqual(pinned(undefined), []);
});

test("/proc/<pid>/stat is read after the command name, which may hold spaces and parentheses", () => {
  const stat = "4242 (node (worker) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 150 25 7 3 20 0 11 0 100 0 0";
  assert.deepEqual(parseStat(stat), { ppid: 1, pgrp: 4242, cpuTicks: 175, reapedTicks: 10 });
  assert.equal(parsePeakRssMb("Name:\tnode\nVmHWM:\t   51200 kB\nVmRSS:\t 40000 kB\n"), 52.4288);
  assert.equal(parsePeakRssMb("Name:\tzombie\n"), 0);
});

test("the usage of this test's own process group includes this process", () => {
  const ownGroup = parseStat(readFileSync(`/proc/${process.pid}/stat`, "utf8")).pgrp;
  const usage = groupUsage(ownGroup);
  assert.ok(usage.pids.includes(process.pid));
  assert.ok(usage.cpuS > 0);
  assert.ok(usage.peakRssMb > 10);
});
