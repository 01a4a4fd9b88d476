import { isAbsolute } from "node:path";
import semver from "semver";
import { UserError } from "../core/errors.ts";
import { RUNTIME_NAMES, isRuntimeName, type RuntimeName } from "./catalog.ts";

/** What a SPEC asks for: `22.11.0`, `22` / `2.1`, `latest`, or `path:/abs/bin`. */
export type VersionRequest =
  | { readonly kind: "exact"; readonly version: string }
  | { readonly kind: "line"; readonly prefix: string }
  | { readonly kind: "latest" }
  | { readonly kind: "path"; readonly path: string };

export interface RuntimeSpec {
  readonly text: string;
  readonly name: RuntimeName;
  readonly request: VersionRequest;
}

const LINE = /^\d+(\.\d+)?$/;

export function parseSpec(text: string): RuntimeSpec {
  const at = text.indexOf("@");
  const name = at < 0 ? text : text.slice(0, at);
  const rest = at < 0 ? "latest" : text.slice(at + 1);
  if (!isRuntimeName(name)) {
    throw new UserError(`unknown runtime '${name}' in '${text}': expected one of ${RUNTIME_NAMES.join(", ")}`);
  }
  if (rest.startsWith("path:")) {
    const path = rest.slice("path:".length);
    if (!isAbsolute(path)) throw new UserError(`'${text}': the path after 'path:' must be absolute`);
    return { text, name, request: { kind: "path", path } };
  }
  if (rest === "latest") return { text, name, request: { kind: "latest" } };
  const version = rest.replace(/^v/, "");
  if (semver.valid(version)) return { text, name, request: { kind: "exact", version } };
  if (LINE.test(version)) return { text, name, request: { kind: "line", prefix: version } };
  throw new UserError(
    `cannot read the version in '${text}': use NAME@X.Y.Z, NAME@X, NAME@X.Y, NAME@latest or NAME@path:/abs/bin`,
  );
}

/** Picks the version a request means from a package's published versions; stable releases only unless exact. */
export function pickVersion(spec: RuntimeSpec, published: readonly string[]): string {
  const stable = published.filter((v) => semver.valid(v) && semver.prerelease(v) === null);
  const newest = semver.rsort([...stable])[0];
  const request = spec.request;
  const missing = (what: string) =>
    new UserError(
      `${spec.name} ${what} does not exist in the registry; the newest ${spec.name} is ${newest ?? "(none published)"}`,
    );
  switch (request.kind) {
    case "exact":
      if (!published.includes(request.version)) throw missing(request.version);
      return request.version;
    case "latest":
      if (newest === undefined) throw missing("latest");
      return newest;
    case "line": {
      const found = semver.maxSatisfying(stable, `${request.prefix}.x`);
      if (found === null) throw missing(`${request.prefix}.x`);
      return found;
    }
    case "path":
      throw new Error("a path spec has no registry version");
  }
}
