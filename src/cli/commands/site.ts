import { join, relative, resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { checkNamedFolder } from "../../core/json-file.ts";
import { DEFAULT_DATA_DIR, DEFAULT_PROFILES_DIR, REPO_ROOT } from "../../core/paths.ts";
import type { SiteBuildSummary } from "../../site/build.ts";
import { startSiteBuild } from "../../site/parts.ts";
import { serveSite } from "../../site/server.ts";
import { count } from "../../ui/words.ts";
import { defineCommand } from "../command.ts";

export const DEFAULT_SITE_DIR = resolve(REPO_ROOT, "site/dist");
/** Where `scripts/bench` writes the regressions feed the site shows: derived from data/, so kept out of it. */
export const DEFAULT_FEED_DIR = resolve(REPO_ROOT, "site/feed");
const DEFAULT_PORT = 8080;

function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") ? rel : path;
}

/** What a build made: printed by `site` and after `scripts/bench` with no arguments. */
export function describeBuild(summary: SiteBuildSummary): string {
  const lines = [
    `site built in ${summary.seconds.toFixed(1)} s: ${count(summary.results, "result")}, ${count(summary.scenarios, "scenario")}, ${count(summary.testbeds, "machine")}, ${count(summary.files, "file")} in ${shown(summary.outDir)}`,
  ];
  if (!summary.feed) lines.push("no regressions feed yet (scripts/bench regressions --feed-dir site/feed computes it); the Regressions page says so");
  if (summary.skipped.length > 0) lines.push(`${count(summary.skipped.length, "file")} below the data folder ${summary.skipped.length === 1 ? "was" : "were"} not published, e.g. ${summary.skipped[0]}`);
  return lines.join("\n");
}

/** Where to open a build. Its pages fetch their data, which browsers refuse from file://, so it needs a server. */
export function openHint(summary: SiteBuildSummary, serveCommand: string): string {
  return `open it: ${serveCommand}, then http://127.0.0.1:${DEFAULT_PORT}/ (or copy ${shown(summary.outDir)} to any static host; ${shown(join(summary.outDir, "index.html"))} is its front page)`;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserError(`--port '${text}': use a port number from 0 to 65535`);
  return port;
}

export const siteSubcommand = defineCommand({
  name: "site",
  summary: "Build the static trend site (overview, trends, compare, findings, regressions, methodology) from data/; --serve serves it on localhost.",
  usage: "site [--data DIR] [--feed DIR] [--profiles DIR] [--out DIR] [--serve [--base /PATH/] [--port N]]",
  help: [
    "  --data DIR    results to build from (default: data/)",
    "  --feed DIR    the regressions feed, as `scripts/bench regressions --feed-dir DIR` wrote it (default: site/feed/)",
    "  --profiles DIR  the findings' CPU profiles, as `scripts/bench findings --profile` wrote them (default: profiles/)",
    "  --out DIR     where the site goes (default: site/dist/); emptied first, if it holds an earlier build",
    "  --serve       then serve it on 127.0.0.1 until Ctrl-C",
    "  --base PATH   serve it below this path, as a GitHub Pages project site is (default: /)",
    `  --port N      port to serve on (default: ${DEFAULT_PORT}; 0 picks a free one)`,
    "",
    "The site is self-contained and uses relative URLs only: copy the folder to any static host, at any path.",
  ],
  options: {
    data: { type: "string" },
    feed: { type: "string" },
    profiles: { type: "string" },
    out: { type: "string" },
    serve: { type: "boolean" },
    base: { type: "string" },
    port: { type: "string" },
  },
  async run(values) {
    if (!values.serve && (values.base !== undefined || values.port !== undefined)) throw new UserError("site: --base and --port only apply with --serve");
    // Their defaults may be absent: no feed or profiles yet, which the pages say.
    for (const [option, dir] of [["--feed", values.feed], ["--profiles", values.profiles]] as const) checkNamedFolder(`site: ${option}`, dir, `leave ${option} out to build without it`);
    const outDir = resolve(values.out ?? DEFAULT_SITE_DIR);
    // Listening first: a port in use is found out before the build, not after it.
    const server = values.serve ? await serveSite(outDir, { base: values.base ?? "/", port: parsePort(values.port) }) : null;
    const dataDir = values.data ?? DEFAULT_DATA_DIR;
    // The parts first: they need only the data folder, and load it while the rest of the build and the suites load here (a third of a second).
    const start = startSiteBuild({ dataDir, outDir });
    const [{ buildSite }, { allScenarios, benchPools }, { reproductionArchive }] = await Promise.all([import("../../site/build.ts"), import("../site-inputs.ts"), import("../../findings/repro/archive.ts")]);
    const summary = await buildSite({ dataDir, feedDir: values.feed ?? DEFAULT_FEED_DIR, outDir, scenarios: allScenarios, pools: benchPools(), reproductionArchive, profilesDir: values.profiles ?? DEFAULT_PROFILES_DIR }, start);
    process.stdout.write(`${describeBuild(summary)}\n`);
    if (!server) {
      const serveCommand = ["scripts/bench site --serve", values.data && `--data ${values.data}`, values.out && `--out ${values.out}`].filter(Boolean).join(" ");
      process.stdout.write(`${openHint(summary, serveCommand)}\n`);
      return 0;
    }
    process.stdout.write(`serving ${shown(summary.outDir)} at ${server.url} (Ctrl-C stops)\n`);
    // Runs until Ctrl-C, which the CLI's interrupt handling turns into exit status 130.
    return new Promise<number>(() => {});
  },
});
