import { machine } from "node:os";
import { once } from "../core/once.ts";
import { runCommand, tail } from "../process/children.ts";

/**
 * A counted run lays out its memory the same way every time, as every run does on a tuned runner
 * (`kernel.randomize_va_space = 0`, docs/machine-tuning.md), whatever the machine's own setting:
 * `setarch ARCH -R` gives the one process tree the personality ADDR_NO_RANDOMIZE, without root and
 * without touching the machine. With the layout random, a start's page faults move with where its
 * mappings fall (docs/methodology.md, "Counts", gives the figures). It wraps the counting tool
 * (GNU time, strace), never the program, so setarch's own faults and calls are counted nowhere.
 */
export interface Layout {
  /** What runs the counting tool: empty where the layout cannot be fixed. */
  readonly prefix: readonly string[];
  /** How the counted runs were laid out, for the result's details. */
  readonly detail: string;
}

const probes = new Map<string, Promise<Layout>>();

/** Whether this machine lets a process fix its layout (a container's seccomp profile may refuse it); asked once per process. */
export function countedLayout(): Promise<Layout> {
  return once(probes, "setarch", async () => {
    const prefix = ["setarch", machine(), "-R"];
    const probe = await runCommand(prefix[0]!, [...prefix.slice(1), "true"], { timeoutMs: 10_000 });
    if (probe.code === 0) return { prefix, detail: "fixed (setarch -R)" };
    const said = probe.spawnError ?? (tail(probe.stderr, 1) || `exit code ${probe.code}`);
    return { prefix: [], detail: `setarch -R failed (${said}): counted with the address layout random` };
  });
}
