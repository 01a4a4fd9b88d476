import { paramsSlug } from "../core/params.ts";
import { CANARY_LABEL } from "../compare/paired.ts";
import { profileOf } from "../compare/syscall-diff.ts";
import { indexedResults, type IndexedResult } from "../results/run-index.ts";
import { RESULT_SCHEMA_ID, type ResultDocument } from "../results/types.ts";
import { checkDataDir } from "./folders.ts";
import { testbedId, type Figure, type ReducedResult, type PoolMembership, type SeriesKey, type TestbedRef } from "./model.ts";

/**
 * One result document as the site keeps it, for its trend and its comparisons. Its chart's view of
 * it (`reducedResult`) is made when its trend is written, and dies young: kept beside it from the
 * loading on (an object, its values and an array per metric), it made a part's loading of the
 * five-year history 0.4 s of CPU slower, in the garbage collector that copies what survives.
 */
export interface SiteResult {
  readonly testbed: string;
  readonly series: SeriesKey;
  readonly scenarioVersion: number;
  /** The document without what no page reads (tools, verification, details but the calls by name), for comparisons. */
  readonly doc: ResultDocument;
}

/** What the data says about one testbed, for the methodology page. */
export interface TestbedFacts {
  readonly ref: TestbedRef;
  readonly environment: ResultDocument["environment"];
  readonly oses: Set<string>;
  readonly kernels: Set<string>;
  /** Tool name → versions seen. */
  readonly tools: Map<string, Set<string>>;
  readonly harnessCommits: Set<string>;
  readonly runs: Set<string>;
  readonly runtimes: Set<string>;
  results: number;
  first: string;
  last: string;
  /** The machine check of the latest run that recorded one. */
  machine: { readonly check: NonNullable<ResultDocument["environment"]["machine"]>; readonly at: string } | null;
}

export interface LoadedData {
  readonly results: SiteResult[];
  readonly testbeds: Map<string, TestbedFacts>;
  /** Files below the data folder that are not result documents, with the reason. */
  readonly skipped: string[];
}

/** 10 ** n for the digits `rounded` shifts by (figures from 1e-17 to 1e22), computed once rather than for each of millions of figures. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, n) => 10 ** n);
const powerOfTen = (n: number) => POWERS_OF_TEN[n] ?? 10 ** n;

/** Six significant digits: what a chart or a table can show, at a third of the bytes. */
function rounded(value: number): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  // What Number(value.toPrecision(6)) gives, without a string for each of millions of figures.
  const digits = 5 - Math.floor(Math.log10(Math.abs(value)));
  return digits >= 0 ? Math.round(value * powerOfTen(digits)) / powerOfTen(digits) : Math.round(value / powerOfTen(-digits)) * powerOfTen(-digits);
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0]!;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** A result as its trend's chart shows it. */
export function reducedResult(doc: ResultDocument): ReducedResult {
  const values: Record<string, Figure> = {};
  if (doc.status === "ok") {
    for (const name in doc.metrics) {
      const metric = doc.metrics[name]!;
      values[name] = [rounded(metric.median), rounded(metric.ci95[0]), rounded(metric.ci95[1]), metric.samples.length];
    }
  }
  const { runtime, run, status, reproduce } = doc;
  // Two literals, not a spread of the error, nor Object.entries above: with the powers of ten, 16,778 results took 23-25 ms instead of 41-44.
  return status !== "ok" && doc.error
    ? { runtime: runtime.name, version: runtime.version, started_at: run.started_at, run: run.id, profile: run.profile, status, error: firstLine(doc.error), reproduce, values }
    : { runtime: runtime.name, version: runtime.version, started_at: run.started_at, run: run.id, profile: run.profile, status, reproduce, values };
}

function noteTestbed(testbeds: Map<string, TestbedFacts>, id: string, doc: ResultDocument): void {
  let facts = testbeds.get(id);
  if (!facts) {
    const env = doc.environment;
    facts = {
      // Its pool is known later (`placeInPools`).
      ref: { id, runner: doc.run.runner, kind: doc.run.runner_kind, arch: env.arch, fingerprint: env.fingerprint, cpu_model: env.cpu_model, pool: null },
      environment: env,
      oses: new Set(),
      kernels: new Set(),
      tools: new Map(),
      harnessCommits: new Set(),
      runs: new Set(),
      runtimes: new Set(),
      results: 0,
      first: doc.run.started_at,
      last: doc.run.started_at,
      machine: null,
    };
    testbeds.set(id, facts);
  }
  facts.oses.add(doc.environment.os);
  facts.kernels.add(doc.environment.kernel);
  for (const tool in doc.tools) {
    let versions = facts.tools.get(tool);
    if (!versions) facts.tools.set(tool, (versions = new Set()));
    versions.add(doc.tools[tool]!);
  }
  facts.harnessCommits.add(doc.run.harness_commit);
  facts.runs.add(doc.run.id);
  facts.runtimes.add(doc.runtime.name);
  facts.results += 1;
  if (doc.run.started_at < facts.first) facts.first = doc.run.started_at;
  if (doc.run.started_at > facts.last) facts.last = doc.run.started_at;
  const check = doc.environment.machine;
  if (check && (!facts.machine || doc.run.started_at > facts.machine.at)) facts.machine = { check, at: doc.run.started_at };
}

