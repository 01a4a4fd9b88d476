import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { treePlan, writeInput } from "../../../apps/fileio/shared/data.js";
import { runCommand } from "../../process/children.ts";
import { checkLargeFile, checkSmallFiles, largeFileDigest, smallFilesDigest, treeDigest, type CheckDepth, type DataShape } from "./data.ts";

export const OPERATIONS = ["read-many", "write-many", "read-large", "write-large", "copy-large", "walk-tree"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** What one iteration of an operation moves: bytes (throughput_mb_s) or files and entries (ops_per_s). */
export interface Amount {
  readonly metric: "throughput_mb_s" | "ops_per_s";
  /** MB (10^6 bytes) or operations per iteration. */
  readonly perIteration: number;
}

interface OperationSpec {
  /** The parts of the data's shape this operation uses: what its results record. */
  readonly uses: readonly (keyof DataShape)[];
  /** The digest every app must report (the input itself is apps/fileio/shared/data.js's writeInput). */
  digest(shape: DataShape): string;
  /** The output file an app writes, inside its output folder, where it writes one. */
  readonly target?: string;
  /** Checks what a trial left in its output folder; null when right. */
  check?(output: string, shape: DataShape, depth: CheckDepth): Promise<string | null>;
  amount(shape: DataShape): Amount;
}

const megabytes = (shape: DataShape): Amount => ({ metric: "throughput_mb_s", perIteration: shape.large_bytes / 1e6 });
const largeDigest = (shape: DataShape) => largeFileDigest(shape.large_bytes);
const files = (shape: DataShape): Amount => ({ metric: "ops_per_s", perIteration: shape.files });

const SPECS: Record<Operation, OperationSpec> = {
  "read-many": {
    uses: ["files", "file_bytes"],
    digest: smallFilesDigest,
    amount: files,
  },
  "write-many": {
    uses: ["files", "file_bytes"],
    digest: smallFilesDigest,
    check: (output, shape, depth) => checkSmallFiles(output, shape, depth),
    amount: files,
  },
  "read-large": { uses: ["large_bytes"], digest: largeDigest, amount: megabytes },
  "write-large": {
    uses: ["large_bytes"],
    digest: largeDigest,
    target: "large.bin",
    check: (output, shape, depth) => checkLargeFile(join(output, "large.bin"), shape.large_bytes, depth),
    amount: megabytes,
  },
  "copy-large": {
    uses: ["large_bytes"],
    digest: largeDigest,
    target: "copy.bin",
    check: (output, shape, depth) => checkLargeFile(join(output, "copy.bin"), shape.large_bytes, depth),
    amount: megabytes,
  },
  "walk-tree": {
    uses: ["tree_packages"],
    digest: (shape) => treeDigest(treePlan(shape.tree_packages)),
    amount: (shape) => ({ metric: "ops_per_s", perIteration: treePlan(shape.tree_packages).length }),
  },
};

/** The app's params for the paths of one trial: `input` where the operation reads one, `output`, and `target` where it writes one file. */
export function trialPaths(operation: Operation, input: string | null, output: string): Record<string, string> {
  const target = SPECS[operation].target;
  return { output, ...(input ? { input } : {}), ...(target ? { target: join(output, target) } : {}) };
}

/** The digest every app must report for an operation on data of this shape. */
export const digestOf = (operation: Operation, shape: DataShape): string => SPECS[operation].digest(shape);

/** What one iteration of an operation moves with data of this shape. */
export const amountOf = (operation: Operation, shape: DataShape): Amount => SPECS[operation].amount(shape);

/** One scenario's generated data. */
export interface PreparedData {
  readonly key: string;
  readonly operation: Operation;
  readonly shape: DataShape;
  readonly dir: string;
  readonly input: string | null;
  readonly digest: string;
  readonly amount: Amount;
  /** Whether the apps write (and the harness checks what they wrote after each trial). */
  readonly writes: boolean;
  /** What the results record about the data: the shape it was generated with, and how long that took. */
  readonly facts: Record<string, number>;
}

/** An empty folder for one trial's output, and how to check and remove it. */
export interface TrialFolder {
  /** The app's params for the paths: `input`, `output`, `target`. */
  readonly paths: Record<string, string>;
  check(depth?: CheckDepth): Promise<string | null>;
  remove(): Promise<void>;
}

/**
 * The data of a run, under one root folder: only the current scenario's data exists at a time
 * (preparing the next removes the previous), and `close` removes everything. The root must exist already.
 */
export class Workspace {
  private current: Promise<PreparedData> | null = null;
  private outputs = 0;
  /** Set by close: a check an interrupt cut short must not generate data in the root being removed. */
  private closed = false;

  /** `beforeGenerate` may refuse (throw) before a scenario's data is generated: the free-space check. */
  constructor(
    readonly root: string,
    private readonly beforeGenerate: (operation: Operation, shape: DataShape) => void,
  ) {}

  /** The scenario's data, generated on first use and flushed to disk so write-back never overlaps a measurement. */
  prepare(key: string, operation: Operation, shape: DataShape): Promise<PreparedData> {
    if (this.closed) return Promise.reject(new Error(`fileio: the workspace is closed, so no data is generated for ${key}`));
    const previous = this.current;
    if (previous) {
      this.current = previous.then(
        (data) => (data.key === key ? data : this.replace(data.dir, key, operation, shape)),
        () => this.replace(null, key, operation, shape),
      );
    } else {
      this.current = this.replace(null, key, operation, shape);
    }
    return this.current;
  }

  private async replace(oldDir: string | null, key: string, operation: Operation, shape: DataShape): Promise<PreparedData> {
    if (oldDir) await rm(oldDir, { recursive: true, force: true });
    this.beforeGenerate(operation, shape);
    const dir = await mkdtemp(join(this.root, `${operation}-`));
    const started = performance.now();
    const spec = SPECS[operation];
    const input = await writeInput(operation, shape, join(dir, "input"));
    const digest = spec.digest(shape);
    await runCommand("sync", ["-f", dir]);
    const generatedS = (performance.now() - started) / 1000;
    const facts = { ...Object.fromEntries(spec.uses.map((key) => [key, shape[key]])), generated_s: Math.round(generatedS * 100) / 100 };
    return { key, operation, shape, dir, input, digest, amount: spec.amount(shape), writes: spec.check !== undefined, facts };
  }

  async output(data: PreparedData): Promise<TrialFolder> {
    const spec = SPECS[data.operation];
    const output = join(data.dir, `output-${++this.outputs}`);
    await mkdir(output);
    return {
      paths: trialPaths(data.operation, data.input, output),
      check: async (depth = "sample") => (spec.check ? spec.check(output, data.shape, depth) : null),
      remove: () => rm(output, { recursive: true, force: true }),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    // Data still being generated lands before the removal, not during it.
    await this.current?.catch(() => null);
    this.current = null;
    await rm(this.root, { recursive: true, force: true });
  }
}
