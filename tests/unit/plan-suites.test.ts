import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { describe, it } from "node:test";
import { defaultSelection } from "../../src/suites/selection.ts";
import { planRun } from "../../src/orchestrate/estimate.ts";
import { loadApps, type App } from "../../src/apps/manifest.ts";
import type { Profile } from "../../src/results/types.ts";
import type { RuntimeName } from "../../src/runtimes/catalog.ts";
import type { IdentifiedRuntime } from "../../src/runtimes/identify.ts";
import { parseSpec } from "../../src/runtimes/spec.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { dropCachesRefusal } from "../../src/suites/fileio/filesystem.ts";
import { resolveScenarios, type ResolvedScenario } from "../../src/suites/resolve.ts";
import type { Subject } from "../../src/suites/suite.ts";
import { tempDir } from "../../benchmarks/lib/cli.ts";

// Checked against the real manifests in suites/ and apps/: a scenario or app added there changes
// both sides of each count, so the counts below are written as formulas over the manifests.

const resolved = (scenario: string, profile: Profile) => resolveScenarios(selectScenarios({ suites: [], scenarios: [scenario] }), profile)[0]!;

/** What plan counts for one scenario on one runtime (one version the scenario runs on). */
function planned(selected: ResolvedScenario, runtime: RuntimeName, options: Record<string, string[]> = {}) {
  const version = { node: "22.11.0", deno: "2.1.4", bun: "1.2.0" }[runtime];
  return planRun([selected], [parseSpec(`${runtime}@${version}`)], { [selected.suite.name]: options })[0]!;
}

/** Every result a run writes for the scenario on the runtime: one per subject of the suite's own session. */
async function written(selected: ResolvedScenario, runtime: RuntimeName, options: Record<string, string[]> = {}): Promise<Subject[]> {
  const { suite, scenario } = selected;
  const workDir = tempDir("plan-suites");
  const session = suite.start({ profile: "quick", workDir, log: () => {}, options: suite.parseOptions?.(options) ?? {} });
  try {
    return session.subjects(scenario, { identity: { name: runtime, version: "99.0.0" } } as IdentifiedRuntime);
  } finally {
    await session.close?.();
    rmSync(workDir, { recursive: true, force: true });
  }
}

const appsOn = <Extra>(suite: string, runtime: RuntimeName) => loadApps<Extra>(suite).filter((app) => app.manifest.runtimes[runtime]);
/** Keeps the subjects of these apps (those the runtime runs). */
const runsOn = (apps: readonly App[]) => (subject: Subject) => apps.some((app) => app.name === subject.app);
const sum = <T>(items: readonly T[], count: (item: T) => number) => items.reduce((n, item) => n + count(item), 0);

/** The same scenario with some profile parameters changed. */
function withProfile(selected: ResolvedScenario, changes: Record<string, unknown>): ResolvedScenario {
  return { ...selected, scenario: { ...selected.scenario, profileParams: { ...selected.scenario.profileParams, ...changes } } };
}

/** Asserts that each change of the profile makes the estimate longer than the scenario's own. */
function assertGrows(selected: ResolvedScenario, runtime: RuntimeName, changes: Record<string, unknown>[]) {
  const base = planned(selected, runtime).seconds!;
  assert.ok(base > 0);
  const trials = planned(withProfile(selected, { trials: 2 * selected.scenario.profileParams.trials }), runtime).seconds!;
  assert.ok(trials > 1.5 * base, `${selected.scenario.name}: twice the trials, ${trials} s against ${base} s`);
  for (const change of changes) {
    const seconds = planned(withProfile(selected, change), runtime).seconds!;
    assert.ok(seconds > base, `${selected.scenario.name} with ${JSON.stringify(change)}: ${seconds} s, not more than ${base} s`);
  }
}

