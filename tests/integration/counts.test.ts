/**
 * The counting pass with real runtimes and a real strace: what a start, a server and an in-process
 * app are counted at, that counts are metrics with trials of their own, and that `compare` of a
 * build that makes one more call names it. Quick profile, short runs. The startup suite's own checks
 * of every scenario and the http suite's of native json on the pinned runtimes read the same runs
 * (tests/integration/startup.test.ts and http-run.test.ts have the rest of those suites'), so
 * startup/hello's starts and counts are not made twice: hello and json in the quick profile, which
 * counts them, and the other startup scenarios in the smoke one (one trial: do they run on each).
 */
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { bench, PINNED, tempDir } from "../../benchmarks/lib/cli.ts";
import { oneOffPlan } from "../../src/compare/sequential.ts";
import type { ExplainedRow } from "../../src/compare/syscall-diff.ts";
import { readResults } from "../../src/results/store.ts";
import type { ResultDocument } from "../../src/results/types.ts";
import { provision } from "../../src/runtimes/provision.ts";
import { selectScenarios } from "../../src/scenarios/select.ts";
import { resolveScenarios } from "../../src/suites/resolve.ts";
import { parseCpuList } from "../../src/tools/cpu-split.ts";
import { SCHEDULING_SYSCALLS, type SyscallProfile } from "../../src/tools/strace.ts";

const profileOf = (doc: ResultDocument) => doc.details?.syscall_counts as SyscallProfile | undefined;

/** A count metric: its samples, `perTrial` to each trial of its own (a startup trial of counts holds three starts). */
function counted(doc: ResultDocument, metric: string, perTrial = 1): number[] {
  const summary = doc.metrics[metric];
  assert.ok(summary, `${doc.runtime.name} ${doc.suite}/${doc.scenario}: no ${metric} (unavailable: ${JSON.stringify(doc.details?.counts_unavailable)})`);
  assert.deepEqual(summary.trial_samples, Array.from({ length: summary.samples.length / perTrial }, () => perTrial), `${metric}: ${perTrial} sample(s) a trial`);
  assert.equal(summary.exact ?? false, metric !== "rss_growth_mb_per_10k", `${metric} says whether the kernel keeps it exactly`);
  return summary.samples;
}

/** Each startup scenario's quick profile: the suite's, with the manifest's overrides (read-text runs fewer starts per trial). */
const startupProfiles = new Map(resolveScenarios(selectScenarios({ suites: ["startup"], scenarios: [] }), "quick").map((s) => [s.scenario.name, s.scenario.profileParams]));

interface PinnedRun {
  readonly docs: ResultDocument[];
  /** The quick run's summary table. */
  readonly stdout: string;
  /** What `validate` said of the runs' folder. */
  readonly validated: string;
}

/** startup/hello and http/json (native) quick, then the other startup scenarios smoke, on the pinned runtimes: run once, on first use, validated. */
let pinnedRun: Promise<PinnedRun> | undefined;
function pinnedRunOnce(): Promise<PinnedRun> {
  pinnedRun ??= (async () => {
    const out = tempDir("counts-run");
    const runtimes = PINNED.flatMap((spec) => ["--runtime", spec]);
    const scenarioArgs = (names: string[]) => names.flatMap((name) => ["--scenario", name]);
    const quick = await bench(["run", "--suite", "startup", "--suite", "http", ...scenarioArgs(["startup/hello", "http/json"]), "--app", "native", ...runtimes, "--profile", "quick", "--out", out]);
    assert.equal(quick.code, 0, quick.stderr);
    const others = [...startupProfiles.keys()].filter((name) => name !== "hello").map((name) => `startup/${name}`);
    const smoke = await bench(["run", "--suite", "startup", ...scenarioArgs(others), ...runtimes, "--profile", "smoke", "--out", out]);
    assert.equal(smoke.code, 0, smoke.stderr);
    const validation = await bench(["validate", out]);
    assert.equal(validation.code, 0, validation.stderr);
    return { docs: readResults([out]).map((r) => r.doc), stdout: quick.stdout, validated: validation.stdout };
  })();
  return pinnedRun;
}

/** The pinned run's startup/hello and http/json: the cells its counts are checked on. */
const pinnedRunDocs = async () => (await pinnedRunOnce()).docs.filter((doc) => doc.suite === "http" || doc.scenario === "hello");