/**
 * Shares the parts many documents have in common (the machine's environment, the run, the runtime),
 * so that 100,000 documents kept for comparisons cost a fraction of their parsed size.
 */
class Interner {
  private readonly environments = new Map<string, ResultDocument["environment"]>();
  private readonly runs = new Map<string, ResultDocument["run"]>();
  private readonly runtimes = new Map<string, ResultDocument["runtime"]>();

  private static shared<T>(map: Map<string, T>, key: string, value: T): T {
    const known = map.get(key);
    if (known) return known;
    map.set(key, value);
    return value;
  }

  /** The document with what comparisons read (no tools, verification or details but the calls by name), its common parts shared. */
  compact(doc: ResultDocument): ResultDocument {
    const env = doc.environment;
    // The label and sequential plan choose a paired row's rule and level; the calls by name explain a calls total's change.
    const calls = profileOf(doc);
    return {
      schema: doc.schema,
      run: Interner.shared(this.runs, `${doc.run.runner}/${doc.run.id}/${doc.run.trials}`, doc.run),
      environment: Interner.shared(this.environments, `${env.fingerprint}/${env.os}/${env.kernel}/${env.loopback_mtu}`, env),
      runtime: Interner.shared(this.runtimes, `${doc.runtime.name}@${doc.runtime.version}/${doc.runtime.sha256}`, doc.runtime),
      suite: doc.suite,
      scenario: doc.scenario,
      scenario_version: doc.scenario_version,
      app: doc.app,
      params: doc.params,
      status: doc.status,
      ...(doc.error !== undefined ? { error: doc.error } : {}),
      ...(doc.label !== undefined ? { label: doc.label } : {}),
      ...(doc.sequential !== undefined ? { sequential: doc.sequential } : {}),
      tools: {},
      metrics: doc.metrics,
      reproduce: doc.reproduce,
      ...(calls ? { details: { syscall_counts: calls } } : {}),
    };
  }
}

function toSiteResult(doc: ResultDocument, testbeds: Map<string, TestbedFacts>, interner: Interner): SiteResult {
  const testbed = testbedId(doc.run.runner, doc.environment.fingerprint);
  noteTestbed(testbeds, testbed, doc);
  return {
    testbed,
    series: { suite: doc.suite, scenario: doc.scenario, app: doc.app, params: paramsSlug(doc.params) },
    scenarioVersion: doc.scenario_version,
    doc: interner.compact(doc),
  };
}

/** Every result below the data folder, or below the given runners' folders, one run's index at a time. */
function* runnersResults(dataDir: string, runners: readonly string[] | undefined): Generator<IndexedResult> {
  if (runners === undefined) yield* indexedResults(dataDir);
  else for (const runner of runners) yield* indexedResults(dataDir, runner);
}

/**
 * Places each dedicated testbed in its runner's pool, if it belongs to one: `pools` names the pool
 * of each dedicated runner in one, by runner name. Apart from the loading, so that a site build's
 * parts load while the build reads the pools (.github/bench-runners.json, checked against every suite).
 */
export function placeInPools(testbeds: ReadonlyMap<string, TestbedFacts>, pools: ReadonlyMap<string, PoolMembership>): void {
  for (const { ref } of testbeds.values()) ref.pool = ref.kind === "dedicated" ? (pools.get(ref.runner) ?? null) : null;
}

/**
 * Reads every result document below `dataDir` (or below the folders of the given runners), through
 * the run index; no testbed is placed in a pool yet (`placeInPools`).
 */
export function loadResults(dataDir: string, runners?: readonly string[]): LoadedData {
  checkDataDir(dataDir);
  const results: SiteResult[] = [];
  const testbeds = new Map<string, TestbedFacts>();
  const skipped: string[] = [];
  const interner = new Interner();
  for (const { path, doc } of runnersResults(dataDir, runners)) {
    if (doc === null) {
      skipped.push(`${path}: not valid JSON, or not a complete ${RESULT_SCHEMA_ID} document (scripts/bench validate names what is wrong)`);
      continue;
    }
    if (doc.label === CANARY_LABEL) {
      skipped.push(`${path}: a canary build, judged against its release on the regressions page, never a point of a release's trend`);
      continue;
    }
    if (doc.environment?.emulated) {
      skipped.push(`${path}: emulated (${doc.environment.emulated.emulator}), never published`);
      continue;
    }
    try {
      results.push(toSiteResult(doc, testbeds, interner));
    } catch {
      // Schema checking all 100,000 files would double the build; `scripts/bench validate` does it.
      skipped.push(`${path}: not a complete result document (scripts/bench validate names what is wrong)`);
    }
  }
  return { results, testbeds, skipped };
}
