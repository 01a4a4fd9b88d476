/**
 * A run through the real orchestrator that is interrupted while it asks its tools' versions, before
 * it has made its work folder: run as a process of its own (its interrupt handling exits the
 * process), with a TMPDIR the test then looks into. Prints whether the run says it was interrupted.
 */
import { installInterruptHandling } from "../../src/process/children.ts";
import { defineSuite } from "../../src/suites/suite.ts";
import { fakeRun, fakeScenario } from "./fake-run.ts";

installInterruptHandling();
const suite = defineSuite<Record<string, never>, { trials: number }>({
  name: "startup",
  metrics: { wall_ms: { unit: "ms", better: "lower" } },
  profiles: { quick: { trials: 1 }, full: { trials: 1 } },
  tools: [
    {
      name: "interrupting-tool",
      version: async () => {
        process.kill(process.pid, "SIGINT");
        // The signal is taken before the version is: the work folder is made after the interrupt.
        await new Promise((resolve) => setTimeout(resolve, 100));
        return "1";
      },
    },
  ],
  start: () => ({
    subjects: (scenario, runtime) => [{ scenario, runtime, app: null, params: {}, flags: [] }],
    check: async () => ({ status: "ok" }),
    trial: async () => ({ samples: { wall_ms: [10] } }),
    close: async () => {},
  }),
});
const outcome = await fakeRun([{ suite, scenario: fakeScenario(suite, "one", 1) }]);
process.stdout.write(`interrupted: ${outcome.interrupted}, results: ${outcome.results.length}\n`);
process.exit(130);