describe("counts", () => {
  it("counts a start and a server under load on node, deno and bun, apart from their timed trials", async () => {
    const docs = await pinnedRunDocs();
    assert.equal(docs.length, 6);
    for (const doc of docs) {
      const where = `${doc.suite}/${doc.scenario} on ${doc.runtime.name}`;
      assert.equal(doc.status, "ok", `${where}: ${doc.error}`);
      assert.equal(doc.details?.counts_unavailable, undefined, where);
      const profile = profileOf(doc)!;
      assert.ok(profile, `${where}: calls by name`);
      assert.ok(!Object.keys(profile.calls).some((name) => SCHEDULING_SYSCALLS.has(name)), `${where}: scheduling calls apart`);
      if (doc.suite === "startup") {
        assert.equal(profile.per, "start");
        assert.equal(doc.details?.counted_layout, "fixed (setarch -R)", `${where}: counted starts lay out memory as a tuned runner does`);
        const calls = counted(doc, "syscalls", 3);
        // Quick's three trials: two trials of counts, each three starts under strace, checked like timed ones.
        assert.equal(calls.length, 6, where);
        assert.ok(calls.every((n) => n > 100 && n < 5000), `${where}: ${calls}`);
        const sum = Object.values(profile.calls).reduce((total, values) => total + values[0]!, 0);
        assert.equal(sum, calls[0], `${where}: the total is the calls by name of its run`);
        assert.ok(counted(doc, "path_syscalls", 3).every((n) => n > 5 && n < calls[0]!), where);
        // Deno's own cache databases in DENO_DIR, read at every start, are counted apart; the others name no cache folder.
        if (doc.runtime.name === "deno") assert.ok(Object.values(profile.cache ?? {}).reduce((total, values) => total + values[0]!, 0) > 10 && (profile.cache?.pread64?.[0] ?? 0) > 0, `${where}: ${JSON.stringify(profile.cache)}`);
        else assert.equal(profile.cache, undefined, where);
        // And three starts under GNU time each: how far a start's threads got moves its faults.
        assert.equal(counted(doc, "minor_faults", 3).length, 6, `${where}: three starts under GNU time a trial`);
        assert.ok(counted(doc, "minor_faults", 3).every((n) => n > 100), where);
        assert.ok(counted(doc, "threads", 3).every((n) => n >= 1), where);
        assert.ok(counted(doc, "binary_mb").every((mb) => mb > 10), where);
        assert.ok(counted(doc, "package_mb")[0]! >= counted(doc, "binary_mb")[0]!, `${where}: the package holds the binary`);
      } else {
        assert.equal(profile.per, "request");
        // Quick's two trials: one counted window of 800 requests; at least a read and a write each.
        const perRequest = counted(doc, "syscalls_per_request");
        assert.ok(perRequest.every((n) => n >= 1.5 && n < 20), `${where}: ${perRequest}`);
        assert.ok(counted(doc, "server_threads").every((n) => n >= 1), where);
        assert.ok(counted(doc, "server_fds").every((n) => n >= 3), where);
        assert.equal(counted(doc, "rss_growth_mb_per_10k").length, perRequest.length);
      }
      // The timed metrics keep their trials: the counting pass added none.
      assert.equal(doc.metrics[doc.suite === "startup" ? "wall_ms" : "rps"]!.trial_samples!.length, doc.run.trials, where);
    }
  });

  it("names the call a build adds: one more fs.statSync per start is a higher count of path lookups, and compare says statx", async () => {
    const work = tempDir("counts-statx");
    const node = (await provision("node@22.11.0")).binary;
    const wrapper = (name: string, preload: string) => {
      writeFileSync(join(work, `${name}.cjs`), preload);
      const path = join(work, name);
      writeFileSync(path, `#!/bin/sh\nexec ${node} --require ${join(work, `${name}.cjs`)} "$@"\n`);
      chmodSync(path, 0o755);
      return path;
    };
    const a = wrapper("a", 'require("node:fs");\n');
    const b = wrapper("b", 'require("node:fs").statSync(__filename);\n');
    const out = join(work, "out");
    const run = await bench(["run", "--suite", "startup", "--scenario", "hello", "--profile", "quick", "--trial-budget", "0", "--runtime", `a=node@path:${a}`, "--runtime", `b=node@path:${b}`, "--out", out]);
    assert.equal(run.code, 0, run.stderr);
    const [dir] = readResults([out]).map((r) => r.path.split("/").slice(0, -3).join("/"));
    const table = await bench(["compare", dir!, "--base", "a", "--head", "b"]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /path_syscalls .* higher \(worse\)/, "a count is higher, not slower");
    assert.match(table.stdout, /startup\/hello path_syscalls, a → b: \+1 statx per start/);
    const json = await bench(["compare", dir!, "--base", "a", "--head", "b", "--json"]);
    const rows = JSON.parse(json.stdout) as ExplainedRow[];
    const path = rows.find((row) => row.metric === "path_syscalls")!;
    assert.equal(path.verdict, "slower");
    assert.deepEqual(path.syscall_changes?.changes[0], { name: "statx", base: path.syscall_changes!.changes[0]!.base, head: path.syscall_changes!.changes[0]!.base + 1, change: 1, certain: true });
    assert.equal(rows.find((row) => row.metric === "wall_ms")!.syscall_changes, undefined, "a time is not explained by calls");
  });

  it("counts an in-process app's calls per unit beyond its one-iteration baseline", async () => {
    const out = tempDir("counts-fileio");
    const run = await bench(["run", "--suite", "fileio", "--scenario", "read-many", "--app", "native", "--runtime", "node@22.11.0", "--profile", "quick", "--out", out]);
    assert.equal(run.code, 0, run.stderr);
    const [doc] = readResults([out]).map((r) => r.doc);
    assert.equal(doc!.status, "ok", doc!.error);
    const profile = profileOf(doc!)!;
    assert.equal(profile.per, "file");
    assert.equal(doc!.metrics.syscalls_per_op!.unit, "calls/file");
    // Each file is opened and closed once in every counted run; the start and the verification are the baseline's.
    for (const call of ["openat", "close"]) assert.ok(profile.calls[call]!.every((n) => Math.abs(n - 1) < 0.05), `${call}: ${profile.calls[call]}`);
    // Its reads and writes also carry the event loop's wake-ups (an eventfd read and write each), which timing
    // decides and the baseline's run may have had more of (docs/methodology.md, "Counts"): node 22.11.0 made
    // 2.86 calls a file beyond the baseline once, and data/ holds 4.0 to 6.1 for node 20 to 26.
    assert.ok(counted(doc!, "syscalls_per_op").every((n) => n >= 2 && n < 10), String(doc!.metrics.syscalls_per_op!.samples));
  });
});

