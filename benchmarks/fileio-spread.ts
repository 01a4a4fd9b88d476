/**
 * How steady are the file I/O figures on this machine? For read-many and read-large, every app on
 * every runtime runs 5 interleaved trials (subjects rotated each round, exactly the suite's own
 * check() and trial(), so the data, digests and processes are what `scripts/bench run` uses) and
 * this prints, per subject, the spread (max/min) of wall_ms: of the 5 trials' medians, and of every
 * timed iteration.
 *
 *   scripts/benchmark fileio-spread [--runtime SPEC]... [--profile quick|full] [--trials N]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { rotate } from "../src/orchestrate/order.ts";
import { installInterruptHandling } from "../src/process/children.ts";
import { suiteProfileOf, type Profile } from "../src/results/types.ts";
import { prepareRuntimes } from "../src/runtimes/prepare.ts";
import { selectScenarios } from "../src/scenarios/select.ts";
import { median } from "../src/stats/summary.ts";
import { fileioSuite, type FileioConfig, type FileioProfile } from "../src/suites/fileio/index.ts";
import { resolveScenarios } from "../src/suites/resolve.ts";
import type { Subject, SuiteScenario } from "../src/suites/suite.ts";
import { formatTable } from "../src/ui/table.ts";

const { values } = parseArgs({ options: { runtime: { type: "string", multiple: true }, profile: { type: "string" }, trials: { type: "string" } } });
const specs = values.runtime ?? ["node@22.11.0", "bun@1.2.0", "deno@2.1.4"];
const profile = (values.profile ?? "quick") as Profile;
const TRIALS = Number(values.trials ?? 5);

const workDir = await mkdtemp(join(tmpdir(), "fileio-spread-"));
const session = fileioSuite.start({ profile, workDir, log: (line) => process.stderr.write(`${line}\n`), options: { apps: [] } });
installInterruptHandling(async () => {
  await session.close?.();
  await rm(workDir, { recursive: true, force: true });
});
const runtimes = await prepareRuntimes(specs, (line) => process.stderr.write(`${line}\n`));
const label = (subject: Subject) =>
  `${subject.scenario.name} ${subject.app} ${Object.entries(subject.params).map(([k, v]) => `${k}=${String(v)}`).join(" ")} ${subject.runtime.identity.name}@${subject.runtime.identity.version}`;
const spread = (samples: readonly number[]) => (Math.max(...samples) / Math.min(...samples)).toFixed(2);

try {
  const rows: string[][] = [];
  // One scenario at a time, as a run goes: the suite keeps only the current scenario's data.
  for (const { scenario } of resolveScenarios(selectScenarios({ suites: ["fileio"], scenarios: ["read-many", "read-large"] }), profile)) {
    // The registry erases a suite's types; this benchmark knows it drives the file I/O suite.
    const typed = scenario as SuiteScenario<FileioConfig, FileioProfile>;
    const subjects = runtimes.flatMap((runtime) => session.subjects(typed, runtime));
    for (const subject of subjects) {
      const checked = await session.check(subject);
      if (checked.status !== "ok") throw new Error(`${label(subject)}: ${checked.error}`);
    }
    const trialMedians = new Map<Subject, number[]>(subjects.map((s) => [s, []]));
    const iterations = new Map<Subject, number[]>(subjects.map((s) => [s, []]));
    for (let trial = 0; trial < TRIALS; trial++) {
      for (const subject of rotate(subjects, trial)) {
        process.stderr.write(`trial ${trial + 1}/${TRIALS} ${label(subject)}\n`);
        const wall = (await session.trial(subject, trial)).samples.wall_ms!;
        trialMedians.get(subject)!.push(median(wall));
        iterations.get(subject)!.push(...wall);
      }
    }
    for (const subject of subjects) {
      const medians = trialMedians.get(subject)!;
      rows.push([label(subject), median(medians).toFixed(1), spread(medians), spread(iterations.get(subject)!), medians.map((v) => v.toFixed(1)).join(" ")]);
    }
  }
  const shape = fileioSuite.profiles[suiteProfileOf(profile)];
  process.stdout.write(
    `fileio spread: ${TRIALS} interleaved trials, ${profile} profile (${shape.files} files of ${shape.file_bytes} B, ${shape.large_mib} MiB, ` +
      `${shape.warmup} warm-up and ${shape.iterations} timed iterations a trial), warm cache, ${new Date().toISOString().slice(0, 10)}\n\n`,
  );
  process.stdout.write(`${formatTable(["subject", "wall_ms (median of trial medians)", "spread of trial medians (max/min)", "spread of all iterations (max/min)", "trial medians (ms)"], rows)}\n`);
} finally {
  await session.close?.();
  await rm(workDir, { recursive: true, force: true });
}
process.exit(0);
