/**
 * Running the parts of a site build (src/site/part.ts): the data folder's runners shared out
 * between as many parts as the machine has cores (never more than runners), each part in a worker
 * thread, or in the build's own thread when there is one.
 */
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { build, type Plugin } from "esbuild";
import { UserError } from "../core/errors.ts";
import { runFolderNames } from "../results/store.ts";
import { checkDataDir, checkOutDir } from "./folders.ts";
import type { PartFacts, PartInput, PartPlan, PartSummary } from "./part.ts";
import type { PartMessage } from "./part-worker.ts";

export interface RunningPart {
  readonly facts: Promise<PartFacts>;
  build(plan: PartPlan): Promise<PartSummary>;
  /** Stops a worker that is still running (another part failed). */
  stop(): void;
}

/** The runners below the data folder in `count` groups with about as many runs each, the largest runners placed first. */
export function shareRunners(dataDir: string, count: number): string[][] {
  const runs = new Map<string, number>();
  for (const name of runFolderNames(dataDir)) {
    const runner = name.slice(0, name.indexOf("/"));
    runs.set(runner, (runs.get(runner) ?? 0) + 1);
  }
  const parts = Array.from({ length: Math.max(1, Math.min(count, runs.size)) }, () => ({ runners: [] as string[], runs: 0 }));
  for (const [runner, n] of [...runs].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
    const lightest = parts.reduce((a, b) => (b.runs < a.runs ? b : a));
    lightest.runners.push(runner);
    lightest.runs += n;
  }
  return parts.map((p) => p.runners.sort());
}

function inThread(input: PartInput): RunningPart {
  // Imported here, not above: the build starts its parts before it loads the modules they use.
  const loading = import("./part.ts").then(({ BuildPart }) => BuildPart.load(input));
  return {
    facts: loading.then((part) => part.facts()),
    build: async (plan) => (await loading).build(plan),
    stop: () => {},
  };
}

/** The worker's next message, as a value or the error it reports; a worker that stops without one is an error too. */
function nextMessage(worker: Worker): Promise<PartMessage> {
  return new Promise((resolve, reject) => {
    const done = () => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    const onMessage = (message: PartMessage) => {
      done();
      if ("error" in message) reject(message.user ? new UserError(message.error) : new Error(`a part of the site build failed: ${message.error}`));
      else resolve(message);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`a part of the site build stopped with exit code ${code}`));
    };
    worker.on("message", onMessage);
    worker.once("error", onError);
    worker.once("exit", onExit);
  });
}

/**
 * The harness runs its TypeScript through tsx, whose hooks a worker does not inherit: registering
 * them in each worker and loading its modules through them took 0.7 s of each part's start (half a
 * second of the five-year build's wall time). Instead the worker's code is bundled once per build
 * by esbuild (some 50 ms, in its own process) into one CommonJS script, which each worker
 * evaluates: started from a data: URL as an ES module, the same half megabyte took each worker
 * 95-135 ms to start instead of 45 (2026-11-27), in the build's serial part. Evaluated code resolves
 * nothing, so packages are bundled too, and each source file's `import.meta.url` is replaced by its
 * own file URL, so that paths computed from it stay true.
 */
async function workerSource(): Promise<string> {
  const entry = fileURLToPath(new URL("./part-worker.ts", import.meta.url));
  const ownUrls: Plugin = {
    name: "own-import-meta-url",
    setup(plugin) {
      plugin.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({ contents: (await readFile(path, "utf8")).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href)), loader: "ts" }));
    },
  };
  const { outputFiles } = await build({ entryPoints: [entry], bundle: true, platform: "node", format: "cjs", target: "node20", write: false, logLevel: "silent", plugins: [ownUrls] });
  return outputFiles[0]!.text;
}

/**
 * The process's options without its module hooks (`--import tsx`): a worker inherits them, and
 * registering tsx took a tenth of a second of each worker's start (2026-11-26) for a bundle that
 * needs no hooks. Every other option (a profiler's, a heap limit) still reaches the workers.
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const hooks = new Set(["--import", "--loader", "--experimental-loader", "--require", "-r"]);
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const option = execArgv[i]!;
    if (hooks.has(option)) i++;
    else if (![...hooks].some((hook) => option.startsWith(`${hook}=`))) kept.push(option);
  }
  return kept;
}

function inWorker(source: string, input: PartInput): RunningPart {
  const worker = new Worker(source, { eval: true, workerData: input, execArgv: workerExecArgv(process.execArgv) });
  const facts = nextMessage(worker).then((message) => (message as { facts: PartFacts }).facts);
  // Awaited with the others' facts; when another part fails first, nobody awaits this one.
  facts.catch(() => {});
  return {
    facts,
    build: async (plan) => {
      const summary = nextMessage(worker);
      worker.postMessage(plan);
      return ((await summary) as { summary: PartSummary }).summary;
    },
    stop: () => void worker.terminate(),
  };
}

/** Starts one part per group of runners: in worker threads when there are several, else here. */
export async function startParts(input: Omit<PartInput, "runners">): Promise<RunningPart[]> {
  const groups = shareRunners(input.dataDir, availableParallelism());
  if (groups.length === 1) return [inThread({ ...input, runners: groups[0]! })];
  const source = await workerSource();
  return groups.map((runners) => inWorker(source, { ...input, runners }));
}

/** A site build begun: its folders checked, its parts loading. */
export interface SiteStart {
  readonly dataDir: string;
  readonly outDir: string;
  /** When it began (`performance.now()`). */
  readonly began: number;
  readonly parts: Promise<RunningPart[]>;
}

/**
 * Checks the build's folders and starts its parts, which need nothing but the data folder: the site
 * command calls this before it loads the rest of the build and the suites that describe the
 * scenarios (a third of a second), so that the parts load meanwhile.
 */
export function startSiteBuild(folders: { readonly dataDir: string; readonly outDir: string }): SiteStart {
  const began = performance.now();
  const dataDir = resolve(folders.dataDir);
  const outDir = resolve(folders.outDir);
  checkDataDir(dataDir);
  checkOutDir(outDir);
  const parts = startParts({ dataDir, outDir });
  // Awaited by the build, once loaded: until then a failure is not an unhandled one.
  parts.catch(() => {});
  return { dataDir, outDir, began, parts };
}