describe("startup suite on real runtimes", () => {
  it("measures every scenario on node, bun and deno, interleaved, with valid results (hello quick, the others smoke)", async () => {
    const run = await pinnedRunOnce();
    const docs = run.docs.filter((doc) => doc.suite === "startup");
    assert.ok(startupProfiles.size >= 5, `${startupProfiles.size} startup scenarios`);
    assert.equal(docs.length, 3 * startupProfiles.size, `3 runtimes × ${startupProfiles.size} scenarios`);
    for (const doc of docs) {
      const where = `${doc.scenario} on ${doc.runtime.name}`;
      assert.equal(doc.status, "ok", `${where}: ${doc.error}`);
      assert.equal(doc.run.runner_kind, "local");
      assert.match(doc.run.runner, /^local-/);
      assert.equal(doc.run.profile, doc.scenario === "hello" ? "quick" : "smoke", where);
      const { trials: quickTrials, runs } = startupProfiles.get(doc.scenario)! as { trials: number; runs: number };
      const trials = doc.run.profile === "smoke" ? 1 : doc.run.trials;
      if (doc.run.profile !== "smoke") assert.ok(oneOffPlan(quickTrials, "quick").looks.includes(trials), `${where}: ${trials} trials, at a look of runtimes side by side`);
      assert.equal(doc.metrics.wall_ms!.samples.length, trials * runs, `${where}: ${trials} trials × ${runs} runs`);
      assert.ok(doc.metrics.wall_ms!.median > 1 && doc.metrics.wall_ms!.median < 5000, `${where}: plausible wall time`);
      assert.ok(doc.metrics.peak_rss_mb!.median > 5, `${where}: plausible peak RSS`);
      assert.equal(doc.metrics.cpu_s!.samples.length, trials, `${where}: one CPU time per trial`);
      assert.ok(doc.metrics.cpu_s!.median > 0, `${where}: CPU time`);
      if (doc.environment.machine!.perf_counters.readable) assert.equal((doc.details?.instructions_trial_1 as number[]).length, 3, where);
      else assert.match(String(doc.details?.instructions), /^unavailable: /, `${where}: instructions never a number where they cannot be counted`);
      const [lo, hi] = doc.metrics.wall_ms!.ci95;
      assert.ok(lo <= doc.metrics.wall_ms!.median && doc.metrics.wall_ms!.median <= hi);
      assert.match(doc.runtime.sha256, /^[0-9a-f]{64}$/);
      assert.match(doc.tools.hyperfine!, /^\d+\.\d+/);
    }
    const byName = new Map(docs.map((d) => [d.runtime.name, d.runtime]));
    assert.equal(byName.get("node")?.version, "22.11.0");
    assert.match(byName.get("node")!.engine, /^V8 12\./);
    assert.equal(byName.get("bun")?.version, "1.2.0");
    assert.match(byName.get("bun")!.engine, /^JavaScriptCore /);
    assert.equal(byName.get("deno")?.version, "2.1.4");
    assert.match(run.stdout, /^scenario\s+headline\s+node@22\.11\.0\s+bun@1\.2\.0\s+deno@2\.1\.4\s+vs best/m, "the runtimes side by side");
    assert.match(run.stdout, /^startup\/hello\s+wall_ms \(lower\)\s+\S+ ms\s+\S+ ms\s+\S+ ms\s+\w+ best; /m, "one line per scenario");
    assert.match(run.stdout, /^time per suite: startup /m);
    assert.match(run.validated, new RegExp(`${run.docs.length} result files checked, 0 problems`));
  });
});

