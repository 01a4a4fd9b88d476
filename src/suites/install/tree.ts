import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** What an install left in a project, read the way Node resolves packages from it. */
export interface InstalledTree {
  /** Every package reachable from the project through its dependencies, as name@version, sorted. */
  readonly packages: readonly string[];
  /** Top-level dependencies that did not resolve to the exact version package.json names. */
  readonly wrongTopLevel: readonly string[];
  /** Required (non-optional) dependencies that resolve nowhere, as "dependent > name". */
  readonly missing: readonly string[];
}

function readPackage(dir: string): PackageJson | null {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
  } catch {
    return null;
  }
}

/** Node's lookup: `name` in node_modules of `from` and of each folder above it (skipping node_modules folders themselves). */
function resolveFrom(from: string, name: string, root: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    if (!dir.endsWith(`${sep}node_modules`)) {
      const candidate = join(dir, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    }
    if (dir === root || dirname(dir) === dir) return null;
  }
}

/**
 * Walks the installed graph from the project's package.json: every top-level dependency must
 * resolve to the exact version asked for, and every required dependency of every reached package
 * must resolve. Optional dependencies count when present (platform packages are skipped elsewhere).
 */
export function readInstalledTree(project: string): InstalledTree {
  const root = realpathSync(project);
  const manifest = readPackage(root) ?? {};
  const wrongTopLevel: string[] = [];
  const missing: string[] = [];
  const packages = new Set<string>();
  const visited = new Set<string>();
  const queue: string[] = [];

  for (const [name, wanted] of Object.entries(manifest.dependencies ?? {})) {
    const dir = resolveFrom(root, name, root);
    const found = dir ? readPackage(dir) : null;
    if (!dir || !found) wrongTopLevel.push(`${name}: not installed (wanted ${wanted})`);
    else if (found.version !== wanted) wrongTopLevel.push(`${name}: ${found.version ?? "no version"} installed, wanted ${wanted}`);
    if (dir) queue.push(dir);
  }
  while (queue.length > 0) {
    const dir = queue.pop()!;
    if (visited.has(dir)) continue;
    visited.add(dir);
    const pkg = readPackage(dir);
    if (!pkg) continue;
    packages.add(`${pkg.name}@${pkg.version}`);
    const optional = pkg.optionalDependencies ?? {};
    for (const name of new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(optional)])) {
      const found = resolveFrom(dir, name, root);
      if (found) queue.push(found);
      else if (!(name in optional)) missing.push(`${pkg.name}@${pkg.version} > ${name}`);
    }
  }
  return { packages: [...packages].sort(), wrongTopLevel, missing: missing.sort() };
}

/** Why a tree is broken, or null when it is complete. */
export function treeProblem(tree: InstalledTree): string | null {
  const problems = [...tree.wrongTopLevel, ...tree.missing.map((m) => `missing ${m}`)];
  if (problems.length === 0) return null;
  const shown = problems.slice(0, 5).join("; ");
  return `broken install: ${shown}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}`;
}

/** Packages one tree has and the other lacks, both ways. */
export function treeDifference(here: InstalledTree, there: InstalledTree): { only_here: string[]; only_there: string[] } {
  const a = new Set(here.packages);
  const b = new Set(there.packages);
  return { only_here: here.packages.filter((p) => !b.has(p)), only_there: there.packages.filter((p) => !a.has(p)) };
}