describe("plan counts the cells run measures, and its time grows with the profile", () => {
  it("workers: every load point of every app the runtime runs, less the transfers of apps that can only copy", async () => {
    const apps = appsOn<{ transfer: boolean }>("workers", "node");
    const roundTrip = resolved("workers/round-trip", "quick");
    const throughput = resolved("workers/throughput", "full");
    const primes = resolved("workers/parallel-primes", "quick");
    assert.equal(planned(roundTrip, "node").cells, apps.length * 3 * 4, "3 batch sizes × 4 payloads");
    // Strings at 3 sizes, copied; Uint8Arrays at 3 sizes copied, and moved where the app can.
    assert.equal(planned(throughput, "node").cells, sum(apps, (app) => 3 + 3 * (app.manifest.transfer ? 2 : 1)));
    assert.equal(planned(primes, "node").cells, apps.length * 3, "3 worker counts");
    const subjects = await written(throughput, "node");
    const measured = subjects.filter(runsOn(apps)).filter((s) => s.params.transfer !== true || apps.find((a) => a.name === s.app)!.manifest.transfer);
    assert.equal(measured.length, planned(throughput, "node").cells);
    assert.ok(subjects.length > measured.length, "an app node cannot run is written as an unsupported result, and plan leaves it out");
    assert.equal(planned(roundTrip, "node", { app: ["worker-threads"] }).cells, 12);
    assertGrows(roundTrip, "node", [{ iterations: 1000 }, { warmup_block: 5 }]);
    assertGrows(primes, "bun", [{ iterations: 20 }]);
  });

  it("fileio: each app's page-cache states, concurrency levels and variants", async () => {
    const apps = appsOn<{ synchronous: boolean }>("fileio", "deno");
    const cold = dropCachesRefusal() === null;
    const readMany = resolved("fileio/read-many", "full");
    const writeLarge = resolved("fileio/write-large", "full");
    const { cache, concurrency } = readMany.scenario.profileParams as unknown as { cache: string[]; concurrency: unknown[] };
    // Cold cells only where this machine lets the page cache be dropped.
    const caches = cache.filter((state) => state === "warm" || cold).length;
    assert.equal(planned(readMany, "deno").cells, sum(apps, (app) => caches * (app.manifest.synchronous ? 1 : concurrency.length)), "the profile's concurrency levels for asynchronous apps");
    assert.equal(planned(writeLarge, "deno").cells, apps.length * caches * 2, "fsync on and off");
    assert.equal(planned(resolved("fileio/read-large", "quick"), "deno").cells, apps.length * 2, "whole and stream, warm only");
    const subjects = (await written(readMany, "deno")).filter((s) => s.params.cache === "warm" || cold);
    assert.equal(subjects.filter(runsOn(apps)).length, planned(readMany, "deno").cells);
    const quick = resolved("fileio/read-many", "quick");
    assertGrows(quick, "deno", [{ iterations: 30 }, { warmup_block: 3 }, { files: 10_000 }]);
    assertGrows(resolved("fileio/copy-large", "quick"), "node", [{ large_mib: 256 }]);
    assertGrows(resolved("fileio/walk-tree", "quick"), "bun", [{ tree_packages: 1200 }]);
    assert.ok(planned(withProfile(quick, { cache: ["warm", "cold"] }), "deno").seconds! > planned(quick, "deno").seconds! || !cold);
    assert.equal(planned(withProfile(readMany, { concurrency: ["all", 64] }), "deno").cells, sum(apps, (app) => caches * (app.manifest.synchronous ? 1 : 2)), "asynchronous apps at 2 levels");
  });

  it("database: each app of the chosen engines, at each concurrency level on a server, at 1 embedded", async () => {
    const apps = appsOn<{ engine: string }>("database", "bun");
    const pointSelect = resolved("database/point-select", "full");
    assert.equal(planned(pointSelect, "bun").cells, sum(apps, (app) => (app.manifest.engine === "postgres" ? 2 : 1)), "concurrency 1 and 10 on PostgreSQL");
    const sqlite = apps.filter((app) => app.manifest.engine === "sqlite").length;
    assert.equal(planned(pointSelect, "bun", { engine: ["sqlite"] }).cells, sqlite);
    assert.equal(planned(resolved("database/insert-batch", "quick"), "bun").cells, apps.length);
    const subjects = await written(pointSelect, "bun", { engine: ["sqlite"] });
    assert.equal(subjects.filter(runsOn(apps)).length, sqlite);
    assert.equal((await written(pointSelect, "node")).filter(runsOn(appsOn("database", "node"))).length, planned(pointSelect, "node").cells);
    assertGrows(resolved("database/select-1000", "quick"), "node", [{ iterations: 30 }, { warmup_block: 3 }, { ops: 50 }]);
    assertGrows(resolved("database/update-tx", "quick"), "bun", [{ ops: 100 }]);
  });

  it("websocket: each app the runtime runs, at each connection count", async () => {
    const apps = appsOn("websocket", "deno");
    const echo = resolved("websocket/echo", "full");
    assert.equal(planned(echo, "deno").cells, apps.length * (echo.scenario.profileParams.connections as number[]).length);
    assert.equal((await written(echo, "deno")).filter(runsOn(apps)).length, planned(echo, "deno").cells);
    const quick = resolved("websocket/broadcast", "quick");
    assertGrows(quick, "node", [{ duration_s: 10 }, { warmup_block: 4 }, { connections: [50, 500] }]);
    assertGrows(resolved("websocket/echo", "quick"), "node", [{ rate_duration_s: 10 }]);
  });

  it("http: only the apps that serve a scenario, and in the default run one app per scenario, marked in its manifest", async () => {
    const defaults = defaultSelection().suiteOptions.http!;
    const httpScenarios = selectScenarios({ suites: ["http"], scenarios: [] }).map((s) => s.name);
    assert.ok(httpScenarios.includes("ssr") && httpScenarios.includes("api-db"));
    for (const name of httpScenarios) {
      const selected = resolved(`http/${name}`, "quick");
      const apps = new Set((await written(selected, "node", defaults)).map((s) => s.app));
      assert.equal(apps.size, 1, `http/${name} is measured by one app in the default run: ${[...apps].join(", ")}`);
      const everyApp = await written(selected, "node");
      assert.equal(planned(selected, "node").cells, everyApp.filter(runsOn(appsOn("http", "node"))).length, `http/${name}: plan counts what run measures`);
    }
    assert.deepEqual(new Set((await written(resolved("http/ssr", "quick"), "bun", defaults)).map((s) => s.app)), new Set(["nextjs"]));
    assert.equal((await written(resolved("http/fortunes", "quick"), "deno", { app: ["native"] })).length, 0, "native does not serve fortunes: no cells");
    assert.equal(planned(resolved("http/api-db", "quick"), "node", { app: ["native"] }).cells, 0);
    const { suite, scenario } = resolved("http/fortunes", "quick");
    const lines: string[] = [];
    const workDir = tempDir("plan-suites");
    const session = suite.start({ profile: "quick", workDir, log: (line) => lines.push(line), options: suite.parseOptions!({ app: ["native"] }) });
    for (const name of ["node", "deno"] as const) session.subjects(scenario, { identity: { name, version: "99.0.0" } } as IdentifiedRuntime);
    await session.close?.();
    rmSync(workDir, { recursive: true, force: true });
    assert.equal(lines.length, 1, "said once, not once per runtime");
    assert.match(lines[0]!, /^http\/fortunes: none of the chosen apps serves it, so nothing is measured \(served by .*express-pg.*\)$/);
  });

  it("install: every manager the runtime runs, in every state of the profile", async () => {
    const small = resolved("install/small", "quick");
    const states = (small.scenario.profileParams.states as string[]).length;
    for (const runtime of ["node", "deno", "bun"] as const) {
      const managers = appsOn("install", runtime).length;
      assert.equal(planned(small, runtime).cells, managers * states, runtime);
      assert.equal((await written(small, runtime)).length, managers * states, runtime);
    }
    assert.equal(planned(resolved("install/webapp", "quick"), "node").cells, 0, "the quick profile leaves webapp out");
    assert.equal(planned(small, "node", { app: ["npm"] }).cells, states);
    assertGrows(small, "node", [{ runs: 3 }]);
    assert.ok(planned(resolved("install/webapp", "full"), "bun").seconds! > planned(resolved("install/small", "full"), "bun").seconds!, "a fixture of more packages takes longer");
  });
});
