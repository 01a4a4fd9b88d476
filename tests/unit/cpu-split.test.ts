import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { assignCpus, describeAssignment, formatCpuList, machineAssignment, parseCpuList, readTopology, type CpuRole, type Topology } from "../../src/tools/cpu-split.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

/** A machine numbered the way x86 Linux numbers it: core c runs CPU c and, with SMT, CPU c + cores. */
function machine(cores: number, smt: boolean, isolated: number[] = []): Topology {
  const siblings = Array.from({ length: cores }, (_, core) => (smt ? [core, core + cores] : [core]));
  return { allowed: siblings.flat().sort((a, b) => a - b), cores: siblings, isolated };
}

const FIXTURES: { name: string; topology: Topology }[] = [];
for (const cores of [2, 4, 8, 16, 64]) {
  for (const smt of [false, true]) {
    FIXTURES.push({ name: `${cores} cores${smt ? " with SMT" : ""}`, topology: machine(cores, smt) });
    // isolcpus as the tuning script sets it: the last half of the cores with their siblings.
    const isolatedCores = Array.from({ length: Math.max(1, cores / 2) }, (_, i) => cores - 1 - i);
    const isolated = isolatedCores.flatMap((core) => (smt ? [core, core + cores] : [core]));
    FIXTURES.push({ name: `${cores} cores${smt ? " with SMT" : ""}, CPUs ${formatCpuList(isolated)} isolated`, topology: machine(cores, smt, isolated) });
  }
}

const coreOf = (topology: Topology, cpu: number) => topology.cores.findIndex((core) => core.includes(cpu));
const coresOf = (topology: Topology, cpus: readonly number[]) => new Set(cpus.map((cpu) => coreOf(topology, cpu)));

for (const { name, topology } of FIXTURES) {
  test(`CPU sets on ${name}: no physical core shared across sides, SMT siblings kept together`, () => {
    const assignment = assignCpus(topology);
    assert.equal(assignment.separated, true);
    if (!assignment.separated) return;
    const { server, client, database, registry, installer, parallel } = assignment.sets;
    const serverCores = coresOf(topology, server);
    assert.equal(serverCores.size, 1, "the process under test gets one fixed core");
    for (const [role, cpus] of Object.entries({ client, database, registry }) as [CpuRole, readonly number[]][]) {
      assert.ok(cpus.length > 0, `${role} has CPUs`);
      for (const core of coresOf(topology, cpus)) assert.ok(!serverCores.has(core), `${role} shares a core with the server`);
    }
    const helper = coresOf(topology, registry);
    for (const core of coresOf(topology, installer)) assert.ok(!helper.has(core), "the package manager shares a core with the registry");
    assert.equal(coresOf(topology, installer).size, topology.cores.length - 1, "the package manager gets every other core");
    if (topology.cores.length >= 3) {
      for (const core of coresOf(topology, client)) assert.ok(!helper.has(core), "PostgreSQL shares a core with the load generator");
    }
    // A role that has one CPU of a core has all of that core's CPUs.
    for (const cpus of [server, client, database, installer, parallel]) {
      for (const core of coresOf(topology, cpus)) for (const cpu of topology.cores[core]!) assert.ok(cpus.includes(cpu), `CPU ${cpu} split from its sibling`);
    }
    assert.deepEqual([...parallel].sort((a, b) => a - b), topology.allowed);
    if (topology.isolated.length > 0) {
      assert.ok(server.every((cpu) => topology.isolated.includes(cpu)), "the server is on an isolated core");
      assert.deepEqual(assignment.isolated, topology.isolated);
    }
    assert.deepEqual(assignCpus(topology), assignment, "the same machine gives the same cores");
  });
}

test("one CPU, or one core of SMT siblings, cannot be separated, and the result says so", () => {
  for (const [topology, why] of [
    [{ allowed: [0], cores: [[0]], isolated: [] }, /^one CPU/],
    [machine(1, true), /one physical core \(CPUs 0-1 are SMT siblings\)/],
    // A cgroup that allows one CPU of a many-core machine.
    [{ ...machine(8, true), allowed: [3] }, /^one CPU/],
  ] as const) {
    const assignment = assignCpus(topology);
    assert.equal(assignment.separated, false);
    assert.match(describeAssignment(assignment, ["server", "client"]) as string, /^none: /);
    if (!assignment.separated) assert.match(assignment.reason, why);
  }
});

test("only the allowed CPUs are assigned, and a core's siblings outside the set are left alone", () => {
  const assignment = assignCpus({ ...machine(4, true), allowed: [1, 2, 3, 6] });
  assert.ok(assignment.separated);
  if (!assignment.separated) return;
  assert.deepEqual(assignment.sets.server, [1]);
  assert.deepEqual(assignment.sets.database, [2, 6]);
  assert.deepEqual(assignment.sets.client, [3]);
});

test("two cores: the services share the load generator's core, and the result says so", () => {
  const assignment = assignCpus(machine(2, false));
  assert.deepEqual(describeAssignment(assignment, ["server", "client", "database"]), {
    server: "0",
    client: "1",
    database: "1",
    note: "two cores: PostgreSQL and the registry share the load generator's core",
  });
  assert.deepEqual(describeAssignment(assignment, ["server", "database"]), { server: "0", database: "1" }, "without a load generator, nothing shares");
  assert.deepEqual(describeAssignment(assignCpus(machine(8, true, [4, 5, 6, 7, 12, 13, 14, 15])), ["server", "client"]), {
    server: "4,12",
    client: "0-3,6-11,14-15",
    isolated: "4-7,12-15",
  });
});

test("the topology is read from /sys: siblings from each CPU's topology, isolated CPUs from the kernel's list", () => {
  const root = tempDir("topology");
  try {
    for (const [cpu, siblings] of [[0, "0,2"], [1, "1,3"], [2, "0,2"], [3, "1,3"]] as const) {
      mkdirSync(join(root, `cpu${cpu}`, "topology"), { recursive: true });
      writeFileSync(join(root, `cpu${cpu}`, "topology", "thread_siblings_list"), `${siblings}\n`);
    }
    writeFileSync(join(root, "isolated"), "1,3\n");
    assert.deepEqual(readTopology(root, [0, 1, 2, 3]), { allowed: [0, 1, 2, 3], cores: [[0, 2], [1, 3]], isolated: [1, 3] });
    writeFileSync(join(root, "isolated"), "\n");
    assert.deepEqual(readTopology(root, [0, 1]).isolated, []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("this machine's topology covers exactly the allowed CPUs, and the switch turns pinning off", () => {
  const topology = readTopology();
  assert.deepEqual(topology.cores.flat().filter((cpu) => topology.allowed.includes(cpu)).sort((a, b) => a - b), [...topology.allowed]);
  const off = machineAssignment({ RUNTIME_BENCH_CPU_SETS: "off" });
  assert.equal(off.separated, false);
  assert.equal(describeAssignment(off, ["server"]), "none: CPU sets switched off (RUNTIME_BENCH_CPU_SETS=off)");
});

test("CPU lists format as the kernel writes them", () => {
  assert.equal(formatCpuList([0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
  assert.deepEqual(parseCpuList(formatCpuList([3, 1, 2, 9])), [1, 2, 3, 9]);
});
