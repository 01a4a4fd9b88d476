import { RESULT_SCHEMA_ID, type ResultDocument } from "./types.ts";

/*
 * What a result file may hold beyond its schema, checked by collect and validate before the schema:
 * a size, a depth, finite numbers, a number of samples per metric, and only the metrics its suite
 * declares, in the units declared. Each bound sits far above what the harness writes (a full
 * profile's result is tens of kilobytes, five levels deep, with at most a few thousand samples per
 * metric); they keep a forged file from exhausting the collect or the site build, and a number
 * JSON reads as Infinity (`1e999`) from becoming `null` once written back.
 */
export const RESULT_LIMITS = {
  /** Bytes of one result file. */
  bytes: 16 * 1024 * 1024,
  /** Levels of objects and lists, the document itself the first. */
  depth: 32,
  /** Samples of one metric. */
  samples: 100_000,
} as const;

/** Why a file of `bytes` cannot be a result, or nothing. */
export function sizeProblem(bytes: number): string | undefined {
  return bytes > RESULT_LIMITS.bytes ? `${bytes} bytes, more than a result's ${RESULT_LIMITS.bytes}` : undefined;
}

/** A place in the document: its key and the place holding it. */
interface Place {
  readonly value: unknown;
  readonly key: string;
  readonly parent: Place | null;
  readonly depth: number;
}

const pointer = (place: Place): string => {
  const keys: string[] = [];
  for (let at: Place | null = place; at?.parent; at = at.parent) keys.unshift(at.key.replace(/~/g, "~0").replace(/\//g, "~1"));
  return `/${keys.join("/")}`;
};

/**
 * A parsed document's problems with its depth and its numbers, as `/field: problem` lines. The
 * walk keeps its own stack, so a document nested too deep for a recursive schema check is reported,
 * never a stack overflow.
 */
export function shapeProblems(doc: unknown): string[] {
  const problems: string[] = [];
  const stack: Place[] = [{ value: doc, key: "", parent: null, depth: 0 }];
  while (stack.length > 0 && problems.length < 10) {
    const place = stack.pop()!;
    const { value } = place;
    if (typeof value === "number" && !Number.isFinite(value)) problems.push(`${pointer(place)}: ${value} is not a finite number`);
    if (value === null || typeof value !== "object") continue;
    if (place.depth >= RESULT_LIMITS.depth) {
      problems.push(`${pointer(place)}: nested deeper than ${RESULT_LIMITS.depth} levels`);
      continue;
    }
    for (const [key, inner] of Object.entries(value)) stack.push({ value: inner, key, parent: place, depth: place.depth + 1 });
  }
  const metrics = (doc as { metrics?: unknown } | null)?.metrics;
  if (metrics !== null && typeof metrics === "object") {
    for (const [name, metric] of Object.entries(metrics as Record<string, { samples?: unknown }>)) {
      const samples = metric?.samples;
      if (Array.isArray(samples) && samples.length > RESULT_LIMITS.samples) problems.push(`/metrics/${name}/samples: ${samples.length} samples, more than a metric's ${RESULT_LIMITS.samples}`);
    }
  }
  return problems;
}

/** Each suite's metrics, each with the units declared for it (the suite's, and any a scenario's manifest gives it). */
export type DeclaredMetrics = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

/** A schema-valid result's metrics that its suite does not declare, or declares in another unit. */
export function undeclaredMetrics(doc: ResultDocument, declared: DeclaredMetrics): string[] {
  const metrics = declared.get(doc.suite);
  if (!metrics) return [`/suite: '${doc.suite}' is no suite of this harness`];
  return Object.entries(doc.metrics).flatMap(([name, metric]) => {
    const units = metrics.get(name);
    if (!units) return [`/metrics/${name}: the ${doc.suite} suite records no metric '${name}'`];
    return units.has(metric.unit) ? [] : [`/metrics/${name}/unit: '${metric.unit}', but the ${doc.suite} suite declares ${[...units].map((unit) => `'${unit}'`).join(" or ")}`];
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isText = (value: unknown) => typeof value === "string";
const isNumber = (value: unknown) => typeof value === "number";
const OBJECT = [isObject, "an object"] as const;
const TEXT = [isText, "a string"] as const;
const NUMBER = [isNumber, "a number"] as const;

/** The fields every reader of results takes for granted (compare, regressions, findings, export, the site), parents before their fields. */
const RELIED_ON: readonly (readonly [string, (value: unknown) => boolean, string])[] = [
  ["schema", (value) => value === RESULT_SCHEMA_ID, `'${RESULT_SCHEMA_ID}'`],
  ...(["run", "environment", "runtime", "params", "tools", "metrics"] as const).map((key) => [key, ...OBJECT] as const),
  ...(["run/id", "run/runner", "run/started_at", "run/profile", "environment/fingerprint", "runtime/name", "runtime/version", "suite", "scenario", "status", "reproduce"] as const).map(
    (key) => [key, ...TEXT] as const,
  ),
  ["run/trials", ...NUMBER],
  ["scenario_version", ...NUMBER],
  ["app", (value) => value === null || isText(value), "a string or null"],
];

const METRIC_RELIED_ON: readonly (readonly [string, (value: unknown) => boolean, string])[] = [
  ["unit", ...TEXT],
  ["better", (value) => value === "lower" || value === "higher", "lower or higher"],
  ["samples", (value) => Array.isArray(value) && value.every(isNumber), "a list of numbers"],
  ["median", ...NUMBER],
];

/**
 * The first field a parsed document lacks of those every reader relies on, as `/field: must be …`,
 * or nothing. Far less than the schema, which `validate` and `collect` check: checking each file
 * of a history against the schema makes a cold read of it half as slow again.
 */
export function incompleteResult(doc: unknown): string | undefined {
  if (!isObject(doc)) return "/: must be an object";
  for (const [path, holds, what] of RELIED_ON) {
    const value = path.split("/").reduce<unknown>((inner, key) => (inner as Record<string, unknown>)[key], doc);
    if (!holds(value)) return `/${path}: must be ${what}`;
  }
  for (const [name, metric] of Object.entries(doc.metrics as Record<string, unknown>)) {
    if (!isObject(metric)) return `/metrics/${name}: must be an object`;
    const missing = METRIC_RELIED_ON.find(([key, holds]) => !holds(metric[key]));
    if (missing) return `/metrics/${name}/${missing[0]}: must be ${missing[2]}`;
  }
  return undefined;
}