describe("http suite on real runtimes", () => {
  it("measures native json on node, bun and deno with oha: verified, pinned, valid results", async () => {
    const docs = (await pinnedRunDocs()).filter((doc) => doc.suite === "http");
    assert.deepEqual(docs.map((d) => d.runtime.name).sort(), ["bun", "deno", "node"]);
    for (const doc of docs) {
      const where = `native on ${doc.runtime.name}`;
      assert.equal(doc.status, "ok", `${where}: ${doc.error}`);
      assert.equal(doc.app, "native");
      assert.deepEqual(doc.params, { connections: 10, keepalive: true, rate: 1000 });
      assert.ok(oneOffPlan(2, "quick").looks.includes(doc.run.trials), `${where}: ${doc.run.trials} trials, at a look of runtimes side by side`);
      assert.equal(doc.metrics.rps!.samples.length, doc.run.trials, `${where}: one sample per trial`);
      assert.ok(doc.metrics.rps!.median > 100, `${where}: plausible throughput`);
      assert.ok(doc.metrics.latency_p99_ms!.median > 0);
      assert.ok(doc.metrics.latency_p50_ms!.median <= doc.metrics.latency_p999_ms!.median);
      assert.equal(doc.metrics.success_rate!.median, 1);
      assert.ok(doc.metrics.server_peak_rss_mb!.median > 5);
      assert.match(doc.tools.oha!, /^\d+\.\d+/);
      const verification = doc.verification as { status: string; responses: { headers: Record<string, string>; body_bytes: number }[] };
      assert.equal(verification.status, "passed");
      assert.match(verification.responses[0]!.headers["content-type"]!, /^application\/json/);
      assert.equal(verification.responses[0]!.body_bytes, 27, "the same bytes on every runtime: no compression");
      assert.equal((doc.verification as { before?: { status: string } }).before?.status, "passed", "the check before measuring is kept beside the one after");
      assert.equal(doc.details?.accept_encoding, "identity");
      assert.equal(doc.details?.keepalive, true);
      assert.equal(typeof doc.details?.client_bound, "boolean");
      if (doc.environment.cpus >= 2) {
        const split = doc.details?.cpu_split as { server: string; client: string };
        const server = parseCpuList(split.server);
        assert.ok(server.length === 1 || server.length === 2, "a single-process server gets one core (two CPUs with SMT)");
        assert.ok(!parseCpuList(split.client).some((cpu) => server.includes(cpu)), "oha runs on other CPUs");
      }
      assert.match(doc.reproduce, /--app native/);
    }
  });
});
