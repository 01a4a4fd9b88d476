import { appendFileSync, copyFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { provision } from "../../src/runtimes/provision.ts";

/** Two subjects of one run that run the same code: a runtime's name and the paths of its two copies. */
export interface Twins {
  readonly runtime: string;
  readonly a: string;
  readonly b: string;
}

/**
 * Two copies of a runtime's binary under `work` that differ only in a marker after its end: the
 * harness takes them for two builds (it refuses one binary twice), and they run exactly the same
 * code. `--runtime a=NAME@path:A --runtime b=NAME@path:B` measures them side by side.
 */
export async function twins(spec: string, work: string, marker: string): Promise<Twins> {
  const { binary, spec: parsed } = await provision(spec);
  const copy = (name: string) => {
    const dir = join(work, `${parsed.name}-${name}`);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, basename(binary));
    copyFileSync(binary, path);
    appendFileSync(path, `runtime-bench ${marker} twin ${name}`);
    return path;
  };
  return { runtime: parsed.name, a: copy("a"), b: copy("b") };
}

/** The `run` arguments that measure the twins side by side, labelled a and b. */
export const twinArgs = (twin: Twins): string[] => ["--runtime", `a=${twin.runtime}@path:${twin.a}`, "--runtime", `b=${twin.runtime}@path:${twin.b}`];
