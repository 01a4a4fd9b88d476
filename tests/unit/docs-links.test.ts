import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../../src/core/paths.ts";
import { SUITES } from "../../src/suites/index.ts";

/** README.md and every Markdown file under docs/. */
function documents(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : []));
  return [join(REPO_ROOT, "README.md"), ...walk(join(REPO_ROOT, "docs"))];
}

/** Markdown without its fenced code blocks and inline code, where a bracket is not a link. */
const prose = (text: string) => text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "").replace(/`[^`\n]*`/g, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "");
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** Every relative link target of a document: Markdown links and images, and HTML href attributes. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown);
  const targets = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test("every relative link and anchor in README.md and docs/ leads somewhere", () => {
  const broken: string[] = [];
  for (const file of documents()) {
    const where = relative(REPO_ROOT, file);
    for (const link of linksOf(readFileSync(file, "utf8"))) {
      const [path, anchor] = link.split("#", 2) as [string, string | undefined];
      const target = path === "" ? file : join(dirname(file), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${where}: ${link}: no such file`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (!target.endsWith(".md") || statSync(target).isDirectory()) {
        broken.push(`${where}: ${link}: an anchor into a file that is not Markdown`);
      } else if (!anchorsOf(readFileSync(target, "utf8")).has(anchor)) {
        broken.push(`${where}: ${link}: no heading or anchor '${anchor}' in ${relative(REPO_ROOT, target)}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("the anchors are GitHub's", () => {
  const anchors = anchorsOf("# Adding an app (a package manager)\n## What a run costs: `scripts/bench plan`\n## Reading a result\n## Reading a result\n```\n# not a heading\n```\n<a id=\"false-alarms\"></a>\n");
  assert.deepEqual([...anchors], ["adding-an-app-a-package-manager", "what-a-run-costs-scriptsbench-plan", "reading-a-result", "reading-a-result-1", "false-alarms"]);
});

test("every suite has its page, with an 'adding an app' section one click from the README", () => {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  for (const { name: suite } of SUITES) {
    const page = join(REPO_ROOT, "docs/suites", `${suite}.md`);
    assert.ok(existsSync(page), `docs/suites/${suite}.md`);
    const adding = [...anchorsOf(readFileSync(page, "utf8"))].find((anchor) => anchor.startsWith("adding-an-app"));
    assert.ok(adding, `docs/suites/${suite}.md has an "Adding an app" section`);
    assert.ok(readme.includes(`](docs/suites/${suite}.md#${adding})`), `README.md links to docs/suites/${suite}.md#${adding}`);
  }
});

test("the README stays a five-minute read", () => {
  const lines = readFileSync(join(REPO_ROOT, "README.md"), "utf8").split("\n").length - 1;
  assert.ok(lines <= 250, `README.md has ${lines} lines; move detail into docs/`);
});

test("DEVELOPERS.md is true to the tree: its layout table has every folder of src/, and every path it names exists", () => {
  const developers = readFileSync(join(REPO_ROOT, "DEVELOPERS.md"), "utf8");
  const tableFolders = new Set([...developers.matchAll(/^\| [^|]*`src\/([a-z-]+)\/`/gm)].map((m) => m[1]!));
  const folders = readdirSync(join(REPO_ROOT, "src"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual([...tableFolders].sort(), folders.sort(), "the layout table's src/ folders are `ls src`");
  const named = [...developers.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!)
    .filter((path) => /^(src|scripts|apps|schemas|tests|benchmarks|docs|suites|site|\.github)\//.test(path) && !/[<>*…]/.test(path));
  assert.ok(named.length > 20, "the check sees the paths the page names");
  assert.deepEqual(named.filter((path) => !existsSync(join(REPO_ROOT, path))), []);
});
