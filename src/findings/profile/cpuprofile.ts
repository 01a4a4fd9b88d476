/**
 * The CPU profiles that `--cpu-prof` writes (Node, Deno and Bun share V8's `.cpuprofile` JSON:
 * a call tree of nodes, and a sample per tick naming its node with the time since the one before).
 */
interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One function's share of the samples. */
export interface FunctionTime {
  /** `name (file:line)`, or V8's own names such as `(garbage collector)`. */
  name: string;
  self_ms: number;
  /** Of all sampled time across the profiles given, idle excluded. */
  share: number;
}

/** What the runtime was doing while idle or in the profiler itself: not where the time went. */
const NOT_WORK = new Set(["(idle)", "(program)", "(root)"]);

function frameName({ functionName, url, lineNumber }: CallFrame): string {
  const name = functionName === "" ? "(anonymous)" : functionName;
  if (url === "" || name.startsWith("(")) return name;
  const file = url.replace(/^file:\/\//, "").split("/").slice(-2).join("/");
  return `${name} (${file}:${lineNumber + 1})`;
}

/** Parses a `.cpuprofile` document, or says what is wrong with it. */
export function parseCpuProfile(text: string, where: string): CpuProfile {
  const doc = JSON.parse(text) as Partial<CpuProfile>;
  if (!Array.isArray(doc.nodes) || !Array.isArray(doc.samples) || !Array.isArray(doc.timeDeltas) || doc.samples.length !== doc.timeDeltas.length) {
    throw new Error(`${where}: not a CPU profile (nodes, samples and timeDeltas of equal length)`);
  }
  return doc as CpuProfile;
}

/**
 * Self time per function over one or more profiles (a process and its worker threads), the largest
 * first. A sample's weight is the time until the next one: the tick it names ran for that long.
 */
export function topFunctions(profiles: readonly CpuProfile[], count: number): FunctionTime[] {
  const selfUs = new Map<string, number>();
  for (const profile of profiles) {
    const names = new Map(profile.nodes.map((node) => [node.id, frameName(node.callFrame)]));
    profile.samples.forEach((id, i) => {
      const name = names.get(id) ?? "(unknown)";
      const weight = profile.timeDeltas[i + 1] ?? 0;
      if (!NOT_WORK.has(name)) selfUs.set(name, (selfUs.get(name) ?? 0) + Math.max(0, weight));
    });
  }
  const total = [...selfUs.values()].reduce((sum, us) => sum + us, 0);
  return [...selfUs]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, count)
    .map(([name, us]) => ({ name, self_ms: us / 1000, share: total > 0 ? us / total : 0 }));
}
