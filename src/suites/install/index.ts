import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appOption, listingOf } from "../../apps/manifest.ts";
import { UserError } from "../../core/errors.ts";
import { TASKSET_TOOL } from "../../tools/cpu-split.ts";
import { GNU_TIME_TOOL } from "../../tools/gnu-time.ts";
import { HYPERFINE_TOOL } from "../../tools/hyperfine.ts";
import { defineSuite } from "../suite.ts";
import { STRACE_TOOL } from "../../tools/strace.ts";
import { check } from "./check.ts";
import { waitForFreedInodes } from "./freed-inodes.ts";
import { countedIn, countInstalls, countSeconds, INSTALL_COUNT_METRICS } from "./counts.ts";
import { STATES, installManagers, loadManagers, type InstallState, type Manager } from "./managers.ts";
import { cellsOf, type InstallConfig, type InstallOptions, type InstallProfile, type InstallScenario } from "./manifest.ts";
import { closeSession, openSession, subjects } from "./session.ts";
import { finish, trial } from "./trial.ts";

/** The packages of a fixture, from its committed npm lockfile (none when it has none yet: its cells then fail at once). */
function lockedPackages(scenario: InstallScenario): number {
  const lockfile = join(scenario.dir, "package-lock.json");
  if (!existsSync(lockfile)) return 0;
  const lock = JSON.parse(readFileSync(lockfile, "utf8")) as { packages?: Record<string, unknown> };
  return Object.keys(lock.packages ?? {}).filter((path) => path !== "").length;
}

/**
 * One install of a fixture: a manager's start, then a cost per package that depends on the
 * state, for a manager written in JavaScript and run by Node (npm, pnpm, Yarn) and for one built
 * into its runtime (bun, deno). Fitted to the medians of a quick run of `small` (77 packages) on
 * the shared 2-core machine: `repeat`, which installs nothing, gives the start. The install
 * suite's earlier figures (a busier machine; docs/measurements.json, "install-quick") made an estimate 31 % above that run's 272 s; these are the
 * run's own, and `webapp` (553 packages) is extrapolated from them.
 */
const START_S = { script: 1, builtin: 0.07 };
const PACKAGE_S: Record<InstallState, { script: number; builtin: number }> = {
  clean: { script: 0.037, builtin: 0.014 },
  cache: { script: 0.026, builtin: 0.0033 },
  lockfile: { script: 0.029, builtin: 0.012 },
  "cache+lockfile": { script: 0.017, builtin: 0.0009 },
  repeat: { script: 0.001, builtin: 0 },
};
/**
 * Around each timed install: hyperfine, the state's preparation (setting the last tree aside, copying
 * the warm cache, sync), reading the tree back. What that run left per timed install once its
 * installs, priming and the harness's start were taken out.
 */
const TIMED_INSTALL_S = 1.2;

/**
 * Package installs by npm, pnpm and Yarn (run by the Node under test), bun install and deno
 * install, each in five named states prepared outside the timed region, against a local verdaccio
 * primed before timing. Every timed install is verified; a broken tree fails the subject.
 */
export const installSuite = defineSuite<InstallConfig, InstallProfile, InstallOptions>({
  name: "install",
  metrics: {
    wall_ms: { unit: "ms", better: "lower" },
    peak_rss_mb: { unit: "MB", better: "lower" },
    /** User plus system CPU seconds of the install, its children included. */
    cpu_s: { unit: "s", better: "lower" },
    ...INSTALL_COUNT_METRICS,
  },
  profiles: {
    quick: { trials: 3, runs: 1, states: [...STATES] },
    full: { trials: 3, runs: 1, states: [...STATES] },
  },
  tools: [HYPERFINE_TOOL, GNU_TIME_TOOL, TASKSET_TOOL, STRACE_TOOL],
  options: {
    app: appOption("install"),
    registry: { help: "install: 'local' (default: a verdaccio on loopback, primed before timing) or 'upstream' (the registry npm is configured with)" },
  },
  // Each runtime's own manager on the small fixture: pnpm, Yarn and webapp are measured by `run` and the profiles.
  defaultRun: { scenarios: ["small"], options: { app: ["npm", "bun", "deno"] } },
  parseOptions(raw) {
    const registry = raw.registry ?? [];
    if (registry.length > 1) throw new UserError("--registry may be given once");
    const chosen = registry[0] ?? "local";
    if (chosen !== "local" && chosen !== "upstream") throw new UserError(`--registry must be 'local' or 'upstream', not '${chosen}'`);
    return { apps: raw.app ?? [], registry: chosen };
  },

  async prepare(note) {
    await installManagers(loadManagers(), note);
  },

  estimate(scenario, runtime, options, keeps) {
    const { trials, runs } = scenario.profileParams;
    const packages = lockedPackages(scenario);
    const installS = (manager: Manager, state: InstallState) => {
      const kind = manager.manifest.runtimes[runtime]?.entry === undefined ? "builtin" : "script";
      return START_S[kind] + packages * PACKAGE_S[state][kind];
    };
    const cells = cellsOf(scenario, runtime, loadManagers(), options).filter(({ params }) => keeps(params));
    // Before its states, each manager primes the registry with two untimed installs (no lockfile, then the lockfile); `repeat` installs once more untimed.
    const managers = new Set(cells.map((cell) => cell.manager));
    const primingS = [...managers].reduce((sum, manager) => sum + installS(manager, "clean") + installS(manager, "lockfile"), 0);
    const cellS = ({ manager, state }: (typeof cells)[number]) =>
      (state === "repeat" ? installS(manager, "cache+lockfile") : 0) + trials * runs * (TIMED_INSTALL_S + installS(manager, state));
    const countingSeconds = cells.reduce((sum, { manager, state }) => sum + (countedIn(scenario, state) ? countSeconds(trials, TIMED_INSTALL_S + installS(manager, state)) : 0), 0);
    return { cells: cells.length, seconds: primingS + cells.reduce((sum, cell) => sum + cellS(cell), 0) + countingSeconds, countingSeconds };
  },

  listApps() {
    return listingOf(loadManagers());
  },

  start(context) {
    const session = openSession(context);
    return {
      subjects: (scenario, runtime) => subjects(session, scenario, runtime),
      check: (subject) => check(session, subject),
      settle: () => waitForFreedInodes(session.context.workDir, session.settleS, session.context.log),
      trial: (subject, trialIndex) => trial(session, subject, trialIndex),
      count: (subject) => countInstalls(session, subject),
      finish: (subject) => finish(session, subject),
      close: () => closeSession(session),
    };
  },
});
